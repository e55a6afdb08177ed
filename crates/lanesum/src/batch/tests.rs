//! `hash_many` against the streaming hasher: every kernel, length and lane position.

use super::lanes::{lanes_for, run_batch};
use super::*;
use crate::diagnostics::{hash_many_with, kernels};
use crate::family::{Family, Kernels};
use crate::hash;
use crate::md5::Md5;
use rand::{Rng, SeedableRng};

/// The portable single stream and `more` as a family's kernels.
fn portable_kernels(more: Vec<LaneKernel<u32>>) -> Kernels<Md5> {
    let single = Md5::single(Features::PORTABLE);
    let mut lanes = vec![single.kernel];
    lanes.extend(more);
    Kernels {
        single: single.compress,
        lanes,
        few: Vec::new(),
    }
}

/// MD5's kernels for a few long streams (scalar-x2 to x4), estimated at `per_lane` GB/s
/// a lane.
fn md5_few(per_lane: f32) -> Vec<LaneKernel<u32>> {
    let mut few = Md5::few_stream_kernels();
    for k in &mut few {
        k.est_gbps = per_lane * k.lanes as f32;
    }
    few
}

/// A portable 16-lane set (7 GB/s) and MD5's few-stream kernels at 0.6 GB/s a lane:
/// what 2 to 4 long streams start on.
fn lanes_and_few() -> Kernels<Md5> {
    let p16 = crate::testing::portable_lanes::<Md5>("p16", 16, 7.0);
    let mut kernels = portable_kernels(vec![p16]);
    kernels.few = md5_few(0.6);
    kernels
}

/// `n` random messages: all `len` bytes long if `equal`, else each of a length drawn
/// from `others`.
fn random_messages(
    rng: &mut impl Rng,
    n: usize,
    len: usize,
    equal: bool,
    others: std::ops::Range<usize>,
) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = if equal {
                len
            } else {
                rng.random_range(others.clone())
            };
            (0..len).map(|_| rng.random()).collect()
        })
        .collect()
}

/// A kernel of `few` starts a batch only of exactly its width, of messages that are all
/// long enough, and only where it is estimated faster than the scheduler's choice.
#[test]
fn few_stream_kernels_only_for_their_width_of_long_messages() {
    use crate::family::FEW_MIN_BLOCKS;
    use crate::schedule::best;
    use crate::testing::portable_lanes;
    let mut ks = portable_kernels(vec![portable_lanes::<Md5>("p16", 16, 7.0)]);
    for (gbps, offered) in [(0.75, true), (0.025, false)] {
        ks.few = md5_few(gbps);
        for n in 1..=6 {
            for blocks in [0, 1, FEW_MIN_BLOCKS - 1, FEW_MIN_BLOCKS, 10_000] {
                let k = ks.few_over(best(&ks.lanes, n), n, || blocks);
                let want = offered && (2..=4).contains(&n) && blocks >= FEW_MIN_BLOCKS;
                assert_eq!(
                    k.name.starts_with("scalar"),
                    want,
                    "{n} x {blocks} at {gbps}"
                );
                if want {
                    assert_eq!(k.lanes, n);
                }
            }
        }
    }
}

/// Batches that start on a kernel of `few`: equal and ragged long messages, so that the
/// scheduler narrows to the single stream when one is left, match the streaming hasher.
#[test]
fn batches_on_few_stream_kernels() {
    use crate::schedule::NARROWED;
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    let kernels = lanes_and_few();
    for n in 2..=4 {
        for equal in [true, false] {
            let len = rng.random_range(8192..20_000);
            let msgs = random_messages(&mut rng, n, len, equal, 8192..20_000);
            let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
            let total: usize = msgs.iter().map(|m| m.len()).sum();
            let start = super::lanes::few_or_lanes_for(&kernels, &refs, total).unwrap();
            assert!(start.name.starts_with("scalar"), "{n}: {}", start.name);
            let before = NARROWED.get();
            let got = run_batch::<Md5, _>(crate::md5::IV, 16, &refs, total, &kernels, start, false);
            for (m, d) in msgs.iter().zip(&got) {
                assert_eq!(*d, hash(Algorithm::Md5, m), "{n} equal {equal}");
            }
            // The last of unequal messages runs on its own (the portable single stream,
            // 0.8-0.9 GB/s, against a lane's 0.6).
            if !equal && msgs.iter().any(|m| m.len() / 64 != msgs[0].len() / 64) {
                assert!(NARROWED.get() > before, "{n}: no narrowing");
            }
        }
    }
}

