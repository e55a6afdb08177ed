//! The balanced tail: the last jobs of a batch laid out on the lanes (McNaughton's
//! wrap-around rule, see the module docs of `schedule`) and run as one kernel call whose
//! lanes switch jobs between blocks.

use std::cell::Cell;

use super::job::SEGS;
use crate::family::{Family, MAX_BLOCK};
use crate::lanes::{DataSwitch, LaneKernel, StateSwitch, Switches, MAX_LANES, NO_SLOT};

/// Shortest piece the balanced tail cuts, in blocks, on a kernel that splits its call at
/// every piece boundary (~400 ns at 32 lanes: the scheduler's pass over the lanes
/// plus the kernel's ramp), while leaving a lane idle for a few blocks at its end costs
/// only those lane-blocks; the wrap-around rule alone cut 3-block pieces (40 x 16 KiB
/// SHA-256: 51 calls, most of 1-3 blocks). Best of alternating runs, 16 KiB messages,
/// GB/s: MD5 49: 14.7 -> 16.2, 52: 16.3 -> 18.0; SHA-256 33: 5.3 -> 5.5, 42: 5.2 -> 5.8;
/// SHA-512 25: 5.1 -> 5.3; SHA-1 17: 9.9 -> 10.1. 32 lost more to idle lanes than it saved.
pub(super) const MIN_PIECE: usize = 16;

/// [`MIN_PIECE`], or 1 on a kernel that switches lanes itself.
fn min_piece<W: Copy>(k: &LaneKernel<W>) -> usize {
    if k.switches_in_kernel() {
        1
    } else {
        MIN_PIECE
    }
}

/// Blocks an idle lane of the balanced tail reads before it is pointed back at the
/// start of [`IDLE_DATA`].
const IDLE_BLOCKS: usize = 64;

/// What idle lanes hash (their state is garbage and never read).
static IDLE_DATA: [u8; IDLE_BLOCKS * MAX_BLOCK] = [0; IDLE_BLOCKS * MAX_BLOCK];

/// The shortest lane length any plan of jobs of `total` blocks, the longest `longest`,
/// can have on `n` lanes (wrap-around reaches it).
pub(super) fn shortest_plan(total: usize, longest: usize, n: usize) -> usize {
    total.div_ceil(n).max(longest)
}

/// `items` ordered by block, `at(item) <= t_end`: a counting sort, since the blocks of a
/// plan are few and its items many (comparison sorts took ~2% of 33 x 16 KiB MD5).
fn by_block<T: Copy>(items: &[T], t_end: usize, at: impl Fn(&T) -> usize) -> Vec<T> {
    let mut out = items.to_vec();
    COUNTS.with(|c| {
        // Reused: allocating and zeroing it per call took ~60 ns of a 1.2 us plan.
        let mut start = c.take();
        start.clear();
        start.resize(t_end + 2, 0);
        for x in items {
            start[at(x) + 1] += 1;
        }
        for t in 1..start.len() {
            start[t] += start[t - 1];
        }
        for x in items {
            let slot = &mut start[at(x)];
            out[*slot as usize] = *x;
            *slot += 1;
        }
        c.set(start);
    });
    out
}

thread_local! {
    /// [`by_block`]'s counts, kept between plans on this thread.
    static COUNTS: Cell<Vec<u32>> = const { Cell::new(Vec::new()) };
}

/// One piece of a lane's plan: job `job` of the plan's slab, for `cap` blocks (a split
/// job's first part) or to its end (`usize::MAX`).
#[derive(Clone, Copy)]
pub(super) struct Piece {
    pub(super) job: usize,
    pub(super) cap: usize,
}

/// Lays out jobs of `left` blocks on `n` lanes of `t_end` blocks each (see the module
/// docs), never cutting a piece shorter than `min_piece` blocks: where the end of a lane
/// has less room than that, the lane stays idle there instead. `None` if the jobs do not
/// fit. (The last lane takes what is left when `min_piece` is 1, so that always fits.)
pub(super) fn pack(left: &[usize], n: usize, t_end: usize, min_piece: usize) -> Option<Plan> {
    let mut plan = Plan {
        pieces: Vec::with_capacity(left.len() + n),
        first: vec![0; n + 1],
    };
    let ok = pack_into(left, n, t_end, min_piece, |l, p| {
        plan.pieces.push(p);
        plan.first[l + 1] = plan.pieces.len();
    });
    // Lanes left without pieces start where the previous one ends.
    for l in 1..=n {
        plan.first[l] = plan.first[l].max(plan.first[l - 1]);
    }
    ok.then_some(plan)
}

