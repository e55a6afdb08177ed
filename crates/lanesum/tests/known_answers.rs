//! Known-answer tests: published digests through `lanesum::hash` and the streaming
//! `Hasher`.
//!
//! The official files (NIST SHAVS, the BLAKE2 and BLAKE3 reference repositories' vectors)
//! are kept in `tests/vectors` (see its README.md; a missing file fails); the hand-written
//! answers add what they lack: MD5 (RFC 1321), SHA-512/224 and SHA-512/256, one million
//! 'a', "abc" and truncated BLAKE2 outputs. Keyed BLAKE2 and BLAKE3 keyed/derive-key
//! vectors are checked by the reference modules' unit tests, which can reach the
//! crate-private hashers.

mod common;
mod levels;

use lanesum::{hash, Algorithm, Hasher};

/// Piece sizes for streamed hashing: odd, and straddling 64- and 128-byte blocks.
const PIECES: [usize; 9] = [1, 3, 7, 13, 31, 63, 65, 127, 129];

/// `msg` through a `Hasher` in pieces of cycling odd sizes, with empty updates between.
fn streamed(alg: Algorithm, msg: &[u8]) -> String {
    let mut h = Hasher::new(alg);
    let mut rest = msg;
    for &n in PIECES.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at(n.min(rest.len()));
        h.update(piece);
        h.update(&[]);
        rest = tail;
    }
    h.finalize().to_hex()
}

/// Checks one answer one-shot and streamed.
fn check(alg: Algorithm, msg: &[u8], want: &str, what: &str) {
    assert_eq!(hash(alg, msg).to_hex(), want, "{alg} one-shot: {what}");
    assert_eq!(streamed(alg, msg), want, "{alg} streamed: {what}");
}

/// FIPS 180-2 appendix examples: "abc", the two-block message and one million 'a'.
const SHA_TWO_BLOCK_256: &str = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
const SHA_TWO_BLOCK_512: &str = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn\
                                 hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

#[test]
fn md5_rfc1321() {
    levels::each_level(|| {
        let cases = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (msg, want) in cases {
            check(Algorithm::Md5, msg.as_bytes(), want, &format!("{msg:?}"));
        }
    });
}

#[test]
fn sha_fips180_examples() {
    levels::each_level(|| {
        // (algorithm, "abc", two-block message, one million 'a')
        let cases = [
            (
                Algorithm::Sha1,
                "a9993e364706816aba3e25717850c26c9cd0d89d",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
                "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
            ),
            (
                Algorithm::Sha224,
                "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
                "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
                "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67",
            ),
            (
                Algorithm::Sha256,
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
            ),
            (
                Algorithm::Sha384,
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163\
             1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
                "09330c33f71147e83d192fc782cd1b4753111b173b3b05d2\
             2fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
                "9d0e1809716474cb086e834e310a4a1ced149e9c00f24852\
             7972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985",
            ),
            (
                Algorithm::Sha512,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
             2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
                "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018\
             501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
                "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb\
             de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
            ),
            (
                Algorithm::Sha512_224,
                "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa",
                "23fec5bb94d60b23308192640b0c453335d664734fe40e7268674af9",
                "37ab331d76f0d36de422bd0edeb22a28accd487b7a8453ae965dd287",
            ),
            (
                Algorithm::Sha512_256,
                "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
                "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a",
                "9a59a052930187a97038cae692f30708aa6491923ef5194394dc68d56c74fb21",
            ),
        ];
        let million = vec![b'a'; 1_000_000];
        for (alg, abc, two, mil) in cases {
            let two_block = if alg.block_len() == 64 {
                SHA_TWO_BLOCK_256
            } else {
                SHA_TWO_BLOCK_512
            };
            check(alg, b"abc", abc, "abc");
            check(alg, two_block.as_bytes(), two, "two-block message");
            check(alg, &million, mil, "one million 'a'");
        }
    });
}

#[test]
fn blake_examples() {
    levels::each_level(|| {
        let cases = [
            (
                Algorithm::Blake2b(64),
                "",
                "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419\
             d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce",
            ),
            (
                Algorithm::Blake2b(64),
                "abc",
                "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
             7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
            ),
            (
                Algorithm::Blake2b(32),
                "",
                "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8",
            ),
            (
                Algorithm::Blake2b(32),
                "abc",
                "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319",
            ),
            (
                Algorithm::Blake2s(32),
                "",
                "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9",
            ),
            (
                Algorithm::Blake2s(32),
                "abc",
                "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982",
            ),
            (
                Algorithm::Blake2s(16),
                "",
                "64550d6ffe2c0a01a14aba1eade0200c",
            ),
            (
                Algorithm::Blake2s(16),
                "abc",
                "aa4938119b1dc7b87cbad0ffd200d0ae",
            ),
            (
                Algorithm::Blake3(32),
                "",
                "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
            ),
            (
                Algorithm::Blake3(32),
                "abc",
                "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
            ),
        ];
        for (alg, msg, want) in cases {
            check(alg, msg.as_bytes(), want, &format!("{msg:?}"));
        }
    });
}