/// `run_chunks` (what `update_many`, `StreamBatch` and the big files run) starts 2 to 4
/// long chunks on a kernel of `few`: chunks of a carried head and whole blocks, equal
/// and ragged, over several passes, match the streaming hasher.
#[test]
fn chunks_on_few_stream_kernels() {
    use crate::family::FEW_MIN_BLOCKS;
    use crate::merkle_damgard::MdHasher;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let kernels = lanes_and_few();
    for n in 2..=4 {
        for equal in [true, false] {
            let mut hs: Vec<MdHasher<Md5>> = (0..n)
                .map(|_| MdHasher::new(&crate::md5::IV, kernels.single))
                .collect();
            let mut whole: Vec<Vec<u8>> = vec![Vec::new(); n];
            for _ in 0..3 {
                let long = FEW_MIN_BLOCKS * 64 + 64..30_000;
                let len = rng.random_range(long.clone());
                let chunks = random_messages(&mut rng, n, len, equal, long);
                let mut work = Vec::new();
                for (i, (h, c)) in hs.iter_mut().zip(&chunks).enumerate() {
                    if let Some(split) = h.split_for_lanes(c) {
                        work.push((i, *h.state_mut(), split));
                    }
                }
                crate::schedule::run_chunks(&kernels, work, |i, s| *hs[i].state_mut() = *s);
                for (w, c) in whole.iter_mut().zip(&chunks) {
                    w.extend_from_slice(c);
                }
            }
            for (h, w) in hs.into_iter().zip(&whole) {
                assert_eq!(h.finalize(16), hash(Algorithm::Md5, w), "{n} equal {equal}");
            }
        }
    }
}

fn check(alg: Algorithm, kernel: Option<&str>, msgs: &[Vec<u8>]) {
    let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
    let got = match kernel {
        Some(k) => hash_many_with(alg, k, &refs).unwrap(),
        None => hash_many(alg, &refs),
    };
    let mut flat = vec![0u8; msgs.len() * alg.digest_len()];
    if kernel.is_none() {
        hash_many_into(alg, &refs, &mut flat);
    }
    for (i, m) in msgs.iter().enumerate() {
        let mut s = crate::Hasher::new(alg);
        s.update(m);
        let want = s.finalize();
        let (kernel, len) = (kernel, m.len());
        assert_eq!(got[i], want, "{alg} kernel {kernel:?} msg {i} len {len}");
        if kernel.is_none() {
            let size = alg.digest_len();
            let into = &flat[i * size..][..size];
            assert_eq!(
                into,
                want.as_bytes(),
                "{alg} hash_many_into msg {i} len {len}"
            );
        }
    }
}

/// `hash_many_into` of every algorithm, laned or not: the same bytes as `hash`.
#[test]
fn hash_many_into_every_algorithm() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let msgs: Vec<Vec<u8>> = (0..90)
        .map(|i| {
            let len = if i < 40 {
                64
            } else {
                rng.random_range(0..2000)
            };
            (0..len).map(|_| rng.random()).collect()
        })
        .collect();
    for &alg in Algorithm::ALL {
        let mut out = vec![0u8; msgs.len() * alg.digest_len()];
        hash_many_into(alg, &msgs, &mut out);
        for (m, d) in msgs.iter().zip(out.chunks_exact(alg.digest_len())) {
            assert_eq!(d, hash(alg, m).as_bytes(), "{alg}");
        }
    }
}

