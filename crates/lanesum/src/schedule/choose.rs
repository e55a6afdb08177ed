//! Choosing the kernel: the fastest for a number of busy lanes, or for a batch of long
//! messages with the balanced tail.

use crate::lanes::LaneKernel;

/// Average blocks per running job from which the balanced tail pays: the plan costs
/// up to one extra kernel call per job, which shorter messages do not win back
/// (measured: MD5 33 x 16 KiB 7.0 -> 10.4 GB/s per core, 33 x 1 KiB 9 -> 2.3).
const PLAN_MIN_BLOCKS: usize = 128;

/// [`PLAN_MIN_BLOCKS`] for a kernel that switches lanes itself, where a cut costs a few
/// loads and stores inside the call rather than a call.
const PLAN_MIN_BLOCKS_SWITCHED: usize = 64;

/// [`PLAN_MIN_BLOCKS`] for kernel `k`.
pub(crate) fn plan_min_blocks<W: Copy>(k: &LaneKernel<W>) -> usize {
    if k.switches_in_kernel() {
        PLAN_MIN_BLOCKS_SWITCHED
    } else {
        PLAN_MIN_BLOCKS
    }
}

/// The kernel with the best throughput for `busy` messages; fewer lanes on a tie.
///
/// A kernel narrower than the batch is rated as `run` uses it: full waves on it, then
/// the last partial wave on the fastest kernel wide enough for it (33 SHA-256 messages:
/// 32 in 32 lanes, then one on SHA-NI, rather than three waves of a 16-lane kernel).
pub(crate) fn best<W: Copy>(kernels: &[LaneKernel<W>], busy: usize) -> LaneKernel<W> {
    best_by(kernels, wave_rate(kernels, busy)).0
}

/// How [`best`] rates a kernel for `busy` messages.
fn wave_rate<W: Copy>(
    kernels: &[LaneKernel<W>],
    busy: usize,
) -> impl FnMut(&LaneKernel<W>) -> f32 + '_ {
    let n = busy.max(1);
    // The fastest rate for a last wave of `rest` messages, kept for the last `rest` asked
    // (most kernels leave no remainder or the same one, so it is rarely recomputed).
    let mut kept = (0, 0.0);
    move |k: &LaneKernel<W>| -> f32 {
        if n <= k.lanes {
            return k.rate_with(n);
        }
        let rest = n % k.lanes;
        // Time in units of one message's bytes per GB/s.
        let mut time = (n - rest) as f32 / k.est_gbps;
        if rest > 0 {
            if kept.0 != rest {
                let r = kernels
                    .iter()
                    .filter(|j| j.lanes >= rest)
                    .map(|j| j.rate_with(rest))
                    .fold(0.0, f32::max);
                kept = (rest, r);
            }
            time += rest as f32 / kept.1;
        }
        n as f32 / time
    }
}

/// The same for `busy` messages of `blocks` blocks of `block_len` bytes on average: long
/// ones get the balanced tail, so a kernel narrower than the batch wastes no lanes;
/// short ones run in waves, each a call over their whole blocks and one over their
/// padded ends, and for messages of a few blocks those calls' fixed cost
/// ([`LaneKernel::call_ns`]) decides as much as the rates do. Returns the kernel and its
/// estimated GB/s for the batch.
pub(crate) fn best_for<W: Copy>(
    kernels: &[LaneKernel<W>],
    busy: usize,
    blocks: usize,
    block_len: usize,
) -> (LaneKernel<W>, f32) {
    let mut waves = wave_rate(kernels, busy);
    // Bytes compressed per message, its padding block counted (what the calls carry).
    let each = ((blocks + 1) * block_len) as f32;
    let calls = if blocks > 0 { 2.0 } else { 1.0 };
    best_by(kernels, |k| {
        if blocks >= plan_min_blocks(k) {
            k.rate_balanced(busy, blocks * block_len)
        } else {
            // GB/s is bytes per nanosecond.
            let n = busy.max(1);
            let work_ns = n as f32 * each / waves(k);
            let calls_ns = n.div_ceil(k.lanes) as f32 * calls * k.call_ns;
            n as f32 * each / (work_ns + calls_ns)
        }
    })
}

/// The kernel `rate` rates highest (each rated once), and its rate; fewer lanes on a tie.
pub(super) fn best_by<'k, W: Copy + 'k>(
    kernels: impl IntoIterator<Item = &'k LaneKernel<W>>,
    mut rate: impl FnMut(&LaneKernel<W>) -> f32,
) -> (LaneKernel<W>, f32) {
    let mut top: Option<(LaneKernel<W>, f32)> = None;
    for k in kernels {
        let r = rate(k);
        match top {
            Some((t, tr)) if r < tr || (r == tr && k.lanes > t.lanes) => {}
            _ => top = Some((*k, r)),
        }
    }
    top.expect("the single-stream kernel is always there")
}