/// Every ShortMsg and LongMsg vector of every NIST SHAVS file in the folder: the ten
/// files kept there are named, so a missing one fails, and any other `.rsp` file added
/// there is read too.
#[test]
fn nist_shavs() {
    levels::each_level(|| {
        let dir = common::vectors().join("nist-shavs");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rsp"))
            .collect();
        files.sort();
        for sha in ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"] {
            for kind in ["ShortMsg", "LongMsg"] {
                let path = dir.join(format!("{sha}{kind}.rsp"));
                assert!(files.contains(&path), "missing {}", path.display());
            }
        }
        let mut total = 0;
        for path in &files {
            let name = path.file_name().unwrap().to_str().unwrap();
            let alg = match name.split_once("ShortMsg").or(name.split_once("LongMsg")) {
                Some(("SHA1", _)) => Algorithm::Sha1,
                Some(("SHA224", _)) => Algorithm::Sha224,
                Some(("SHA256", _)) => Algorithm::Sha256,
                Some(("SHA384", _)) => Algorithm::Sha384,
                Some(("SHA512", _)) => Algorithm::Sha512,
                Some(("SHA512_224", _)) => Algorithm::Sha512_224,
                Some(("SHA512_256", _)) => Algorithm::Sha512_256,
                _ => panic!("unexpected SHAVS file {name}"),
            };
            let text = std::fs::read_to_string(path).unwrap();
            let mut count = 0;
            // The whole file again as one batch through the lanes (and every kernel forced).
            let mut batch: Vec<(Vec<u8>, String)> = Vec::new();
            let mut len_bits: Option<usize> = None;
            let mut msg: Option<Vec<u8>> = None;
            for line in text.lines().map(str::trim) {
                if let Some(v) = line.strip_prefix("[L = ") {
                    let l: usize = v.trim_end_matches(']').trim().parse().unwrap();
                    assert_eq!(l, alg.digest_len(), "{name}: {line}");
                } else if let Some(v) = line.strip_prefix("Len = ") {
                    len_bits = Some(v.parse().unwrap());
                } else if let Some(v) = line.strip_prefix("Msg = ") {
                    let bits = len_bits.expect("Len before Msg");
                    assert_eq!(bits % 8, 0, "{name}: bit-oriented vector");
                    // `Len = 0` is written `Msg = 00`: the message is the first Len/8 bytes.
                    let mut m = hex::decode(v).unwrap();
                    m.truncate(bits / 8);
                    assert_eq!(m.len() * 8, bits, "{name}: Msg shorter than Len");
                    msg = Some(m);
                } else if let Some(want) = line.strip_prefix("MD = ") {
                    let m = msg.take().expect("Msg before MD");
                    check(alg, &m, want, &format!("{name} Len = {}", m.len() * 8));
                    batch.push((m, want.to_string()));
                    count += 1;
                    len_bits = None;
                }
            }
            assert!(count > 0, "{name}: no vectors parsed");
            let msgs: Vec<&[u8]> = batch.iter().map(|(m, _)| &m[..]).collect();
            let mut runs = vec![("auto".to_string(), lanesum::hash_many(alg, &msgs))];
            runs.push(("par".to_string(), lanesum::hash_many_par(alg, &msgs)));
            for k in lanesum::diagnostics::kernels(alg) {
                let d = lanesum::diagnostics::hash_many_with(alg, k.name, &msgs).unwrap();
                runs.push((k.name.to_string(), d));
            }
            for (path_name, digests) in runs {
                for ((m, want), d) in batch.iter().zip(&digests) {
                    assert_eq!(
                        d.to_hex(),
                        want.to_lowercase(),
                        "{name} via {path_name}, Len = {}",
                        m.len() * 8
                    );
                }
            }
            total += count;
        }
        println!("NIST SHAVS: {total} vectors from {} files", files.len());
    });
}

/// Every unkeyed BLAKE2b and BLAKE2s vector of blake2-kat.json through `hash`.
#[test]
fn blake2_kat_unkeyed() {
    levels::each_level(|| {
        let dir = common::vectors();
        let text = std::fs::read_to_string(dir.join("blake2/blake2-kat.json")).unwrap();
        let kat: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut count = 0;
        for case in kat.as_array().unwrap() {
            if !case["key"].as_str().unwrap().is_empty() {
                continue;
            }
            let want = case["out"].as_str().unwrap();
            let alg = match case["hash"].as_str().unwrap() {
                "blake2b" => Algorithm::Blake2b((want.len() / 2) as u8),
                "blake2s" => Algorithm::Blake2s((want.len() / 2) as u8),
                _ => continue,
            };
            let msg = hex::decode(case["in"].as_str().unwrap()).unwrap();
            check(alg, &msg, want, &format!("{} bytes", msg.len()));
            count += 1;
        }
        assert_eq!(
            count, 512,
            "expected 256 unkeyed BLAKE2b and 256 BLAKE2s vectors"
        );
        println!("BLAKE2 KAT: {count} unkeyed vectors");
    });
}

/// Every `hash` vector of test_vectors.json at 32 bytes and at the full extended length.
#[test]
fn blake3_hash_vectors() {
    levels::each_level(|| {
        let dir = common::vectors();
        let text = std::fs::read_to_string(dir.join("blake3/test_vectors.json")).unwrap();
        let tv: serde_json::Value = serde_json::from_str(&text).unwrap();
        let cases = tv["cases"].as_array().unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let len = case["input_len"].as_u64().unwrap() as usize;
            let msg: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let want = case["hash"].as_str().unwrap();
            let what = format!("input_len {len}");
            check(Algorithm::Blake3(32), &msg, &want[..64], &what);
            check(Algorithm::Blake3(want.len() / 2), &msg, want, &what);
        }
        println!("BLAKE3: {} hash vectors x 2 lengths", cases.len());
    });
}