#[test]
#[should_panic(expected = "out must hold 2 digests of 16 bytes")]
fn hash_many_into_wants_room_for_every_digest() {
    hash_many_into(Algorithm::Md5, &[b"a", b"b"], &mut [0u8; 31]);
}

/// Every length 0..=300 in every lane position of every kernel: one batch per `r` of
/// exactly `lanes` messages (forced kernels keep submission order, so message `p` runs
/// in lane `p`), lane `p` getting length `(r + 37 p) mod 301`: each lane sees every
/// length while its neighbours end at other times. (Lanes of one shape, and every
/// batch of a one-lane kernel, run as a wave: see `waves_of_one_shape`.)
#[test]
fn every_length_in_every_lane_position() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let pool: Vec<u8> = (0..400).map(|_| rng.random()).collect();
        for &alg in Algorithm::LANED {
            for k in kernels(alg) {
                for r in 0..=300usize {
                    let msgs: Vec<Vec<u8>> = (0..k.lanes)
                        .map(|p| {
                            let len = (r + 37 * p) % 301;
                            let off = (r + p) % 97;
                            pool[off..off + len].to_vec()
                        })
                        .collect();
                    check(alg, Some(k.name), &msgs);
                }
            }
        }
    });
}

/// Long messages at the same offset in their 4 KiB pages, which the scheduler starts
/// a few blocks apart (`Lanes::stagger`): every kernel, one batch of exactly its lanes
/// and one with refills, some lanes aliased and some not, ragged lengths.
#[test]
fn page_aligned_long_messages_start_apart() {
    crate::testing::each_level(|| {
        const PAGE: usize = 4096;
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let stride = 164 * 1024;
        for alg in FAMILIES {
            for k in kernels(alg) {
                let before = crate::schedule::STAGGERED.get();
                for count in [k.lanes, k.lanes + 3] {
                    let buf: Vec<u8> = (0..count * stride + 2 * PAGE)
                        .map(|_| rng.random())
                        .collect();
                    let base = buf.as_ptr().align_offset(PAGE);
                    let msgs: Vec<&[u8]> = (0..count)
                        .map(|i| {
                            let skew = if i % 4 == 3 {
                                64 * rng.random_range(0..64)
                            } else {
                                0
                            };
                            let len = rng.random_range(130 * 1024..160 * 1024);
                            &buf[base + i * stride + skew..][..len]
                        })
                        .collect();
                    let got = hash_many_with(alg, k.name, &msgs).unwrap();
                    for (i, m) in msgs.iter().enumerate() {
                        assert_eq!(got[i], hash(alg, m), "{alg} {} msg {i} of {count}", k.name);
                    }
                }
                if k.lanes >= 8 {
                    assert!(
                        crate::schedule::STAGGERED.get() > before,
                        "{alg} {}",
                        k.name
                    );
                }
            }
        }
    });
}