/// Each lane's pieces in time order, lane after lane.
pub(super) struct Plan {
    pub(super) pieces: Vec<Piece>,
    /// Lane `l`'s pieces are `pieces[first[l]..first[l + 1]]`.
    first: Vec<usize>,
}

impl Plan {
    pub(super) fn lane(&self, l: usize) -> &[Piece] {
        &self.pieces[self.first[l]..self.first[l + 1]]
    }
}

/// How many jobs [`pack`] splits, without building the plan; `None` if they do not fit.
pub(super) fn splits(left: &[usize], n: usize, t_end: usize, min_piece: usize) -> Option<usize> {
    let mut splits = 0;
    pack_into(left, n, t_end, min_piece, |_, p| {
        splits += usize::from(p.cap != usize::MAX)
    })
    .then_some(splits)
}

/// [`pack`], handing each piece to `put(lane, piece)` in lane order and time order
/// within a lane; `false` if the jobs do not fit.
fn pack_into(
    left: &[usize],
    n: usize,
    t_end: usize,
    min_piece: usize,
    mut put: impl FnMut(usize, Piece),
) -> bool {
    let (mut lane, mut t) = (0, 0);
    for (j, &r) in left.iter().enumerate() {
        let whole = Piece {
            job: j,
            cap: usize::MAX,
        };
        if t == t_end && lane + 1 < n {
            (lane, t) = (lane + 1, 0);
        }
        let room = t_end - t;
        if r <= room || (min_piece == 1 && lane + 1 == n) {
            put(lane, whole);
            t += r;
            continue;
        }
        if lane + 1 == n {
            return false;
        }
        // The part left at the end of this lane: as much as fits, leaving a first part
        // of at least `min_piece` for the next lane, and no more for that first part
        // than this lane's work before it (so it is done when this lane gets there).
        let last = room.min(r.saturating_sub(min_piece));
        if last >= min_piece.max(r.saturating_sub(t)) && last > 0 {
            put(lane, whole);
            (lane, t) = (lane + 1, r - last);
            put(lane, Piece { job: j, cap: t });
        } else {
            // Too little room for a useful piece: this lane idles at its end.
            (lane, t) = (lane + 1, r);
            put(lane, whole);
        }
    }
    true
}

/// The lane length for [`pack`] that should finish `left` soonest on `kernel`: each
/// block of lane length costs a call's worth of blocks, and each split
/// `LaneKernel::split_ns` more. From the shortest length up to 1/8 longer, in at most
/// ~16 steps, stopping once the extra length alone costs more than the best so far;
/// `None` if no length there fits with the kernel's [`min_piece`]. On a kernel that
/// switches lanes itself, the shortest: trying longer ones cost ~0.2 us of a plan of 17
/// jobs, to save cuts of ~40 ns each.
pub(super) fn plan_length<W: Copy>(
    kernel: &LaneKernel<W>,
    block_len: usize,
    left: &[usize],
    t_min: usize,
) -> Option<usize> {
    if kernel.switches_in_kernel() {
        // Every piece fits, and a cut costs less than a block of lane length: the
        // shortest length it is. (Where whole jobs fit a little longer, refilling the
        // lanes does that without a plan: see `plan_pays`.)
        return Some(t_min);
    }
    let n = kernel.lanes;
    // GB/s is bytes per nanosecond.
    let step_ns = (n * block_len) as f32 / kernel.est_gbps;
    let stride = (t_min / 8 / 16).max(1);
    let mut best: Option<(usize, f32)> = None;
    for t_end in (t_min..=t_min + t_min / 8).step_by(stride) {
        let base = t_end as f32 * step_ns;
        if best.is_some_and(|(_, c)| base >= c) {
            break;
        }
        if let Some(k) = splits(left, n, t_end, min_piece(kernel)) {
            let cost = base + k as f32 * kernel.split_ns();
            if best.is_none_or(|(_, c)| cost < c) {
                best = Some((t_end, cost));
            }
            if k == 0 {
                break; // longer lanes only cost more
            }
        }
    }
    best.map(|(t, _)| t)
}

