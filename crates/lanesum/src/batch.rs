//! `hash_many`: many whole messages through the SIMD lanes.
//!
//! Messages are taken longest first. Short ones of one shape fill waves of lanes
//! (`waves`); the scheduler takes the rest and keeps every lane busy: a lane whose
//! message ends takes the next one at once, padding is done in-lane from a small per-lane
//! tail buffer, and once the queue is empty it moves the remaining messages to whichever
//! kernel is fastest for that many (down to SHA-NI or scalar single-stream). Too few
//! messages for any lanes to pay go one at a time.

use std::sync::OnceLock;

use crate::isa::{self, Features};
use crate::lanes::LaneKernel;
use crate::md5::Md5;
use crate::merkle_damgard::{self, digest_of, Family, Start};
use crate::schedule::{self, best_for, Job};
use crate::sha1::Sha1;
use crate::sha256::Sha256;
use crate::sha512::Sha512;
use crate::waves;
use crate::{hash, Algorithm, Digest};

/// The digests of `msgs` under `alg`, in order, using the best kernels of this CPU.
///
/// ```
/// use lanesum::{hash, hash_many, Algorithm};
/// let msgs: Vec<Vec<u8>> = (0..100).map(|i| vec![i as u8; i * 37]).collect();
/// let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
/// let digests = hash_many(Algorithm::Sha256, &refs);
/// assert_eq!(digests[42], hash(Algorithm::Sha256, &msgs[42]));
/// ```
pub fn hash_many(alg: Algorithm, msgs: &[&[u8]]) -> Vec<Digest> {
    run(alg, msgs, isa::active(), None).expect("auto kernel choice always exists")
}

/// Like [`hash_many`], spreading the messages over all rayon threads.
pub fn hash_many_par(alg: Algorithm, msgs: &[&[u8]]) -> Vec<Digest> {
    use rayon::prelude::*;
    // Small batches never touch the thread pool (its first use starts its threads).
    let total: usize = msgs.iter().map(|m| m.len()).sum();
    if msgs.len() < 2 || total < 1 << 20 || rayon::current_num_threads() <= 1 {
        return hash_many(alg, msgs);
    }
    let threads = rayon::current_num_threads();
    // Longest first, dealt round-robin: each group gets a similar byte count and a
    // similar spread of lengths, so each fills its lanes alike.
    let mut order: Vec<usize> = (0..msgs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(msgs[i].len()));
    let groups: Vec<Vec<usize>> = (0..threads)
        .map(|g| order.iter().skip(g).step_by(threads).copied().collect())
        .collect();
    let results: Vec<Vec<Digest>> = groups
        .par_iter()
        .map(|g| {
            let sub: Vec<&[u8]> = g.iter().map(|&i| msgs[i]).collect();
            hash_many(alg, &sub)
        })
        .collect();
    let mut out: Vec<Option<Digest>> = vec![None; msgs.len()];
    for (g, ds) in groups.iter().zip(results) {
        for (&i, d) in g.iter().zip(ds) {
            out[i] = Some(d);
        }
    }
    out.into_iter()
        .map(|d| d.expect("every message hashed"))
        .collect()
}

/// A compression path `hash_many_with` can be forced onto: its name and lane count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: &'static str,
    pub lanes: usize,
}

/// The kernels available for `alg` on this CPU under the active `LANESUM_ISA` level.
pub fn kernels(alg: Algorithm) -> Vec<KernelInfo> {
    fn infos<W: Copy>(ks: Vec<LaneKernel<W>>) -> Vec<KernelInfo> {
        ks.iter()
            .map(|k| KernelInfo {
                name: k.name,
                lanes: k.lanes,
            })
            .collect()
    }
    let f = isa::active();
    match merkle_damgard::start(alg) {
        Some(Start::Md5(_)) => infos(merkle_damgard::kernels::<Md5>(f)),
        Some(Start::Sha1(_)) => infos(merkle_damgard::kernels::<Sha1>(f)),
        Some(Start::Sha256(_)) => infos(merkle_damgard::kernels::<Sha256>(f)),
        Some(Start::Sha512(_)) => infos(merkle_damgard::kernels::<Sha512>(f)),
        None => {
            let mut v = vec![KernelInfo {
                name: "x1",
                lanes: 1,
            }];
            if let Algorithm::Blake3(_) = alg {
                // Chunks of different small messages share SIMD lanes (blake3/many.rs).
                v.push(KernelInfo {
                    name: "lanes",
                    lanes: if f.avx512 { 16 } else { 8 },
                });
            }
            v
        }
    }
}

