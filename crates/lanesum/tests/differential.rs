//! Differential tests: lanesum against independent reference crates (RustCrypto md-5, sha1,
//! sha2, blake2; the blake3 crate; `crc` and `twox-hash` for the CRCs and xxHash; `sha3`,
//! `shake` and `sm3`, which lanesum's lanes are checked against) on every short length, on multi-MiB random lengths
//! streamed in random pieces, and on a proptest property.
//!
//! Runs under whatever `LANESUM_ISA` level CI forces; nothing here assumes one. Random
//! inputs come from one seed, printed (and in every failure message): rerun a failure with
//! `LANESUM_TEST_SEED=<seed>`.

mod levels;
mod reference;

use std::io::Write as _;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

use lanesum::{hash, Algorithm, Hasher};
use reference::reference;

/// Every default algorithm plus non-default output lengths (including a BLAKE3 output
/// longer than the 64 bytes a `Digest` keeps inline).
fn algorithms() -> Vec<Algorithm> {
    let mut v = Algorithm::ALL.to_vec();
    v.extend([
        Algorithm::Blake2b(1),
        Algorithm::Blake2b(20),
        Algorithm::Blake2b(32),
        Algorithm::Blake2b(48),
        Algorithm::Blake2s(1),
        Algorithm::Blake2s(16),
        Algorithm::Blake2s(28),
        Algorithm::Blake3(1),
        Algorithm::Blake3(64),
        Algorithm::Blake3(200),
        Algorithm::Shake128(1),
        Algorithm::Shake128(200),
        Algorithm::Shake256(64),
        Algorithm::Shake256(300),
    ]);
    v
}

/// The seed for this run: `LANESUM_TEST_SEED` or fresh, printed either way.
fn seed(test: &str) -> u64 {
    let seed = match std::env::var("LANESUM_TEST_SEED") {
        Ok(s) => s.trim().parse().expect("LANESUM_TEST_SEED must be a u64"),
        Err(_) => rand::random(),
    };
    println!("{test}: LANESUM_TEST_SEED={seed}");
    seed
}

fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// A random piece size: often empty or tiny, sometimes around block sizes, sometimes large
/// (BLAKE3 hands updates of 256 KiB and more to rayon, a separate path).
fn piece_len(rng: &mut StdRng, max_large: usize) -> usize {
    match rng.random_range(0..10) {
        0 => 0,
        1..=4 => rng.random_range(1..=130),
        5..=7 => rng.random_range(1..=8192),
        _ => rng.random_range(1..=max_large.max(1)),
    }
}

/// `data` through a `Hasher` in random pieces, via `update` or `io::Write`; at a random
/// point a clone is taken, and the state saved and resumed in a new hasher
/// (`md_state`, for the algorithms that have one): each must finish to the same digest.
fn streamed(alg: Algorithm, data: &[u8], rng: &mut StdRng, max_large: usize) -> Vec<u8> {
    let mut h = Hasher::new(alg);
    let mut rest = data;
    let clone_after = rng.random_range(0..=data.len());
    // (hasher clone, the same resumed from its saved state, bytes they had absorbed)
    let mut clone: Option<(Hasher, Option<Hasher>, usize)> = None;
    loop {
        let done = data.len() - rest.len();
        if clone.is_none() && done >= clone_after {
            let resumed = h
                .md_state()
                .map(|s| Hasher::from_md_state(alg, &s).unwrap_or_else(|| panic!("{alg}: {s:?}")));
            clone = Some((h.clone(), resumed, done));
        }
        if rest.is_empty() {
            break;
        }
        let n = piece_len(rng, max_large).min(rest.len());
        let (piece, tail) = rest.split_at(n);
        if rng.random_bool(0.5) {
            h.update(piece);
        } else {
            h.write_all(piece).unwrap();
        }
        rest = tail;
    }
    let digest = h.finalize().as_bytes().to_vec();
    let (clone, resumed, clone_at) = clone.expect("clone taken");
    for mut h in std::iter::once(clone).chain(resumed) {
        h.update(&data[clone_at..]);
        assert_eq!(
            h.finalize().as_bytes(),
            &digest[..],
            "{alg}: clone or resumed state at {clone_at} of {} diverged",
            data.len()
        );
    }
    digest
}

/// Saved states: which algorithms have one, and states that are refused.
#[test]
fn md_states_and_refusals() {
    use lanesum::MdState;
    for alg in algorithms() {
        let mut h = Hasher::new(alg);
        h.update(&[7; 200]);
        let md = matches!(
            alg,
            Algorithm::Md5
                | Algorithm::Sha1
                | Algorithm::Sha224
                | Algorithm::Sha256
                | Algorithm::Sha384
                | Algorithm::Sha512
                | Algorithm::Sha512_224
                | Algorithm::Sha512_256
                | Algorithm::Sm3
        );
        assert_eq!(h.md_state().is_some(), md, "{alg}");
        let Some(s) = h.md_state() else {
            let sha = Hasher::new(Algorithm::Sha256).md_state().unwrap();
            assert!(Hasher::from_md_state(alg, &sha).is_none(), "{alg}");
            continue;
        };
        assert_eq!(s.total, 200);
        assert_eq!(s.pending, vec![7; 200 % alg.block_len()], "{alg}");
        let bad = [
            MdState {
                words: s.words[1..].to_vec(),
                ..s.clone()
            },
            MdState {
                total: s.total + 1,
                ..s.clone()
            },
            MdState {
                pending: vec![],
                ..s.clone()
            },
        ];
        for b in bad {
            assert!(Hasher::from_md_state(alg, &b).is_none(), "{alg}: {b:?}");
        }
    }
    let mut wide = Hasher::new(Algorithm::Md5).md_state().unwrap();
    wide.words[0] = 1 << 32;
    assert!(Hasher::from_md_state(Algorithm::Md5, &wide).is_none());
}

