//! Whole messages of the Merkle-Damgård algorithms through the SIMD lanes: the core of
//! `hash_many`, which the modes built on SHA-256 use directly.
//!
//! Messages are taken longest first. Short ones of one shape fill waves of lanes
//! (`waves`); the scheduler takes the rest and keeps every lane busy: a lane whose
//! message ends takes the next one at once, padding is done in-lane from a small per-lane
//! tail buffer, and once the queue is empty it moves the remaining messages to whichever
//! kernel is fastest for that many (down to SHA-NI or scalar single-stream). Too few
//! messages for any lanes to pay go one at a time.

use std::sync::OnceLock;

use crate::families::{self, all, each, AllOf, Each};
use crate::family::{Family, Kernels};
use crate::isa::Features;
use crate::lanes::LaneKernel;
#[cfg(test)]
use crate::merkle_damgard::digest_of;
use crate::merkle_damgard::{state_bytes, MdHasher};
use crate::schedule::{self, best_for, Job};
use crate::waves;
use crate::{Algorithm, Digest};

/// Whole messages (`total` bytes) through the lanes, starting on `start`, longest first
/// (the end of the batch, where lanes run empty, then holds short messages): short ones
/// of one shape in whole waves, the rest through the scheduler, or as one partial wave
/// if they fit one and share a shape, or one at a time if they are too few for lanes to
/// pay. A forced kernel keeps submission order so tests can place messages in lanes,
/// and runs everything, its remainder through the scheduler.
#[cfg(test)]
pub(super) fn run_batch<F: Family, M: AsRef<[u8]>>(
    iv: F::State,
    out_len: usize,
    msgs: &[M],
    total: usize,
    ks: &Kernels<F>,
    start: LaneKernel<F::Word>,
    forced: bool,
) -> Vec<Digest> {
    let mut out: Vec<Option<Digest>> = vec![None; msgs.len()];
    run_batch_to::<F, M>(iv, msgs, total, ks, start, forced, |i, state| {
        assert!(out[i].is_none(), "message {i} hashed twice");
        out[i] = Some(digest_of::<F>(state, out_len));
    });
    out.into_iter()
        .map(|d| d.expect("every message finished"))
        .collect()
}