/// [`hash_many`] forced onto one kernel (by [`KernelInfo::name`]) for every message, for
/// benchmarks and tests. `None` if `alg` has no such kernel here.
pub fn hash_many_with(alg: Algorithm, kernel: &str, msgs: &[&[u8]]) -> Option<Vec<Digest>> {
    run(alg, msgs, isa::active(), Some(kernel))
}

/// Whole messages (`total` bytes) through the lanes, starting on `start`, longest first
/// (the end of the batch, where lanes run empty, then holds short messages): short ones
/// of one shape in whole waves, the rest through the scheduler, or as one partial wave
/// if they fit one and share a shape, or one at a time if they are too few for lanes to
/// pay. A forced kernel keeps submission order so tests can place messages in lanes,
/// and runs everything, its remainder through the scheduler.
fn run_batch<F: Family>(
    iv: F::State,
    out_len: usize,
    msgs: &[&[u8]],
    total: usize,
    kernels: &[LaneKernel<F::Word>],
    start: LaneKernel<F::Word>,
    forced: bool,
) -> Vec<Digest> {
    let n = msgs.len();
    let mut order: Vec<usize> = (0..n).collect();
    // Longest first (a check is cheaper than the sort for the common equal lengths).
    if !forced && !msgs.is_sorted_by(|a, b| a.len() >= b.len()) {
        order.sort_by_key(|&i| std::cmp::Reverse(msgs[i].len()));
    }
    let mut out: Vec<Option<Digest>> = vec![None; n];
    let mut done = |i: usize, state: &F::State| {
        debug_assert!(out[i].is_none(), "message {i} hashed twice");
        out[i] = Some(digest_of::<F>(state, out_len));
    };
    // Whole waves only; and past a multiple of the lanes, long messages leave their last
    // wave to the scheduler with the rest, whose balanced tail spreads them over the lanes.
    let extra = n % start.lanes;
    let plan = !forced && blocks_each::<F>(total, n) >= schedule::plan_min_blocks(&start);
    let waved = if plan && extra > 0 {
        n.saturating_sub(start.lanes + extra)
    } else {
        n - extra
    };
    let rest = match waves::run::<F>(&start, iv, msgs, &order[..waved], false, &mut done) {
        None => order,
        Some(mut rest) => {
            rest.extend_from_slice(&order[waved..]);
            rest
        }
    };
    let start = if forced || rest.len() == n {
        Some(start)
    } else if rest.is_empty() {
        None
    } else {
        let total = rest.iter().map(|&i| msgs[i].len()).sum();
        lanes_for::<F>(kernels, rest.len(), total)
    };
    let job = |i: usize| (i, Job::message(iv, msgs[i]));
    match start {
        Some(k) => {
            // What fits one call of its kernel, of one shape, runs as one partial wave.
            let rest = if !forced && rest.len() <= k.lanes {
                waves::run::<F>(&k, iv, msgs, &rest, true, &mut done).unwrap_or(rest)
            } else {
                rest
            };
            if !rest.is_empty() {
                schedule::run::<F>(kernels, k, !forced, rest.into_iter().map(job), &mut done);
            }
        }
        None => rest
            .into_iter()
            .map(job)
            .for_each(|(i, j)| done(i, &j.run_single())),
    }
    out.into_iter()
        .map(|d| d.expect("every message finished"))
        .collect()
}

/// The kernel `n` messages of `total` bytes start on, or `None` if they are done sooner
/// one at a time.
fn lanes_for<F: Family>(
    kernels: &[LaneKernel<F::Word>],
    n: usize,
    total: usize,
) -> Option<LaneKernel<F::Word>> {
    let (start, rate) = best_for(kernels, n, blocks_each::<F>(total, n), F::BLOCK);
    (start.lanes > 1 && !single_is_faster(kernels, &start, rate, n, total)).then_some(start)
}

/// Whole blocks of `n` messages of `total` bytes, on average.
fn blocks_each<F: Family>(total: usize, n: usize) -> usize {
    total / n.max(1) / F::BLOCK
}