/// Runs the balanced end of a batch (see the module docs) on `kernel`: job `j`'s blocks
/// are `parts[j]` (whole blocks, in order, padding included) and its chaining state slot
/// `j` of `slots`, where its final state is left. Every piece becomes state and data
/// switches at its block boundaries, and all of it runs as one kernel call (which a kernel
/// without switches of its own splits at each boundary). `state` is the kernel's
/// word-major lane state, garbage before and after. Returns the blocks the call ran.
pub(super) fn run<F: Family>(
    kernel: &LaneKernel<F::Word>,
    state: &mut [F::Word],
    parts: &[[&[u8]; SEGS + 1]],
    slots: &mut [F::Word],
) -> usize {
    let n = kernel.lanes;
    let left: Vec<usize> = parts
        .iter()
        .map(|p| p.iter().map(|s| s.len()).sum::<usize>() / F::BLOCK)
        .collect();
    let total: usize = left.iter().sum();
    let longest = left.iter().copied().max().unwrap_or(0);
    let t_min = shortest_plan(total, longest, n);
    let plan = match plan_length(kernel, F::BLOCK, &left, t_min) {
        Some(t_end) => pack(&left, n, t_end, min_piece(kernel)),
        None => pack(&left, n, t_min, 1),
    }
    .expect("plan_length checked it fits; wrap-around always fits in t_min");
    // A split job's last part starts where its first part (at the start of the next
    // lane, and earlier) ends.
    let mut offset = vec![0; parts.len()];
    for p in plan.pieces.iter().filter(|p| p.cap != usize::MAX) {
        offset[p.job] = p.cap;
    }
    let mut states: Vec<StateSwitch> = Vec::with_capacity(2 * plan.pieces.len());
    let mut data: Vec<DataSwitch<'_>> = Vec::with_capacity(3 * plan.pieces.len());
    let mut ends = [0usize; MAX_LANES];
    for (l, end) in ends.iter_mut().enumerate().take(n) {
        let mut t = 0;
        for p in plan.lane(l) {
            let (mut skip, mut len) = if p.cap == usize::MAX {
                (offset[p.job], left[p.job] - offset[p.job])
            } else {
                (0, p.cap)
            };
            if len == 0 {
                continue;
            }
            let slot = p.job as u32;
            states.push(StateSwitch {
                at: t as u32,
                lane: l as u32,
                save: NO_SLOT,
                load: slot,
            });
            for src in parts[p.job] {
                let blocks = src.len() / F::BLOCK;
                if len == 0 {
                    break;
                }
                if skip >= blocks {
                    skip -= blocks;
                    continue;
                }
                data.push(DataSwitch {
                    at: t,
                    lane: l,
                    data: &src[skip * F::BLOCK..],
                });
                let run = (blocks - skip).min(len);
                (t, len, skip) = (t + run, len - run, 0);
            }
            states.push(StateSwitch {
                at: t as u32,
                lane: l as u32,
                save: slot,
                load: NO_SLOT,
            });
        }
        *end = t;
    }
    let t_end = ends.iter().copied().max().unwrap_or(0);
    // Idle stretches, each lane from where its pieces end.
    for (l, &end) in ends.iter().enumerate().take(n) {
        for t in (end..t_end).step_by(IDLE_BLOCKS) {
            data.push(DataSwitch {
                at: t,
                lane: l,
                data: &IDLE_DATA,
            });
        }
    }
    // Into block order for the kernel. (No lane has two data switches at one block,
    // and the kernel makes a block's saves before its loads whatever their order.)
    let states = by_block(&states, t_end, |s| s.at as usize);
    let data = by_block(&data, t_end, |d| d.at);
    let blocks = [&IDLE_DATA[..]; MAX_LANES];
    let sw = Switches {
        states: &states,
        data: &data,
        slots,
    };
    kernel.compress_switched(state, F::WORDS, F::BLOCK, &blocks[..n], t_end, sw);
    t_end
}
