//! Many messages of one algorithm, of ragged fuzz-chosen lengths (block boundaries
//! favoured): `hash_many`, `hash_many_into`, `hash_many_par`, `StreamBatch` (streams
//! restarted for the next message as theirs ends), `LaneHasher`s and
//! `Hasher::update_many` written in rounds of chunks, and a `MultiHasher`, each against
//! per-message reference digests.
#![no_main]

use lanesum::{
    hash_many, hash_many_into, hash_many_par, Algorithm, Bytes, Hasher, LaneHasher, MultiHasher,
    StreamBatch,
};
use lanesum_fuzz::{announce_level, check, generate, pick_algorithm, reference, Reader};
use libfuzzer_sys::fuzz_target;

/// Lengths around the block sizes of every family (64, 128, SHA-3's rates 72..168,
/// BLAKE3's 1 KiB chunks, BitTorrent's 16 KiB leaves).
const BOUNDS: &[usize] = &[
    0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 47, 48, 55, 56, 57, 63, 64, 65, 71, 72, 73, 95, 96, 103, 104,
    111, 112, 113, 119, 120, 127, 128, 129, 135, 136, 137, 143, 144, 145, 167, 168, 169, 191, 192,
    255, 256, 257, 383, 384, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
    8191, 8192, 16383, 16384, 16385, 32768,
];

/// Bytes of all messages together, at most.
const BUDGET: usize = 1 << 19;

/// Rounds of chunks a streaming interface is written in, at most.
const ROUNDS: usize = 24;