/// Fixed costs in nanoseconds of a batch through the lanes: per call, per lane of the
/// kernel (lane layout, padding buffers, state in and out) and per message; and of one
/// message on the single-stream path. Fitted on an Intel Xeon (16 x 64 B MD5 on 16 lanes:
/// 0.61 us, 0.15 of it hashing; 2 x 1 KiB SHA-1 on SHA-NI x2: 0.86 us, 0.73 hashing; one
/// 1 KiB SHA-1 message alone 0.54 us, 0.45 hashing); Zen 5 measured 0.73 us for the first
/// (0.28 hashing), within 10% of the fit.
const BATCH_NS: f32 = 120.0;
const LANE_NS: f32 = 10.0;
const MESSAGE_NS: f32 = 15.0;
const SINGLE_NS: f32 = 70.0;

/// Whether `n` messages of `total` bytes are done sooner one at a time than through
/// kernel `k` at `rate` GB/s (as [`best_for`] rates its choice: with the balanced tail for
/// long messages, so 5 long SHA-256 messages on SHA-NI x4 are not rated as two waves).
/// The lanes' rates hold for long messages; a few short ones pay the fixed costs above,
/// which a narrow kernel keeps small (2 x 1 KiB SHA-1: SHA-NI x2 2.38 GB/s, one at a time
/// 1.96), while two 64-byte MD5 messages took as long through 16 lanes as one after the
/// other.
fn single_is_faster<W: Copy>(
    kernels: &[LaneKernel<W>],
    k: &LaneKernel<W>,
    rate: f32,
    n: usize,
    total: usize,
) -> bool {
    let Some(one) = kernels.iter().find(|k| k.lanes == 1) else {
        return false;
    };
    // GB/s is bytes per nanosecond.
    let single = n as f32 * SINGLE_NS + total as f32 / one.est_gbps;
    let fixed = BATCH_NS + LANE_NS * k.lanes as f32 + MESSAGE_NS * n as f32;
    let lanes = fixed + total as f32 / rate;
    single < lanes
}

