//! Known answers of the checksums, SHA-3, SHAKE and SM3 through every path: `hash`, the
//! streaming `Hasher` in odd pieces, `hash_many` (one batch of every message, so the
//! lanes see ragged lengths), `hash_many_par`, `StreamBatch`, `LaneHasher` and
//! `MultiHasher`, at every instruction-set level.
//!
//! Answers: the CRC catalogue's check values ("123456789"), xxHash's empty-input values,
//! the SM3 standard's two examples, `tests/vectors/sha3-sm3-hashlib.txt` (Python's hashlib)
//! and `tests/vectors/checksums-coreutils.txt` (zlib, GNU `cksum` and `sum`).

mod common;
mod levels;

use std::collections::BTreeMap;

use lanesum::{hash, hash_many, Algorithm, Hasher, LaneHasher, MultiHasher, StreamBatch};

/// byte i = (7 i + 3) mod 256, the vector files' `pN` messages.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + 3) as u8).collect()
}

fn message(name: &str) -> Vec<u8> {
    match name {
        "empty" => Vec::new(),
        "abc" => b"abc".to_vec(),
        "abc448" => b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".to_vec(),
        "abc896" => b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn\
                      hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            .to_vec(),
        "a1000000" => vec![b'a'; 1_000_000],
        p => pattern(p.strip_prefix('p').unwrap().parse().unwrap()),
    }
}

/// Answers grouped by algorithm: (message, hex).
fn answers() -> BTreeMap<Algorithm, Vec<(Vec<u8>, String)>> {
    let mut all: BTreeMap<Algorithm, Vec<(Vec<u8>, String)>> = BTreeMap::new();
    let mut add = |alg: Algorithm, msg: Vec<u8>, hex: &str| {
        all.entry(alg).or_default().push((msg, hex.to_string()));
    };
    let dir = common::vectors();
    for file in ["sha3-sm3-hashlib.txt", "checksums-coreutils.txt"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut w = line.split(' ');
            let (alg, msg, hex) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
            let alg: Algorithm = alg.parse().unwrap();
            add(alg, message(msg), hex);
        }
    }
    // The CRC catalogue's check values, and POSIX cksum of the same ("930766865 9").
    let check = b"123456789".to_vec();
    add(Algorithm::Crc32, check.clone(), "cbf43926");
    add(Algorithm::Crc32c, check.clone(), "e3069283");
    add(Algorithm::Crc64Nvme, check.clone(), "ae8b14860a799888");
    add(
        Algorithm::Crc,
        check.clone(),
        &format!("{:08x}", 930766865u32),
    );
    add(Algorithm::SumBsd, check.clone(), &format!("{:04x}", 53615));
    add(Algorithm::SumSysv, check, &format!("{:04x}", 477));
    // xxHash's own empty-input values (xxhsum, seed 0).
    add(Algorithm::Xxh64, Vec::new(), "ef46db3751d8e999");
    add(Algorithm::Xxh3, Vec::new(), "2d06800538d394c2");
    add(
        Algorithm::Xxh128,
        Vec::new(),
        "99aa06d3014798d86001c324468d497f",
    );
    // GB/T 32905-2016, appendix A.
    add(
        Algorithm::Sm3,
        b"abc".to_vec(),
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
    );
    add(
        Algorithm::Sm3,
        b"abcd".repeat(16),
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732",
    );
    all
}

/// `msg` through a `Hasher` in pieces of 1, 7, 64, 135, 137 and 1000 bytes, cycling.
fn streamed(alg: Algorithm, msg: &[u8]) -> String {
    let mut h = Hasher::new(alg);
    for piece in pieces(msg) {
        h.update(piece);
        h.update(&[]);
    }
    h.finalize().to_hex()
}

fn pieces(msg: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = msg;
    for &n in [1usize, 7, 64, 135, 137, 1000].iter().cycle() {
        if rest.is_empty() {
            return out;
        }
        let (piece, tail) = rest.split_at(n.min(rest.len()));
        out.push(piece);
        rest = tail;
    }
    out
}