/// [`run_batch`], passing each message's final state to `done(index, state)`, once.
pub(super) fn run_batch_to<F: Family, M: AsRef<[u8]>>(
    iv: F::State,
    msgs: &[M],
    total: usize,
    ks: &Kernels<F>,
    start: LaneKernel<F::Word>,
    forced: bool,
    mut done: impl FnMut(usize, &F::State),
) {
    let kernels = &ks.lanes[..];
    let n = msgs.len();
    let mut order: Vec<usize> = (0..n).collect();
    // Longest first (a check is cheaper than the sort for the common equal lengths).
    if !forced && !msgs.is_sorted_by(|a, b| a.as_ref().len() >= b.as_ref().len()) {
        order.sort_by_key(|&i| std::cmp::Reverse(msgs[i].as_ref().len()));
    }
    // Whole waves only; and past a multiple of the lanes, long messages leave their last
    // wave to the scheduler with the rest, whose balanced tail spreads them over the lanes.
    let extra = n % start.lanes;
    let plan = !forced && blocks_each::<F>(total, n) >= schedule::plan_min_blocks(&start);
    let waved = if plan && extra > 0 {
        n.saturating_sub(start.lanes + extra)
    } else {
        n - extra
    };
    let rest = match waves::run::<F, M>(&start, iv, msgs, &order[..waved], false, &mut done) {
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
        let total = rest.iter().map(|&i| msgs[i].as_ref().len()).sum();
        lanes_for::<F>(kernels, rest.len(), total)
    };
    let job = |i: usize| (i, Job::message(iv, msgs[i].as_ref()));
    match start {
        Some(k) => {
            // What fits one call of its kernel, of one shape, runs as one partial wave.
            let rest = if !forced && rest.len() <= k.lanes {
                waves::run::<F, M>(&k, iv, msgs, &rest, true, &mut done).unwrap_or(rest)
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
            .for_each(|(i, j)| done(i, &j.run_single(ks.single))),
    }
}

/// The kernel `n` messages of `total` bytes start on, or `None` if they are done sooner
/// one at a time.
pub(super) fn lanes_for<F: Family>(
    kernels: &[LaneKernel<F::Word>],
    n: usize,
    total: usize,
) -> Option<LaneKernel<F::Word>> {
    let (start, rate) = best_for(kernels, n, blocks_each::<F>(total, n), F::BLOCK);
    (start.lanes > 1 && !single_is_faster(kernels, &start, rate, n, total)).then_some(start)
}

/// [`lanes_for`] `msgs` (`total` bytes), or a kernel of [`Kernels::few`] exactly as wide
/// as the batch where it is estimated faster for messages that long.
pub(super) fn few_or_lanes_for<F: Family, M: AsRef<[u8]>>(
    ks: &Kernels<F>,
    msgs: &[M],
    total: usize,
) -> Option<LaneKernel<F::Word>> {
    let n = msgs.len();
    let k = lanes_for::<F>(&ks.lanes, n, total).unwrap_or(ks.lanes[0]);
    let k = ks.few_over(k, n, || {
        msgs.iter().map(|m| m.as_ref().len()).min().unwrap_or(0) / F::BLOCK
    });
    (k.lanes > 1).then_some(k)
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

/// A family's kernels at the process's level, built once (see [`run`]).
struct Cached;

impl Each for Cached {
    type Of<F: Family> = OnceLock<(Features, Kernels<F>)>;
}

static KERNELS: AllOf<Cached> = all!(|F| OnceLock::new());

/// `msgs` of a Merkle-Damgård algorithm hashed at `level`, on the kernel named `forced`
/// for every message if given. `None` if `alg` has no lanes (not a Merkle-Damgård
/// algorithm) or no such kernel here.
pub(crate) fn hash_md<M: AsRef<[u8]>>(
    alg: Algorithm,
    msgs: &[M],
    level: Features,
    forced: Option<&str>,
) -> Option<Vec<Digest>> {
    let len = alg.digest_len();
    let mut out: Vec<Option<Digest>> = vec![None; msgs.len()];
    hash_md_to(alg, msgs, level, forced, |i, bytes| {
        debug_assert!(out[i].is_none(), "message {i} hashed twice");
        out[i] = Some(Digest::from_array(*bytes, len));
    })?;
    Some(
        out.into_iter()
            .map(|d| d.expect("every message finished"))
            .collect(),
    )
}

/// [`hash_md`] writing the digests back to back into `out` (`alg.digest_len()` bytes
/// each): no `Digest` per message, which for a million 64-byte messages was a fifth
/// of the time (72 bytes each written, collected and copied out again).
///
/// # Panics
/// If `out` is not `msgs.len()` digests long.
pub(crate) fn hash_md_into<M: AsRef<[u8]>>(
    alg: Algorithm,
    msgs: &[M],
    level: Features,
    out: &mut [u8],
) -> Option<()> {
    let len = alg.digest_len();
    assert_eq!(out.len(), msgs.len() * len, "room for every digest");
    hash_md_to(alg, msgs, level, None, |i, bytes| {
        out[i * len..][..len].copy_from_slice(&bytes[..len]);
    })
}

/// [`hash_md`] passing each message's digest to `put(index, bytes)`, once: the first
/// `alg.digest_len()` of the 64 bytes.
fn hash_md_to<M: AsRef<[u8]>>(
    alg: Algorithm,
    msgs: &[M],
    level: Features,
    forced: Option<&str>,
    mut put: impl FnMut(usize, &[u8; 64]),
) -> Option<()> {
    let iv = families::lookup(alg)?;
    let len = alg.digest_len();
    each!(iv, KERNELS, |F, iv, cache| {
        let built;
        // The first level asked for is kept (the process's, but for tests forcing others).
        let (at, cached) = cache.get_or_init(|| (level, Kernels::<F>::new(level)));
        let ks: &Kernels<F> = if *at == level {
            cached
        } else {
            built = Kernels::<F>::new(level);
            &built
        };
        let total: usize = msgs.iter().map(|m| m.as_ref().len()).sum();
        let start = match forced {
            Some(name) => *ks.lanes.iter().chain(&ks.few).find(|k| k.name == name)?,
            None => match few_or_lanes_for(ks, msgs, total) {
                Some(k) => k,
                // Too few messages for any multi-lane kernel to win: skip the lane
                // bookkeeping so a lone message costs what the single-stream path costs.
                None => {
                    for (i, m) in msgs.iter().enumerate() {
                        let mut h = MdHasher::<F>::new(iv, ks.single);
                        h.update(m.as_ref());
                        let mut bytes = [0u8; 64];
                        bytes[..len].copy_from_slice(h.finalize(len).as_bytes());
                        put(i, &bytes);
                    }
                    return Some(());
                }
            },
        };
        run_batch_to::<F, M>(*iv, msgs, total, ks, start, forced.is_some(), |i, state| {
            put(i, &state_bytes::<F>(state))
        });
        Some(())
    })
}

/// One message of a Merkle-Damgård algorithm on the single-stream path at `level`.
///
/// # Panics
/// If `alg` is not a Merkle-Damgård algorithm.
pub(crate) fn hash_one(alg: Algorithm, data: &[u8], level: Features) -> Digest {
    let iv = families::lookup(alg).expect("a Merkle-Damgård algorithm");
    each!(iv, |F, iv| {
        let mut h = MdHasher::<F>::new(iv, F::single(level).compress);
        h.update(data);
        h.finalize(alg.digest_len())
    })
}

/// The kernels of `F` at `level`, the single-stream one first, those for a few long
/// streams last.
pub(crate) fn kernels<F: Family>(level: Features) -> Vec<LaneKernel<F::Word>> {
    let ks = Kernels::<F>::new(level);
    ks.lanes.into_iter().chain(ks.few).collect()
}