fn run(alg: Algorithm, msgs: &[&[u8]], f: Features, forced: Option<&str>) -> Option<Vec<Digest>> {
    /// The kernel list of one family under the process's features, built once.
    type Cache<W> = OnceLock<Vec<LaneKernel<W>>>;
    static MD5: Cache<u32> = OnceLock::new();
    static SHA1: Cache<u32> = OnceLock::new();
    static SHA256: Cache<u32> = OnceLock::new();
    static SHA512: Cache<u64> = OnceLock::new();

    fn go<F: Family>(
        cache: &'static Cache<F::Word>,
        alg: Algorithm,
        iv: F::State,
        msgs: &[&[u8]],
        f: Features,
        forced: Option<&str>,
    ) -> Option<Vec<Digest>> {
        let built;
        let kernels: &[LaneKernel<F::Word>] = if f == isa::active() {
            cache.get_or_init(|| merkle_damgard::kernels::<F>(f))
        } else {
            built = merkle_damgard::kernels::<F>(f);
            &built
        };
        let total: usize = msgs.iter().map(|m| m.len()).sum();
        let start = match forced {
            Some(name) => *kernels.iter().find(|k| k.name == name)?,
            None => match lanes_for::<F>(kernels, msgs.len(), total) {
                Some(k) => k,
                // Too few messages for any multi-lane kernel to win: skip the lane
                // bookkeeping so a lone message costs what the single-stream path costs.
                None => return Some(msgs.iter().map(|m| hash(alg, m)).collect()),
            },
        };
        let forced = forced.is_some();
        Some(run_batch::<F>(
            iv,
            alg.digest_len(),
            msgs,
            total,
            kernels,
            start,
            forced,
        ))
    }
    match merkle_damgard::start(alg) {
        Some(Start::Md5(iv)) => return go::<Md5>(&MD5, alg, iv, msgs, f, forced),
        Some(Start::Sha1(iv)) => return go::<Sha1>(&SHA1, alg, iv, msgs, f, forced),
        Some(Start::Sha256(iv)) => return go::<Sha256>(&SHA256, alg, iv, msgs, f, forced),
        Some(Start::Sha512(iv)) => return go::<Sha512>(&SHA512, alg, iv, msgs, f, forced),
        None => {}
    }
    match alg {
        Algorithm::Blake3(n) => match forced {
            None | Some("lanes") => Some(crate::blake3::many::hash_many(msgs, n, f)),
            Some("x1") => Some(msgs.iter().map(|m| hash(alg, m)).collect()),
            Some(_) => None,
        },
        _ => match forced {
            Some(k) if k != "x1" => None,
            _ => Some(msgs.iter().map(|m| hash(alg, m)).collect()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn check(alg: Algorithm, kernel: Option<&str>, msgs: &[Vec<u8>]) {
        let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        let got = match kernel {
            Some(k) => hash_many_with(alg, k, &refs).unwrap(),
            None => hash_many(alg, &refs),
        };
        for (i, m) in msgs.iter().enumerate() {
            let mut s = crate::Hasher::new(alg);
            s.update(m);
            assert_eq!(
                got[i],
                s.finalize(),
                "{alg} kernel {kernel:?} msg {i} len {}",
                m.len()
            );
        }
    }

    /// Every length 0..=300 in every lane position of every kernel: one batch per `r` of
    /// exactly `lanes` messages (forced kernels keep submission order, so message `p` runs
    /// in lane `p`), lane `p` getting length `(r + 37 p) mod 301`: each lane sees every
    /// length while its neighbours end at other times. (Lanes of one shape, and every
    /// batch of a one-lane kernel, run as a wave: see `waves_of_one_shape`.)
    #[test]
    fn every_length_in_every_lane_position() {
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
    }

    /// Long messages at the same offset in their 4 KiB pages, which the scheduler starts
    /// a few blocks apart (`Lanes::stagger`): every kernel, one batch of exactly its lanes
    /// and one with refills, some lanes aliased and some not, ragged lengths.
    #[test]
    fn page_aligned_long_messages_start_apart() {
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
    }

    /// The scheduler with wide portable kernels: lane refill, in-lane padding and the
    /// switch to narrower kernels as the queue drains, on any CPU.
    #[test]
    fn scheduler_with_portable_lanes() {
        use crate::lanes::testing::portable_lanes;
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let ks = vec![
            crate::lanes::single_stream::<Md5>(Features::PORTABLE),
            portable_lanes::<Md5>("p4", 4, 2.0),
            portable_lanes::<Md5>("p16", 16, 7.0),
            portable_lanes::<Md5>("p64", 64, 19.0),
        ];
        // Random lengths, and equal ones: whole waves, then the scheduler for the rest;
        // long enough for the balanced tail (over 64 blocks), the last wave joins them.
        let counts = [0usize, 1, 2, 3, 5, 15, 16, 17, 33, 63, 64, 65, 200];
        let before = crate::waves::WAVES.get();
        for (count, equal) in counts.into_iter().flat_map(|c| [(c, false), (c, true)]) {
            let len = rng.random_range(if count % 2 == 0 { 0..2000 } else { 8192..8256 });
            let msgs: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let len = if equal {
                        len
                    } else {
                        rng.random_range(0..2000)
                    };
                    (0..len).map(|_| rng.random()).collect()
                })
                .collect();
            let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
            let total: usize = msgs.iter().map(|m| m.len()).sum();
            for forced in [None, Some("p4"), Some("p64")] {
                let start = match forced {
                    Some(name) => *ks.iter().find(|k| k.name == name).unwrap(),
                    None => lanes_for::<Md5>(&ks, count, total).unwrap_or(ks[0]),
                };
                let got = run_batch::<Md5>(
                    crate::md5::IV,
                    16,
                    &refs,
                    total,
                    &ks,
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
        use crate::lanes::testing::portable_lanes;
        use crate::waves::WAVES;
        let ks = vec![
            crate::lanes::single_stream::<Md5>(Features::PORTABLE),
            portable_lanes::<Md5>("p16", 16, 7.0),
        ];
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
            let got = run_batch::<Md5>(crate::md5::IV, 16, &msgs, total, &ks, ks[1], false);
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
        use crate::lanes::testing::portable_lanes;
        let single = crate::lanes::single_stream::<Md5>(Features::PORTABLE);
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
    }

    /// Whole waves (`waves.rs`) on every kernel: each length 0..=300 in every lane, the
    /// lanes' contents differing; lanes of one shape but different lengths; and one
    /// message more than the lanes (a wave, then the scheduler).
    #[test]
    fn waves_of_one_shape() {
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
    }

    /// Equal messages, and two groups of equal messages, at every count to 70 on the auto
    /// path: whole waves, then the scheduler for what is left (past a multiple of the
    /// lanes, long ones hand their last wave over too); lengths around the one-block
    /// padding limit and the longest waved message.
    #[test]
    fn equal_messages_every_count_auto() {
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
    }

    #[test]
    fn every_message_count_auto() {
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
    }

    #[test]
    fn large_random_messages_par() {
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
    }
}