/// The scheduler with wide portable kernels: lane refill, in-lane padding and the
/// switch to narrower kernels as the queue drains, on any CPU.
#[test]
fn scheduler_with_portable_lanes() {
    use crate::testing::portable_lanes;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let kernels = portable_kernels(vec![
        portable_lanes::<Md5>("p4", 4, 2.0),
        portable_lanes::<Md5>("p16", 16, 7.0),
        portable_lanes::<Md5>("p64", 64, 19.0),
    ]);
    let ks = &kernels.lanes;
    // Random lengths, and equal ones: whole waves, then the scheduler for the rest;
    // long enough for the balanced tail (over 64 blocks), the last wave joins them.
    let counts = [0usize, 1, 2, 3, 5, 15, 16, 17, 33, 63, 64, 65, 200];
    let before = crate::waves::WAVES.get();
    for (count, equal) in counts.into_iter().flat_map(|c| [(c, false), (c, true)]) {
        let len = rng.random_range(if count % 2 == 0 { 0..2000 } else { 8192..8256 });
        let msgs = random_messages(&mut rng, count, len, equal, 0..2000);
        let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        let total: usize = msgs.iter().map(|m| m.len()).sum();
        for forced in [None, Some("p4"), Some("p64")] {
            let start = match forced {
                Some(name) => *ks.iter().find(|k| k.name == name).unwrap(),
                None => lanes_for::<Md5>(ks, count, total).unwrap_or(ks[0]),
            };
            let got = run_batch::<Md5, _>(
                crate::md5::IV,
                16,
                &refs,
                total,
                &kernels,
                start,
                forced.is_some(),
            );
            for (m, d) in msgs.iter().zip(&got) {
                assert_eq!(
                    *d,
                    hash(Algorithm::Md5, m),
                    "count {count} equal {equal} forced {forced:?}"
                );
            }
        }
    }
    assert!(crate::waves::WAVES.get() > before);
}

/// Fewer messages than the lanes, of one shape, run as one partial wave (spare lanes
/// repeating a message); of several shapes, through the scheduler.
#[test]
fn a_short_remainder_runs_as_a_partial_wave() {
    use crate::testing::portable_lanes;
    use crate::waves::WAVES;
    let kernels = portable_kernels(vec![portable_lanes::<Md5>("p16", 16, 7.0)]);
    let pool: Vec<u8> = (0..4000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    for lens in [
        [100; 5],
        [0; 5],
        [64; 5],
        [1000, 1000, 999, 998, 960],
        [9, 9, 9, 9, 200],
    ] {
        let msgs: Vec<&[u8]> = lens
            .iter()
            .enumerate()
            .map(|(i, &l)| &pool[i * 7..][..l])
            .collect();
        let total = lens.iter().sum();
        let before = WAVES.get();
        let got = run_batch::<Md5, _>(
            crate::md5::IV,
            16,
            &msgs,
            total,
            &kernels,
            kernels.lanes[1],
            false,
        );
        let one_shape = lens
            .iter()
            .all(|&l| l / 64 == lens[0] / 64 && (l % 64 < 56) == (lens[0] % 64 < 56));
        assert_eq!(WAVES.get() - before, usize::from(one_shape), "{lens:?}");
        for (m, d) in msgs.iter().zip(&got) {
            assert_eq!(*d, hash(Algorithm::Md5, m), "{lens:?}");
        }
    }
}

/// A narrow kernel that gains little over the single-stream path (SHA-NI x4 on an
/// Intel Xeon: 1.2x) still takes a few long messages more than its width: the
/// balanced tail keeps its lanes full. Rated as two waves, half empty, 5 x 16 KiB
/// SHA-256 went one at a time at 2.0 GB/s instead of 2.4 on SHA-NI x4.
#[test]
fn few_long_messages_past_a_narrow_kernel_stay_in_lanes() {
    use crate::testing::portable_lanes;
    let single = Md5::single(Features::PORTABLE).kernel;
    let ks = vec![
        single,
        portable_lanes::<Md5>("p4", 4, 1.22 * single.est_gbps),
    ];
    for count in 5..=7 {
        let start = lanes_for::<Md5>(&ks, count, count * 16 * 1024);
        assert_eq!(start.map(|k| k.name), Some("p4"), "{count} messages");
    }
    // Short ones are still done one at a time where the lanes' fixed cost dominates.
    assert!(lanes_for::<Md5>(&ks, 2, 128).is_none());
}

/// One algorithm of each Merkle–Damgård family with lane kernels.
const FAMILIES: [Algorithm; 4] = [
    Algorithm::Md5,
    Algorithm::Sha256,
    Algorithm::Sha512,
    Algorithm::Sha1,
];

/// Counts just past a kernel's width with long messages: the scheduler's balanced
/// tail (split jobs, lanes switching jobs inside a call) on the real kernels of this
/// CPU.
#[test]
fn long_messages_past_a_kernel_width() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(21);
        for alg in FAMILIES {
            for count in [9, 17, 33, 40] {
                let msgs: Vec<Vec<u8>> = (0..count)
                    .map(|_| {
                        (0..rng.random_range(16_384..20_000))
                            .map(|_| rng.random())
                            .collect()
                    })
                    .collect();
                check(alg, None, &msgs);
            }
        }
    });
}