fuzz_target!(|bytes: &[u8]| {
    announce_level();
    let mut r = Reader::new(bytes);
    let alg = pick_algorithm(r.u8(), r.u8());
    let flags = r.u8();
    let seed = r.u8() as u64;
    let streams = 1 + r.u8() as usize % 70;
    let count = r.u8() as usize % 72;
    let mut total = 0;
    let msgs: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let (c, v) = (r.u8(), r.u8());
            let len = if c < 192 {
                let b = BOUNDS[c as usize % BOUNDS.len()] as isize;
                (b + (v as i8 as isize) / 32).max(0) as usize
            } else {
                ((c - 192) as usize) << 8 | v as usize
            };
            let len = len.min(BUDGET - total);
            total += len;
            generate(seed << 8 | i as u64, len)
        })
        .collect();
    // Chunk sizes for the streaming interfaces, used in turn.
    let sizes: Vec<usize> = r
        .rest()
        .iter()
        .map(|&b| {
            if b < 224 {
                b as usize
            } else {
                (b as usize - 223) * 1000
            }
        })
        .collect();
    // After `ROUNDS` rounds a stream takes the rest of its message: every run ends.
    let mut k = 0;
    let mut next_size = |round: usize| {
        if sizes.is_empty() || round >= ROUNDS {
            usize::MAX
        } else {
            k += 1;
            sizes[(k - 1) % sizes.len()]
        }
    };
    let want: Vec<Vec<u8>> = msgs.iter().map(|m| reference(alg, m)).collect();
    let check_all = |what: &str, got: &[Vec<u8>]| {
        assert_eq!(got.len(), want.len(), "{what}: digest count");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            check(&format!("{what} [{i}/{count}]"), alg, msgs[i].len(), g, w);
        }
    };

    let got: Vec<Vec<u8>> = hash_many(alg, &msgs)
        .iter()
        .map(|d| d.as_bytes().to_vec())
        .collect();
    check_all("hash_many", &got);

    if flags & 1 != 0 {
        let n = alg.digest_len();
        let mut out = vec![0xA5u8; msgs.len() * n];
        hash_many_into(alg, &msgs, &mut out);
        let got: Vec<Vec<u8>> = if n == 0 {
            vec![Vec::new(); msgs.len()]
        } else {
            out.chunks(n).map(<[u8]>::to_vec).collect()
        };
        check_all("hash_many_into", &got);
    }
    if flags & 2 != 0 {
        let got: Vec<Vec<u8>> = hash_many_par(alg, &msgs)
            .iter()
            .map(|d| d.as_bytes().to_vec())
            .collect();
        check_all("hash_many_par", &got);
    }

    // StreamBatch: `streams` streams take the messages in order; a stream whose message
    // has been written in full is restarted (its digest is that message's) and takes the
    // next one.
    if flags & 4 != 0 {
        let mut b = StreamBatch::new(alg, streams);
        assert_eq!(b.len(), streams);
        let mut got = vec![Vec::new(); msgs.len()];
        // (message, bytes written) per stream.
        let mut cur: Vec<Option<(usize, usize)>> = vec![None; streams];
        let mut next = 0;
        let mut round = 0;
        loop {
            round += 1;
            for c in cur.iter_mut() {
                if c.is_none() && next < msgs.len() {
                    *c = Some((next, 0));
                    next += 1;
                }
            }
            if cur.iter().all(Option::is_none) {
                break;
            }
            let mut chunks: Vec<&[u8]> = Vec::with_capacity(streams);
            for c in cur.iter_mut() {
                match c {
                    Some((m, done)) => {
                        let end = done.saturating_add(next_size(round)).min(msgs[*m].len());
                        chunks.push(&msgs[*m][*done..end]);
                        *done = end;
                    }
                    None => chunks.push(&[]),
                }
            }
            b.update(&chunks);
            for (i, c) in cur.iter_mut().enumerate() {
                if let Some((m, done)) = *c {
                    if done == msgs[m].len() {
                        got[m] = b.restart(i).as_bytes().to_vec();
                        *c = None;
                    }
                }
            }
        }
        let empty = reference(alg, b"");
        for (i, d) in b.finalize().iter().enumerate() {
            check(
                &format!("StreamBatch restarted stream {i}"),
                alg,
                0,
                d.as_bytes(),
                &empty,
            );
        }
        check_all("StreamBatch", &got);
    }

    // LaneHasher and Hasher::update_many: every message written in rounds of chunks.
    if flags & 24 != 0 {
        let lanes = flags & 8 != 0;
        let mut lh: Vec<LaneHasher> = if lanes {
            msgs.iter().map(|_| LaneHasher::new(alg)).collect()
        } else {
            Vec::new()
        };
        let mut hs: Vec<Hasher> = if flags & 16 != 0 {
            msgs.iter().map(|_| Hasher::new(alg)).collect()
        } else {
            Vec::new()
        };
        let mut done = vec![0usize; msgs.len()];
        let mut round = 0;
        while done.iter().zip(&msgs).any(|(&d, m)| d < m.len()) {
            round += 1;
            let mut chunks: Vec<&[u8]> = Vec::with_capacity(msgs.len());
            for (i, m) in msgs.iter().enumerate() {
                let end = done[i].saturating_add(next_size(round)).min(m.len());
                chunks.push(&m[done[i]..end]);
                done[i] = end;
            }
            for (i, (h, c)) in lh.iter_mut().zip(&chunks).enumerate() {
                if (i + done[i]).is_multiple_of(3) {
                    h.update_bytes(Bytes::copy_from_slice(c));
                } else {
                    h.update(c);
                }
            }
            if !hs.is_empty() {
                let mut refs: Vec<&mut Hasher> = hs.iter_mut().collect();
                Hasher::update_many(&mut refs, &chunks);
            }
        }
        if lanes {
            let got: Vec<Vec<u8>> = lh
                .into_iter()
                .map(|h| h.finalize().as_bytes().to_vec())
                .collect();
            check_all("LaneHasher", &got);
        }
        if !hs.is_empty() {
            let got: Vec<Vec<u8>> = hs
                .into_iter()
                .map(|h| h.finalize().as_bytes().to_vec())
                .collect();
            check_all("Hasher::update_many", &got);
        }
    }

    // MultiHasher: the first message under this algorithm and a few others.
    if flags & 32 != 0 && !msgs.is_empty() {
        let algs: Vec<Algorithm> = [alg]
            .into_iter()
            .chain((0..(flags >> 6)).map(|k| pick_algorithm(seed as u8 ^ (k * 37), k)))
            .collect();
        let m = &msgs[0];
        let mut mh = MultiHasher::new(&algs);
        let mut done = 0;
        let mut round = 0;
        while done < m.len() {
            round += 1;
            let end = done.saturating_add(next_size(round)).min(m.len());
            if done % 2 == 0 {
                mh.update(&m[done..end]);
            } else {
                mh.update_bytes(Bytes::copy_from_slice(&m[done..end]));
            }
            done = end;
        }
        for (a, d) in algs.iter().zip(mh.finalize()) {
            check("MultiHasher", *a, m.len(), d.as_bytes(), &reference(*a, m));
        }
    }
});