/// Every message length 0..=1024, one-shot and streamed, for every algorithm.
#[test]
fn every_length_up_to_1024() {
    levels::each_level(|| {
        let seed = seed("every_length_up_to_1024");
        let mut rng = StdRng::seed_from_u64(seed);
        let data = random_bytes(&mut rng, 1024);
        let mut count = 0;
        for alg in algorithms() {
            for len in 0..=1024 {
                let msg = &data[..len];
                let want = reference(alg, msg);
                assert_eq!(want.len(), alg.digest_len());
                assert_eq!(
                    hash(alg, msg).as_bytes(),
                    &want[..],
                    "{alg} one-shot, len {len}, seed {seed}"
                );
                assert_eq!(
                    streamed(alg, msg, &mut rng, 300),
                    want,
                    "{alg} streamed, len {len}, seed {seed}"
                );
                count += 1;
            }
        }
        println!("{count} (algorithm, length) pairs");
    });
}

/// Random lengths up to 6 MiB fed in random pieces; `picks` lengths per algorithm.
fn large_random_lengths(algs: &[Algorithm], picks: usize, name: &str) {
    const MAX: usize = 6 << 20;
    let seed = seed(name);
    let mut rng = StdRng::seed_from_u64(seed);
    let data = random_bytes(&mut rng, MAX);
    for &alg in algs {
        for _ in 0..picks {
            let len = rng.random_range(0..=MAX);
            let msg = &data[..len];
            let want = reference(alg, msg);
            assert_eq!(
                hash(alg, msg).as_bytes(),
                &want[..],
                "{alg} one-shot, len {len}, seed {seed}"
            );
            assert_eq!(
                streamed(alg, msg, &mut rng, 1 << 20),
                want,
                "{alg} streamed, len {len}, seed {seed}"
            );
        }
    }
}

// Split so the test harness can run them on separate threads.

#[test]
fn large_md5_sha1() {
    levels::each_level(|| {
        large_random_lengths(&[Algorithm::Md5, Algorithm::Sha1], 20, "large_md5_sha1");
    });
}

#[test]
fn large_sha256_family() {
    levels::each_level(|| {
        large_random_lengths(
            &[Algorithm::Sha224, Algorithm::Sha256],
            20,
            "large_sha256_family",
        );
    });
}

#[test]
fn large_sha512_family() {
    levels::each_level(|| {
        large_random_lengths(
            &[
                Algorithm::Sha384,
                Algorithm::Sha512,
                Algorithm::Sha512_224,
                Algorithm::Sha512_256,
            ],
            20,
            "large_sha512_family",
        );
    });
}

#[test]
fn large_blake() {
    levels::each_level(|| {
        large_random_lengths(
            &[
                Algorithm::Blake2b(64),
                Algorithm::Blake2s(32),
                Algorithm::Blake3(32),
            ],
            20,
            "large_blake",
        );
        // The output length only changes parameters and finalisation: a few lengths suffice.
        large_random_lengths(
            &[
                Algorithm::Blake2b(20),
                Algorithm::Blake2s(16),
                Algorithm::Blake3(200),
            ],
            3,
            "large_blake_other_lengths",
        );
    });
}

#[test]
fn large_checksums_sha3_sm3() {
    levels::each_level(|| {
        large_random_lengths(
            &[
                Algorithm::Crc32,
                Algorithm::Crc32c,
                Algorithm::Crc64Nvme,
                Algorithm::Crc,
                Algorithm::SumSysv,
                Algorithm::Xxh64,
                Algorithm::Xxh3,
                Algorithm::Xxh128,
            ],
            6,
            "large_checksums",
        );
        large_random_lengths(
            &[Algorithm::Sha3_256, Algorithm::Shake128(16), Algorithm::Sm3],
            3,
            "large_sha3_sm3",
        );
    });
}

proptest! {
    // No regression file: integration tests have no lib.rs for proptest to sit beside;
    // a failure prints the minimal case, which is the reproducer.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Any message cut at any points, through any algorithm, matches the reference.
    #[test]
    fn prop_pieces_match_reference(
        alg_index in 0..algorithms().len(),
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        mut cuts in proptest::collection::vec(0usize..3000, 0..8),
    ) {
        let alg = algorithms()[alg_index];
        cuts.iter_mut().for_each(|c| *c = (*c).min(data.len()));
        cuts.sort_unstable();
        let mut h = Hasher::new(alg);
        let mut start = 0;
        for &cut in cuts.iter().chain([&data.len()]) {
            h.update(&data[start..cut]);
            start = cut;
        }
        let want = reference(alg, &data);
        prop_assert_eq!(h.finalize().as_bytes().to_vec(), want.clone());
        prop_assert_eq!(hash(alg, &data).as_bytes().to_vec(), want);
    }
}