#[test]
fn every_path_gives_the_known_answers() {
    let answers = answers();
    // Every algorithm listed after BLAKE3: the ones this file is about.
    let blake3 = Algorithm::ALL
        .iter()
        .position(|&a| a == Algorithm::Blake3(32));
    for &alg in &Algorithm::ALL[blake3.unwrap() + 1..] {
        assert!(answers.contains_key(&alg), "no known answers for {alg}");
    }
    levels::each_level(|| {
        for (&alg, cases) in &answers {
            let msgs: Vec<&[u8]> = cases.iter().map(|(m, _)| &m[..]).collect();
            let many = hash_many(alg, &msgs);
            let par = lanesum::hash_many_par(alg, &msgs);
            let mut batch = StreamBatch::new(alg, msgs.len());
            let split: Vec<Vec<&[u8]>> = msgs.iter().map(|m| pieces(m)).collect();
            for round in 0..split.iter().map(Vec::len).max().unwrap_or(0) {
                let chunks: Vec<&[u8]> = split
                    .iter()
                    .map(|p| p.get(round).copied().unwrap_or_default())
                    .collect();
                batch.update(&chunks);
            }
            let batched = batch.finalize();
            for (i, (msg, want)) in cases.iter().enumerate() {
                let what = format!("{alg} of {} bytes", msg.len());
                assert_eq!(&hash(alg, msg).to_hex(), want, "hash: {what}");
                assert_eq!(&streamed(alg, msg), want, "Hasher: {what}");
                assert_eq!(&many[i].to_hex(), want, "hash_many: {what}");
                assert_eq!(&par[i].to_hex(), want, "hash_many_par: {what}");
                assert_eq!(&batched[i].to_hex(), want, "StreamBatch: {what}");
                let mut l = LaneHasher::new(alg);
                for p in pieces(msg) {
                    l.update(p);
                }
                assert_eq!(&l.finalize().to_hex(), want, "LaneHasher: {what}");
            }
        }
    });
}

/// Several of the new algorithms at once over one stream, as `lanesum -a crc32c,...`.
#[test]
fn multi_hasher_mixes_them() {
    let algs = [
        Algorithm::Crc32c,
        Algorithm::Crc64Nvme,
        Algorithm::Xxh128,
        Algorithm::Sha3_256,
        Algorithm::Sm3,
        Algorithm::Sha256,
    ];
    levels::each_level(|| {
        for len in [0usize, 1, 135, 136, 137, 5 << 20] {
            let msg = pattern(len);
            let mut m = MultiHasher::new(&algs);
            for chunk in msg.chunks(300_001) {
                m.update(chunk);
            }
            for (alg, d) in algs.iter().zip(m.finalize()) {
                assert_eq!(d, hash(*alg, &msg), "{alg} of {len} bytes");
            }
        }
    });
}

/// Every SHA-3 and SHAKE path `lanesum speed` lists, forced, for 1..=9 messages of ragged
/// lengths around the rate, at every level.
#[test]
fn sha3_every_kernel_every_count() {
    levels::each_level(|| {
        let sha3 = Algorithm::ALL.iter().filter(|a| {
            let name = a.to_string();
            name.starts_with("sha3-") || name.starts_with("shake")
        });
        for alg in sha3.chain(&[Algorithm::Shake256(300)]).copied() {
            let rate = alg.block_len();
            let kernels = lanesum::diagnostics::kernels(alg);
            assert!(kernels.len() >= 2, "{alg}: {kernels:?}");
            for k in kernels {
                for count in 1..=9 {
                    let msgs: Vec<Vec<u8>> = (0..count)
                        .map(|i| pattern([0, rate - 1, rate, rate + 1, 2 * rate + 5][i % 5] + i))
                        .collect();
                    let got = lanesum::diagnostics::hash_many_with(alg, k.name, &msgs)
                        .expect("a listed kernel");
                    for (m, d) in msgs.iter().zip(got) {
                        assert_eq!(d, hash(alg, m), "{alg} {} x{count} len {}", k.name, m.len());
                    }
                }
            }
        }
    });
}