/// Whole waves (`waves.rs`) on every kernel: each length 0..=300 in every lane, the
/// lanes' contents differing; lanes of one shape but different lengths; and one
/// message more than the lanes (a wave, then the scheduler).
#[test]
fn waves_of_one_shape() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        let pool: Vec<u8> = (0..800).map(|_| rng.random()).collect();
        for &alg in Algorithm::LANED {
            let block = alg.block_len();
            for k in kernels(alg) {
                for len in 0..=300usize {
                    // Tails with as many padded blocks as `len`'s: one while the
                    // length field (an eighth of a block) still fits.
                    let (tail, fits) = (len % block, block - block / 8);
                    let room = if tail < fits { 0..fits } else { fits..block };
                    for (count, same) in [(k.lanes, true), (k.lanes, false), (k.lanes + 1, true)] {
                        let before = crate::waves::WAVES.get();
                        let msgs: Vec<Vec<u8>> = (0..count)
                            .map(|p| {
                                let len = if same {
                                    len
                                } else {
                                    len - tail + rng.random_range(room.clone())
                                };
                                let off = (len + 3 * p) % 397;
                                pool[off..off + len].to_vec()
                            })
                            .collect();
                        check(alg, Some(k.name), &msgs);
                        let waves = crate::waves::WAVES.get() - before;
                        assert_eq!(waves, count / k.lanes, "{alg} {} len {len}", k.name);
                    }
                }
            }
        }
    });
}

/// Equal messages, and two groups of equal messages, at every count to 70 on the auto
/// path: whole waves, then the scheduler for what is left (past a multiple of the
/// lanes, long ones hand their last wave over too); lengths around the one-block
/// padding limit and the longest waved message.
#[test]
fn equal_messages_every_count_auto() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let pool: Vec<u8> = (0..(8500 + 70 * 31)).map(|_| rng.random()).collect();
        for alg in FAMILIES {
            for len in [0, 55, 56, 64, 1000, 4097, 8195, 8300] {
                for count in 1..=70 {
                    for mixed in [false, true] {
                        let msgs: Vec<Vec<u8>> = (0..count)
                            .map(|i| {
                                let len = if mixed && i % 2 == 1 { len + 200 } else { len };
                                pool[i * 31..][..len].to_vec()
                            })
                            .collect();
                        check(alg, None, &msgs);
                    }
                }
            }
        }
    });
}

#[test]
fn every_message_count_auto() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for alg in FAMILIES {
            for count in 0..=130 {
                let msgs: Vec<Vec<u8>> = (0..count)
                    .map(|_| {
                        (0..rng.random_range(0..3000))
                            .map(|_| rng.random())
                            .collect()
                    })
                    .collect();
                check(alg, None, &msgs);
            }
        }
    });
}

#[test]
fn large_random_messages_par() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let msgs: Vec<Vec<u8>> = (0..40)
            .map(|_| {
                (0..rng.random_range(0..(3 << 20)))
                    .map(|_| rng.random())
                    .collect()
            })
            .collect();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        for alg in Algorithm::LANED
            .iter()
            .copied()
            .chain([Algorithm::Blake2b(64), Algorithm::Blake3(32)])
        {
            let got = hash_many_par(alg, &refs);
            for (m, d) in msgs.iter().zip(&got) {
                assert_eq!(*d, hash(alg, m), "{alg}");
            }
        }
    });
}
