//! The lane scheduler shared by `hash_many` and the lane engine.
//!
//! A [`Job`] is one message's share of work: whole blocks in up to three segments (an
//! engine stream's buffered blocks, a block completed from its partial buffer, and the
//! caller's slice, all hashed without copying), then optionally the final padding. The
//! scheduler keeps every lane busy: a lane whose job ends takes the next one at once,
//! padding is done in-lane from a small per-lane tail buffer, and once no job is waiting
//! it moves the remaining ones to whichever kernel is fastest for that many (down to
//! SHA-NI or scalar single-stream).
//!
//! The end of a batch is balanced: once no more than one kernel's worth of jobs waits,
//! the rest is laid out with McNaughton's wrap-around rule (the optimal preemptive
//! schedule on identical machines): with `T = max(longest, total / lanes)` blocks,
//! lanes are filled in turn up to `T`, and a job that crosses `T` runs its first part at
//! the start of the next lane and its last part at the end of this one. So 9 equal
//! messages on an 8-lane kernel finish together in ~9/8 of the time of 8, instead of
//! the 9th running alone afterwards at a fraction of the speed. The whole plan runs as
//! one kernel call whose lanes switch jobs (chaining state and data) between blocks
//! (see `lanes::Switches`): the AVX-512 kernels do that inside the call for a few loads
//! and stores, the others split the call there. On the latter no piece is cut shorter
//! than [`MIN_PIECE`] blocks: a lane with less room at its end idles there, and `T` may
//! grow by up to 1/8, to fit or to cut fewer pieces, whichever length is estimated to
//! finish soonest (see `plan_length`). Where refilling the lanes as they free up would
//! finish about as soon (equal jobs, a multiple of the lanes), no plan is built: it
//! costs ~0.5 us and ~45 ns a job (see `lanes::plan_ns`).

use std::cell::Cell;
use std::ops::Deref;

use crate::family::{self, Compress, Family, MAX_BLOCK};
use crate::lanes::{plan_ns, DataSwitch, LaneKernel, StateSwitch, Switches, NO_SLOT};
use crate::merkle_damgard::{pad_final, padded_len};

pub(crate) use crate::lanes::MAX_LANES;

/// Average blocks per running job from which the balanced tail pays: the plan costs
/// up to one extra kernel call per job, which shorter messages do not win back
/// (measured: MD5 33 x 16 KiB 7.0 -> 10.4 GB/s per core, 33 x 1 KiB 9 -> 2.3).
const PLAN_MIN_BLOCKS: usize = 128;

/// Shortest piece the balanced tail cuts, in blocks, on a kernel that splits its call at
/// every piece boundary (~400 ns at 32 lanes: the scheduler's pass over the lanes
/// plus the kernel's ramp), while leaving a lane idle for a few blocks at its end costs
/// only those lane-blocks; the wrap-around rule alone cut 3-block pieces (40 x 16 KiB
/// SHA-256: 51 calls, most of 1-3 blocks). Best of alternating runs, 16 KiB messages,
/// GB/s: MD5 49: 14.7 -> 16.2, 52: 16.3 -> 18.0; SHA-256 33: 5.3 -> 5.5, 42: 5.2 -> 5.8;
/// SHA-512 25: 5.1 -> 5.3; SHA-1 17: 9.9 -> 10.1. 32 lost more to idle lanes than it saved.
const MIN_PIECE: usize = 16;

/// Blocks of its current segment a lane needs per block of delay before
/// [`Lanes::stagger`] delays it: the delayed lanes' work is wasted, so at most ~1/32 of
/// it.
const STAGGER_MIN_RATIO: usize = 32;

/// [`PLAN_MIN_BLOCKS`] for a kernel that switches lanes itself, where a cut costs a few
/// loads and stores inside the call rather than a call.
const PLAN_MIN_BLOCKS_SWITCHED: usize = 64;

pub(crate) fn plan_min_blocks<W: Copy>(k: &LaneKernel<W>) -> usize {
    if k.switches_in_kernel() {
        PLAN_MIN_BLOCKS_SWITCHED
    } else {
        PLAN_MIN_BLOCKS
    }
}

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

/// Segments a job's whole blocks may come in: the lane engine's halves of owned chunks
/// are this many slices of them.
pub(crate) const SEGS: usize = 8;

/// The non-empty ones of `parts`, in order, as a job's segments (slices, or the owned
/// chunks they will be taken from).
///
/// # Panics
/// With more than [`SEGS`] non-empty parts (dropping one would be a wrong digest).
pub(crate) fn segs<T>(parts: impl IntoIterator<Item = T>) -> [T; SEGS]
where
    T: Default + Deref<Target = [u8]>,
{
    let mut segs: [T; SEGS] = std::array::from_fn(|_| T::default());
    let mut parts = parts.into_iter().filter(|p| !p.is_empty());
    for (seg, part) in segs.iter_mut().zip(&mut parts) {
        *seg = part;
    }
    assert!(parts.next().is_none(), "more than SEGS segments");
    segs
}

/// One message's work for the lanes.
pub(crate) struct Job<'a, F: Family> {
    /// Chaining state to start from.
    pub state: F::State,
    /// Whole blocks, hashed in this order; any may be empty.
    pub segs: [&'a [u8]; SEGS],
    /// `(tail, total)`: pad and hash the message's last `tail.len() < BLOCK` bytes for a
    /// message of `total` bytes. `None` leaves the state mid-message.
    pub fin: Option<(&'a [u8], u64)>,
}

impl<'a, F: Family> Job<'a, F> {
    /// A whole message from its initial state.
    pub(crate) fn message(iv: F::State, msg: &'a [u8]) -> Self {
        let body = msg.len() - msg.len() % F::BLOCK;
        Job {
            state: iv,
            segs: segs([&msg[..body]]),
            fin: Some((&msg[body..], msg.len() as u64)),
        }
    }

    /// Whole blocks only, leaving the state mid-message.
    pub(crate) fn blocks(state: F::State, segs: [&'a [u8]; SEGS]) -> Self {
        Job {
            state,
            segs,
            fin: None,
        }
    }

    /// Hash the job on the single-stream path, `compress`; returns the final state.
    pub(crate) fn run_single(self, compress: Compress<F>) -> F::State {
        let mut state = self.state;
        for seg in self.segs {
            if !seg.is_empty() {
                compress.run(&mut state, seg);
            }
        }
        if let Some((tail, total)) = self.fin {
            let mut last = [0u8; 2 * MAX_BLOCK];
            let used = pad_final::<F>(tail, total, &mut last);
            compress.run(&mut state, &last[..used]);
        }
        state
    }
}

/// Where a lane is in its job.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    /// Whole blocks: the lane's `cur` is what is left of the current segment, `next`
    /// the later ones.
    Body,
    /// The padded final block(s) in the lane's tail buffer; `pos..end` still to do.
    Tail,
}

/// A lane's job and where it is in it. Blocks are counted on one clock per batch,
/// since every lane of a call runs the same number of blocks.
#[derive(Clone, Copy)]
struct Lane<'a> {
    id: usize,
    phase: Phase,
    cur: &'a [u8],
    next: [&'a [u8]; SEGS - 1],
    fin: Option<(&'a [u8], u64)>,
    /// In `Phase::Tail`, the part of the tail buffer still to do. (A kernel call adds to
    /// `pos` in every lane, which is cheaper than checking; only `Tail` reads it.)
    pos: usize,
    end: usize,
    /// The clock at which the lane's segment or padding ends, when
    /// the scheduler must look at it; `usize::MAX` while idle.
    due: usize,
}

impl<'a> Lane<'a> {
    /// Job `id` at its start (`advance` then moves it past empty segments).
    fn fresh<F: Family>(id: usize, job: &Job<'a, F>) -> Self {
        Lane {
            id,
            phase: Phase::Body,
            cur: job.segs[0],
            next: job.segs[1..].try_into().expect("SEGS - 1 segments"),
            fin: job.fin,
            pos: 0,
            end: 0,
            due: usize::MAX,
        }
    }
}

const IDLE: Lane<'static> = Lane {
    id: 0,
    phase: Phase::Idle,
    cur: &[],
    next: [&[]; SEGS - 1],
    fin: None,
    pos: 0,
    end: 0,
    due: usize::MAX,
};

/// Runs `jobs` (each with a caller-chosen id) through `kernels`, starting on `start`;
/// `done(id, state)` receives each job's final state as it ends. With `narrow`, the
/// kernel is switched to a narrower, faster one once the queue is empty; without it
/// (forced kernels, for tests) every job runs on `start` and jobs fill lanes in order.
///
/// Each kernel call runs until the first lane needs the scheduler (its segment or
/// padding ends), and only those lanes are looked at afterwards, so the work between
/// calls does not grow with the lane count.
pub(crate) fn run<'a, F: Family>(
    kernels: &[LaneKernel<F::Word>],
    start: LaneKernel<F::Word>,
    narrow: bool,
    jobs: impl ExactSizeIterator<Item = (usize, Job<'a, F>)>,
    done: impl FnMut(usize, &F::State),
) {
    let mut s = Lanes::<F, _>::new(start, done);
    if let Some(rest) = s.drive(kernels, narrow, jobs, narrow) {
        // The balanced tail would not pay: plain refills finish as soon.
        s.drive(kernels, narrow, rest.into_iter(), false);
    }
}

impl<'a, F: Family, D: FnMut(usize, &F::State)> Lanes<'a, F, D> {
    /// `run`'s loop over `queue`. With `plan`, once the lanes are full and no more than
    /// a kernel's worth of long jobs waits, the end of the batch runs as one balanced
    /// plan; unless plain refills would finish as soon (equal jobs, a multiple of the
    /// lanes), and then the waiting jobs are returned, taken from `queue`, for `run` to
    /// go on with.
    fn drive(
        &mut self,
        kernels: &[LaneKernel<F::Word>],
        narrow: bool,
        mut queue: impl ExactSizeIterator<Item = (usize, Job<'a, F>)>,
        plan: bool,
    ) -> Option<Vec<(usize, Job<'a, F>)>> {
        let s = self;
        // Busy lanes when the kernel choice was last looked at.
        let mut rated = usize::MAX;
        let mut staggered = false;
        loop {
            if queue.len() > 0 && s.busy < s.lanes.len() {
                s.fill(&mut queue);
                if !staggered {
                    staggered = true;
                    s.stagger();
                }
                if plan && queue.len() > 0 && queue.len() <= s.lanes.len() && s.long_jobs() {
                    let rest: Vec<_> = queue.by_ref().collect();
                    if !s.plan_pays(&rest) {
                        return Some(rest);
                    }
                    s.run_plan(rest.into_iter());
                }
            }
            if s.busy == 0 {
                return None;
            }
            if narrow && queue.len() == 0 && s.busy != rated {
                rated = s.busy;
                // Only kernels wide enough for every busy lane: nothing is left to refill.
                let busy = s.busy;
                let (k, _) = best_by(kernels.iter().filter(|k| k.lanes >= busy), |k| {
                    k.rate_with(busy)
                });
                if k.rate_with(busy) > 1.05 * s.kernel.rate_with(busy) {
                    s.resize(k);
                }
            }
            for l in bits_of(s.step()) {
                s.advance(l);
            }
        }
    }

    /// Whether the balanced plan for the running jobs and `rest` beats refilling the
    /// lanes as they free up (longest-processing-time order when `rest` is longest
    /// first), by more than the plan costs to build. Every lane is busy.
    fn plan_pays(&self, rest: &[(usize, Job<'a, F>)]) -> bool {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.lanes.len();
        let mut free: BinaryHeap<Reverse<usize>> = self
            .lanes
            .iter()
            .map(|l| Reverse(blocks_left::<F>(l)))
            .collect();
        let mut total: usize = free.iter().map(|r| r.0).sum();
        let mut longest = free.iter().map(|r| r.0).max().unwrap_or(0);
        for (_, job) in rest {
            let blocks = job_blocks(job);
            total += blocks;
            longest = longest.max(blocks);
            let mut first = free.peek_mut().expect("every lane is busy");
            first.0 += blocks;
        }
        let greedy = free.iter().map(|r| r.0).max().unwrap_or(0);
        let t_min = shortest_plan(total, longest, n);
        // GB/s is bytes per nanosecond.
        let step_ns = (n * F::BLOCK) as f32 / self.kernel.est_gbps;
        greedy.saturating_sub(t_min) as f32 * step_ns > plan_ns(n + rest.len())
    }
}

/// The shortest lane length any plan of jobs of `total` blocks, the longest `longest`,
/// can have on `n` lanes (wrap-around reaches it).
fn shortest_plan(total: usize, longest: usize, n: usize) -> usize {
    total.div_ceil(n).max(longest)
}

/// Blocks of `job`, padding included.
fn job_blocks<F: Family>(job: &Job<'_, F>) -> usize {
    blocks_of::<F>(job.segs.iter().map(|s| s.len()).sum(), job.fin)
}

/// Blocks of `body` bytes of whole blocks, then the padded end `fin` if there is one.
fn blocks_of<F: Family>(body: usize, fin: Option<(&[u8], u64)>) -> usize {
    (body + fin.map_or(0, |(t, _)| padded_len::<F>(t.len()))) / F::BLOCK
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

/// Blocks a lane still has to hash, padding included.
fn blocks_left<F: Family>(lane: &Lane<'_>) -> usize {
    match lane.phase {
        Phase::Idle => 0,
        Phase::Body => blocks_of::<F>(
            lane.cur.len() + lane.next.iter().map(|s| s.len()).sum::<usize>(),
            lane.fin,
        ),
        Phase::Tail => (lane.end - lane.pos) / F::BLOCK,
    }
}

/// One piece of a lane's plan: job `job` of the plan's slab, for `cap` blocks (a split
/// job's first part) or to its end (`usize::MAX`).
#[derive(Clone, Copy)]
struct Piece {
    job: usize,
    cap: usize,
}

/// Lays out jobs of `left` blocks on `n` lanes of `t_end` blocks each (see the module
/// docs), never cutting a piece shorter than `min_piece` blocks: where the end of a lane
/// has less room than that, the lane stays idle there instead. `None` if the jobs do not
/// fit. (The last lane takes what is left when `min_piece` is 1, so that always fits.)
fn pack(left: &[usize], n: usize, t_end: usize, min_piece: usize) -> Option<Plan> {
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
struct Plan {
    pieces: Vec<Piece>,
    /// Lane `l`'s pieces are `pieces[first[l]..first[l + 1]]`.
    first: Vec<usize>,
}

impl Plan {
    fn lane(&self, l: usize) -> &[Piece] {
        &self.pieces[self.first[l]..self.first[l + 1]]
    }
}

/// How many jobs [`pack`] splits, without building the plan; `None` if they do not fit.
fn splits(left: &[usize], n: usize, t_end: usize, min_piece: usize) -> Option<usize> {
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
fn plan_length<W: Copy>(
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
/// ones get the balanced tail, so a kernel narrower than the batch wastes no lanes.
/// Returns the kernel and its estimated GB/s for the batch.
pub(crate) fn best_for<W: Copy>(
    kernels: &[LaneKernel<W>],
    busy: usize,
    blocks: usize,
    block_len: usize,
) -> (LaneKernel<W>, f32) {
    let mut waves = wave_rate(kernels, busy);
    best_by(kernels, |k| {
        if blocks >= plan_min_blocks(k) {
            k.rate_balanced(busy, blocks * block_len)
        } else {
            waves(k)
        }
    })
}

/// The kernel `rate` rates highest (each rated once), and its rate; fewer lanes on a tie.
fn best_by<'k, W: Copy + 'k>(
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

#[cfg(test)]
thread_local! {
    /// Batches whose lanes [`Lanes::stagger`] started apart, on this thread.
    pub(crate) static STAGGERED: Cell<usize> = const { Cell::new(0) };
    /// Balanced plans [`Lanes::run_plan`] ran, on this thread.
    static PLANS: Cell<usize> = const { Cell::new(0) };
}

thread_local! {
    /// The balanced tail's padded job ends, kept between plans on this thread (zeroing
    /// 264 bytes a job took ~0.3 us of a plan of 48 jobs).
    static SPARE_PADS: Cell<Vec<([u8; 2 * MAX_BLOCK], usize)>> = const { Cell::new(Vec::new()) };
    /// Per-lane padding buffers kept between batches on this thread: allocating and
    /// zeroing 256 bytes a lane per batch took ~5% of a batch of 64 x 1 KiB messages.
    static SPARE_TAILS: Cell<Vec<[u8; 2 * MAX_BLOCK]>> = const { Cell::new(Vec::new()) };
}

/// The lanes of the kernel in use.
struct Lanes<'a, F: Family, D> {
    kernel: LaneKernel<F::Word>,
    /// Word-major state of every lane (see `lanes`).
    state: Vec<F::Word>,
    lanes: Vec<Lane<'a>>,
    /// One bit per lane not in `Phase::Body`: its blocks come from elsewhere than `cur`.
    odd: u64,
    busy: usize,
    /// Blocks each lane has been through in this batch.
    clock: usize,
    tails: Vec<[u8; 2 * MAX_BLOCK]>,
    done: D,
}

/// This thread's spare per-lane padding buffers (see `SPARE_TAILS`), at least `n` of
/// them; hand them back with [`keep_tails`].
pub(crate) fn take_tails(n: usize) -> Vec<[u8; 2 * MAX_BLOCK]> {
    let mut tails = SPARE_TAILS.take();
    if tails.len() < n {
        // Only `pad_final` writes them before they are read.
        tails.resize(n, [0; 2 * MAX_BLOCK]);
    }
    tails
}

/// Keeps `tails` for the next batch on this thread, unless a larger set is kept already.
pub(crate) fn keep_tails(tails: Vec<[u8; 2 * MAX_BLOCK]>) {
    SPARE_TAILS.with(|spare| {
        let kept = spare.take();
        spare.set(if tails.len() > kept.len() {
            tails
        } else {
            kept
        });
    });
}

impl<F: Family, D> Drop for Lanes<'_, F, D> {
    fn drop(&mut self) {
        keep_tails(std::mem::take(&mut self.tails));
    }
}

/// The set bits of `bits`, lowest first.
fn bits_of(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            l
        })
    })
}

impl<'a, F: Family, D: FnMut(usize, &F::State)> Lanes<'a, F, D> {
    fn new(kernel: LaneKernel<F::Word>, done: D) -> Self {
        let mut s = Lanes {
            kernel,
            state: Vec::new(),
            lanes: Vec::new(),
            odd: 0,
            busy: 0,
            clock: 0,
            // Reused between batches (see `SPARE_TAILS`).
            tails: take_tails(0),
            done,
        };
        s.resize(kernel);
        s
    }

    /// Switch to `kernel`, moving the busy lanes to the first columns of the new layout.
    /// In place: a batch of a few short messages narrows once or twice, and allocating
    /// each time cost ~10% of 17 x 64 bytes.
    fn resize(&mut self, kernel: LaneKernel<F::Word>) {
        assert!(kernel.lanes <= MAX_LANES);
        assert!(self.busy <= kernel.lanes);
        let (old_n, n, busy) = (self.lanes.len(), kernel.lanes, self.busy);
        // Busy lanes to the front (a lane only ever moves down).
        let mut new = 0;
        for old in 0..old_n {
            if self.lanes[old].phase != Phase::Idle {
                self.lanes[new] = self.lanes[old];
                self.tails[new] = self.tails[old];
                for w in 0..F::WORDS {
                    self.state[w * old_n + new] = self.state[w * old_n + old];
                }
                new += 1;
            }
        }
        // Then the columns from `old_n` apart to `n` apart, copying in the order that
        // reads every word before it is overwritten.
        let state = &mut self.state;
        if n <= old_n {
            for w in 0..F::WORDS {
                for l in 0..busy {
                    state[w * n + l] = state[w * old_n + l];
                }
            }
            state.truncate(F::WORDS * n);
        } else {
            state.resize(F::WORDS * n, F::Word::default());
            for w in (0..F::WORDS).rev() {
                for l in (0..busy).rev() {
                    state[w * n + l] = state[w * old_n + l];
                }
            }
        }
        self.lanes.resize(n, IDLE);
        self.lanes[busy..].fill(IDLE);
        if self.tails.len() < n {
            // Only `pad_final` writes them before they are read.
            self.tails.resize(n, [0; 2 * MAX_BLOCK]);
        }
        self.odd = if n == MAX_LANES { !0 } else { (1u64 << n) - 1 };
        for (l, lane) in self.lanes[..busy].iter().enumerate() {
            if lane.phase == Phase::Body {
                self.odd &= !(1 << l);
            }
        }
        self.kernel = kernel;
    }

    /// Idle lanes take waiting jobs, in lane order.
    fn fill(&mut self, queue: &mut impl Iterator<Item = (usize, Job<'a, F>)>) {
        for l in 0..self.lanes.len() {
            while self.lanes[l].phase == Phase::Idle {
                let Some((id, job)) = queue.next() else {
                    return;
                };
                self.set_lane_state(l, &job.state);
                self.lanes[l] = Lane::fresh(id, &job);
                self.busy += 1;
                self.advance(l);
            }
        }
    }

    /// Whether the running jobs average at least [`plan_min_blocks`] blocks still to do.
    fn long_jobs(&self) -> bool {
        let busy = self.lanes.iter().filter(|l| l.phase != Phase::Idle);
        let (n, blocks) = busy.fold((0, 0), |(n, b), l| (n + 1, b + blocks_left::<F>(l)));
        n > 0 && blocks >= n * plan_min_blocks(&self.kernel)
    }

    /// Lane `l`'s chaining state, out of the word-major columns.
    fn lane_state(&self, l: usize) -> F::State {
        family::lane_state::<F>(&self.state, self.lanes.len(), l)
    }

    fn set_lane_state(&mut self, l: usize, s: &F::State) {
        family::set_lane_state::<F>(&mut self.state, self.lanes.len(), l, s);
    }

    /// Lane `l` has nothing to do.
    fn set_idle(&mut self, l: usize) {
        let lane = &mut self.lanes[l];
        (lane.phase, lane.due) = (Phase::Idle, usize::MAX);
        self.odd |= 1 << l;
        self.busy -= 1;
    }

    /// Moves busy lane `l` past empty segments: to its next blocks, its padding, or its
    /// end; then sets when it is next due.
    #[inline(always)]
    fn advance(&mut self, l: usize) {
        let lane = &mut self.lanes[l];
        let left = if lane.phase == Phase::Body {
            while lane.cur.is_empty() && lane.next.iter().any(|s| !s.is_empty()) {
                lane.cur = lane.next[0];
                lane.next.rotate_left(1);
                lane.next[SEGS - 2] = &[];
            }
            if !lane.cur.is_empty() {
                self.odd &= !(1 << l);
                lane.cur.len()
            } else if let Some((tail, total)) = lane.fin {
                let used = pad_final::<F>(tail, total, &mut self.tails[l]);
                lane.phase = Phase::Tail;
                lane.pos = 0;
                lane.end = used;
                self.odd |= 1 << l;
                used
            } else {
                0
            }
        } else {
            lane.end - lane.pos
        };
        if left > 0 {
            lane.due = self.clock + left / F::BLOCK;
            return;
        }
        let s = self.lane_state(l);
        (self.done)(self.lanes[l].id, &s);
        self.set_idle(l);
    }

    /// The balanced end of the batch (see the module docs): every running and waiting
    /// job laid out on the lanes, each piece turned into state and data switches at its
    /// block boundaries, and all of it run in one kernel call (which a kernel without
    /// switches of its own splits at each boundary). Every lane is idle afterwards.
    fn run_plan(&mut self, queue: impl ExactSizeIterator<Item = (usize, Job<'a, F>)>) {
        #[cfg(test)]
        PLANS.set(PLANS.get() + 1);
        let n = self.lanes.len();
        // Each job's id, whole blocks (up to `SEGS` segments) and padded end; its
        // chaining state is slot `j` of `slots`.
        let njobs = self.busy + queue.len();
        let mut jobs: Vec<(usize, [&'a [u8]; SEGS])> = Vec::with_capacity(njobs);
        // Reused, not zeroed: `pad_final` writes every byte a pad's slice covers.
        let mut pads = SPARE_PADS.take();
        if pads.len() < njobs {
            pads.resize(njobs, ([0; 2 * MAX_BLOCK], 0));
        }
        let mut slots: Vec<F::Word> = Vec::with_capacity(njobs * F::WORDS);
        // Job `j`'s padded end, if it has one, written in place as `pads[j]`.
        let pad = |pad: &mut ([u8; 2 * MAX_BLOCK], usize), fin: Option<(&[u8], u64)>| {
            pad.1 = fin.map_or(0, |(tail, total)| pad_final::<F>(tail, total, &mut pad.0));
        };
        for l in 0..n {
            let lane = self.lanes[l];
            let segs = match lane.phase {
                Phase::Idle => continue,
                Phase::Body => {
                    pad(&mut pads[jobs.len()], lane.fin);
                    let mut segs = [lane.cur; SEGS];
                    segs[1..].copy_from_slice(&lane.next);
                    segs
                }
                Phase::Tail => {
                    // Already padded in the lane's tail buffer.
                    let rest = &self.tails[l][lane.pos..lane.end];
                    let pad = &mut pads[jobs.len()];
                    pad.0[..rest.len()].copy_from_slice(rest);
                    pad.1 = rest.len();
                    [&[][..]; SEGS]
                }
            };
            slots.extend_from_slice(self.lane_state(l).as_ref());
            jobs.push((lane.id, segs));
            self.set_idle(l);
        }
        for (id, job) in queue {
            slots.extend_from_slice(job.state.as_ref());
            pad(&mut pads[jobs.len()], job.fin);
            jobs.push((id, job.segs));
        }
        // Each job's blocks as up to `SEGS + 1` sources, in order.
        let parts: Vec<[&[u8]; SEGS + 1]> = jobs
            .iter()
            .zip(&pads)
            .map(|((_, segs), (pad, used))| {
                let mut parts = [&pad[..*used]; SEGS + 1];
                parts[..SEGS].copy_from_slice(segs);
                parts
            })
            .collect();
        let left: Vec<usize> = parts
            .iter()
            .map(|p| p.iter().map(|s| s.len()).sum::<usize>() / F::BLOCK)
            .collect();
        let total: usize = left.iter().sum();
        let longest = left.iter().copied().max().unwrap_or(0);
        let t_min = shortest_plan(total, longest, n);
        let plan = match plan_length(&self.kernel, F::BLOCK, &left, t_min) {
            Some(t_end) => pack(&left, n, t_end, min_piece(&self.kernel)),
            None => pack(&left, n, t_min, 1),
        }
        .expect("plan_length checked it fits; wrap-around always fits in t_min");
        // A split job's last part starts where its first part (at the start of the next
        // lane, and earlier) ends.
        let mut offset = vec![0; jobs.len()];
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
            slots: &mut slots,
        };
        self.kernel
            .compress_switched(&mut self.state, F::WORDS, F::BLOCK, &blocks[..n], t_end, sw);
        for (j, (id, _)) in jobs.iter().enumerate() {
            let mut s = F::State::default();
            s.as_mut()
                .copy_from_slice(&slots[j * F::WORDS..][..F::WORDS]);
            (self.done)(*id, &s);
        }
        self.clock += t_end;
        SPARE_PADS.set(pads);
    }

    /// Start the lanes whose data sit at the same offset in their 4 KiB pages (files
    /// mapped or allocated page-aligned, engine halves) a few blocks apart, so that they
    /// stay apart while they run in step. With every lane loading from the same L1 set at
    /// once, MD5 x4 (64 x 1 MiB, page-aligned) ran at 5.8-7.4 GB/s, 10.7 staggered, 11.6
    /// with the messages 64 bytes apart; SHA-1 x1 (32 x 1 MiB) 5.9, 7.2 and 7.2 (Zen 4). A
    /// lane is held back by running the first blocks' calls with its state restored after
    /// each, so that costs those lane-blocks and a call per block of delay, once per
    /// batch, and only for long segments.
    fn stagger(&mut self) {
        let n = self.lanes.len();
        if self.busy < 8 {
            return;
        }
        let mut shortest = usize::MAX;
        for lane in &self.lanes {
            match lane.phase {
                Phase::Tail => return,
                Phase::Body => shortest = shortest.min(lane.cur.len() / F::BLOCK),
                Phase::Idle => {}
            }
        }
        // A lane's L1 set class (64-byte line in a 4 KiB page), as it will be after its
        // delay: each block of delay leaves it `BLOCK / 64` lines behind the others.
        let step = F::BLOCK / 64;
        let most = (shortest / STAGGER_MIN_RATIO).min(64 / step - 1);
        if most == 0 {
            return; // short segments (checked first: most batches are)
        }
        let mut used = 0u64;
        let mut delay = [0usize; MAX_LANES];
        let mut max = 0;
        for (l, lane) in self.lanes.iter().enumerate() {
            if lane.phase != Phase::Body {
                continue;
            }
            let class = (lane.cur.as_ptr() as usize >> 6) & 63;
            let free = (0..=most).find(|d| used & (1 << ((class + 64 - d * step) & 63)) == 0);
            let d = free.unwrap_or(0);
            used |= 1 << ((class + 64 - d * step) & 63);
            delay[l] = d;
            max = max.max(d);
        }
        if max == 0 {
            return;
        }
        #[cfg(test)]
        STAGGERED.set(STAGGERED.get() + 1);
        let any = self.lanes.iter().find(|l| l.phase == Phase::Body);
        let any = any.expect("busy lanes").cur;
        let mut held = Vec::with_capacity(n);
        for t in 0..max {
            let mut ptrs: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
            held.clear();
            for (l, lane) in self.lanes.iter().enumerate() {
                let runs = lane.phase == Phase::Body && delay[l] <= t;
                ptrs[l] = if runs { lane.cur } else { any };
                if lane.phase == Phase::Body && !runs {
                    held.push((l, self.lane_state(l)));
                }
            }
            self.kernel
                .compress(&mut self.state, F::WORDS, F::BLOCK, &ptrs[..n], 1);
            for (l, s) in &held {
                self.set_lane_state(*l, s);
            }
            for (l, lane) in self.lanes.iter_mut().enumerate() {
                if lane.phase == Phase::Body && delay[l] <= t {
                    lane.cur = &lane.cur[F::BLOCK..];
                }
            }
        }
        for lane in &mut self.lanes {
            if lane.phase == Phase::Body {
                lane.due = self.clock + lane.cur.len() / F::BLOCK;
            }
        }
    }

    /// One kernel call, up to the clock at which the first lane is due; returns the
    /// lanes due then (one bit each).
    fn step(&mut self) -> u64 {
        // The pointer array lives on the stack; size it to the kernel so each call
        // initialises only as many entries as it has lanes.
        match self.lanes.len() {
            0..=8 => self.step_n::<8>(),
            9..=16 => self.step_n::<16>(),
            17..=32 => self.step_n::<32>(),
            _ => self.step_n::<MAX_LANES>(),
        }
    }

    fn step_n<const N: usize>(&mut self) -> u64 {
        let n = self.lanes.len();
        let (mut first, mut due) = (0, usize::MAX);
        for (l, lane) in self.lanes.iter().enumerate() {
            if lane.due < due {
                (first, due) = (l, lane.due);
            }
        }
        assert!(due != usize::MAX, "step needs a busy lane");
        let nblocks = due - self.clock;
        let mut ptrs: [&[u8]; N] = [&[]; N];
        for (p, lane) in ptrs.iter_mut().zip(&self.lanes) {
            *p = lane.cur;
        }
        if self.odd != 0 {
            let tail = |l: usize| {
                let lane = &self.lanes[l];
                &self.tails[l][lane.pos..lane.end]
            };
            // Idle lanes read a busy lane's bytes; their state is garbage and never read.
            let any = match self.lanes[first].phase {
                Phase::Tail => tail(first),
                _ => self.lanes[first].cur,
            };
            for l in bits_of(self.odd) {
                ptrs[l] = match self.lanes[l].phase {
                    Phase::Tail => tail(l),
                    _ => any,
                };
            }
        }
        self.kernel
            .compress(&mut self.state, F::WORDS, F::BLOCK, &ptrs[..n], nblocks);
        let used = nblocks * F::BLOCK;
        let mut due_now = 0u64;
        for (l, lane) in self.lanes.iter_mut().enumerate() {
            lane.cur = lane.cur.get(used..).unwrap_or_default();
            lane.pos += used;
            due_now |= u64::from(lane.due == due) << l;
        }
        self.clock = due;
        due_now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::{Compress, Family, Kernels};
    use crate::isa::Features;
    use crate::lanes::Plain;
    use crate::md5::{Md5, IV};
    use std::cell::Cell;

    thread_local! {
        /// Lane-blocks the counting kernel was asked to run (busy or not).
        static SLOTS: Cell<usize> = const { Cell::new(0) };
    }

    /// An 8-lane scalar kernel that counts lane-blocks, to measure how full the lanes are.
    struct Counting;

    #[allow(unsafe_code)] // an `unsafe fn` of the trait; the body is safe code
    impl Plain<u32> for Counting {
        type Token = ();

        unsafe fn compress(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
            SLOTS.with(|c| c.set(c.get() + blocks.len() * nblocks));
            crate::testing::portable_lanes::<Md5>("p8", 8, 8.0).compress(
                state,
                Md5::WORDS,
                Md5::BLOCK,
                blocks,
                nblocks,
            );
        }
    }

    /// The counting kernel and the portable single stream, to narrow to.
    fn counting() -> [LaneKernel<u32>; 2] {
        let k = LaneKernel::new::<Counting>((), "count8", 8, 8.0);
        [Md5::single(Features::PORTABLE).kernel, k]
    }

    /// MD5's portable single-stream compression: the reference for jobs.
    fn portable() -> Compress<Md5> {
        Md5::single(Features::PORTABLE).compress
    }

    /// Runs `msgs` on the counting kernel (narrowing allowed); returns the lane-blocks
    /// used, after checking every digest.
    fn slots_for(msgs: &[impl AsRef<[u8]>]) -> usize {
        let [one, k] = counting();
        SLOTS.with(|c| c.set(0));
        let mut got = vec![None; msgs.len()];
        run::<Md5>(
            &[one, k],
            k,
            true,
            msgs.iter()
                .enumerate()
                .map(|(i, m)| (i, Job::message(IV, m.as_ref()))),
            |i, s| got[i] = Some(*s),
        );
        for (m, g) in msgs.iter().zip(&got) {
            let want = Job::<Md5>::message(IV, m.as_ref()).run_single(portable());
            assert_eq!(*g, Some(want), "{} messages", msgs.len());
        }
        SLOTS.with(|c| c.get())
    }

    /// Equal messages of 200 blocks (with padding), laid out `EQUAL_STRIDE` apart in one
    /// buffer.
    const EQUAL_LEN: usize = 200 * 64 - 20;
    /// 201 cache lines: consecutive messages start in different L1 set classes, so no
    /// lane is staggered (a delay costs lane-blocks, and where separate allocations
    /// land is up to the allocator: CI's once collided).
    const EQUAL_STRIDE: usize = 201 * 64;

    fn equal_buffer(n: usize) -> Vec<u8> {
        (0..n * EQUAL_STRIDE)
            .map(|b| (b / EQUAL_STRIDE) as u8)
            .collect()
    }

    fn equal_messages(buf: &[u8]) -> Vec<&[u8]> {
        buf.chunks(EQUAL_STRIDE).map(|m| &m[..EQUAL_LEN]).collect()
    }

    /// 9..=16 equal messages on 8 lanes: the tail plan keeps the lanes busy, where
    /// running the extra messages afterwards would nearly double the lane-blocks. (It may
    /// make the lanes up to 1/8 longer than the shortest plan to cut fewer pieces.)
    #[test]
    fn equal_messages_share_the_lanes() {
        for n in 9usize..=16 {
            let buf = equal_buffer(n);
            let msgs = equal_messages(&buf);
            let need = n * 200;
            let slots = slots_for(&msgs);
            let shortest = need.div_ceil(8);
            assert!(
                slots <= (shortest + shortest / 8 + 1) * 8,
                "{n} messages: {slots} lane-blocks for {need}"
            );
        }
    }

    /// Equal messages, a multiple of the lanes: refilling lanes as they free up is
    /// already balanced, so no plan is built (building one cost ~5% of 64 x 16 KiB MD5
    /// on x2, an Intel Xeon); one message more gets one.
    #[test]
    fn balanced_refills_build_no_plan() {
        for (n, plans) in [(16, 0), (24, 0), (9, 1), (17, 1)] {
            let buf = equal_buffer(n);
            let msgs = equal_messages(&buf);
            let before = (PLANS.get(), STAGGERED.get());
            let slots = slots_for(&msgs);
            assert_eq!(PLANS.get() - before.0, plans, "{n} messages");
            assert_eq!(STAGGERED.get(), before.1, "{n} messages");
            if plans == 0 {
                assert_eq!(slots, n * 200, "{n} messages");
            }
        }
    }

    /// 63 equal jobs on 32 lanes: two whole jobs a lane (1.6% longer than the shortest
    /// plan) beats the shortest plan, which cuts a piece at nearly every lane; and
    /// 33 jobs still get cut, since two whole jobs a lane would take nearly twice as long.
    #[test]
    fn plan_length_weighs_splits_against_length() {
        let k = crate::testing::portable_lanes::<crate::sha256::Sha256>("p32", 32, 6.2);
        let left = vec![257; 63];
        let t = plan_length(&k, 64, &left, (63 * 257usize).div_ceil(32)).unwrap();
        // Lengths are tried in steps of 1/128 of the shortest (3 blocks here).
        assert!((514..517).contains(&t), "{t}");
        assert_eq!(splits(&left, 32, t, MIN_PIECE), Some(0));
        let left = vec![257; 33];
        let t = plan_length(&k, 64, &left, (33 * 257usize).div_ceil(32)).unwrap();
        assert!(t < 300 && splits(&left, 32, t, MIN_PIECE) > Some(0), "{t}");
    }

    /// `pack` with random job sizes: each job's pieces add up to it, only a split job's
    /// two parts are cut, both at least `MIN_PIECE` long, its first part ends before
    /// its last part starts, and no lane runs past `t_end`.
    #[test]
    fn pack_keeps_pieces_whole_and_ordered() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..2000 {
            let n = rng.random_range(1..=64);
            let jobs = rng.random_range(1..=n);
            let left: Vec<usize> = (0..jobs).map(|_| rng.random_range(1..600)).collect();
            let total: usize = left.iter().sum();
            let t_min = total.div_ceil(n).max(*left.iter().max().unwrap());
            for (t_end, min_piece) in [
                (t_min, 1),
                (t_min, MIN_PIECE),
                (t_min + t_min / 8, MIN_PIECE),
            ] {
                let Some(plan) = pack(&left, n, t_end, min_piece) else {
                    assert!(min_piece > 1, "wrap-around must always fit");
                    continue;
                };
                // (lane, start, len, is first part) of each job's pieces.
                let mut parts: Vec<Vec<(usize, usize, usize, bool)>> = vec![Vec::new(); jobs];
                // A whole piece runs what the job's first part (if any) leaves.
                let mut rest = left.clone();
                for p in plan.pieces.iter().filter(|p| p.cap != usize::MAX) {
                    assert!(p.cap < rest[p.job]);
                    rest[p.job] -= p.cap;
                }
                for (l, q) in (0..n).map(|l| plan.lane(l)).enumerate() {
                    let mut t = 0;
                    for p in q {
                        let len = if p.cap == usize::MAX {
                            rest[p.job]
                        } else {
                            p.cap
                        };
                        parts[p.job].push((l, t, len, p.cap != usize::MAX));
                        t += len;
                    }
                    assert!(t <= t_end, "lane {l} runs to {t} > {t_end}");
                }
                for (j, ps) in parts.iter().enumerate() {
                    match ps[..] {
                        [(_, _, len, false)] => assert_eq!(len, left[j]),
                        [(_, s_last, last, false), (_, s_first, first, true)] => {
                            assert_eq!(first + last, left[j]);
                            assert_eq!(s_first, 0);
                            assert!(
                                first <= s_last,
                                "job {j}: first part ends after last starts"
                            );
                            assert!(min_piece.min(left[j]) <= first.min(last));
                        }
                        _ => panic!("job {j} cut into {ps:?}"),
                    }
                }
            }
        }
    }

    /// Random long and short messages, so the tail plan meets splits, jobs already in
    /// their padding and jobs that end inside a planned piece.
    #[test]
    fn random_batches_through_the_plan() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(77);
        for _ in 0..60 {
            let n = rng.random_range(1..40);
            let msgs: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = if rng.random_bool(0.7) {
                        rng.random_range(8_000..40_000)
                    } else {
                        rng.random_range(0..200)
                    };
                    (0..len).map(|_| rng.random()).collect()
                })
                .collect();
            slots_for(&msgs);
        }
    }

    /// A job's segments as (start, blocks) in a buffer, and its tail's length if it ends.
    type SegmentedJob = (Vec<(usize, usize)>, Option<usize>);

    /// Jobs in up to `SEGS` segments (empty, one block, long), with and without padding,
    /// through the plan: the same states as each job on the single-stream path.
    #[test]
    fn jobs_in_many_segments() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(78);
        let data: Vec<u8> = (0..300_000).map(|_| rng.random()).collect();
        let counting = counting();
        // And this machine's kernels at the active level.
        let active = Kernels::<Md5>::new(crate::isa::active()).lanes;
        for round in 0..120 {
            let kernels = if round % 2 == 0 {
                &counting[..]
            } else {
                &active
            };
            let n = rng.random_range(1..40);
            let specs: Vec<SegmentedJob> = (0..n)
                .map(|_| {
                    let segs = (0..rng.random_range(0..=SEGS))
                        .map(|_| {
                            let blocks = [0, 1, rng.random_range(2..400)][rng.random_range(0..3)];
                            (rng.random_range(0..1000) * 64, blocks)
                        })
                        .collect();
                    (segs, rng.random_bool(0.5).then(|| rng.random_range(0..64)))
                })
                .collect();
            let job = |(parts, tail): &SegmentedJob| {
                let mut segs: [&[u8]; SEGS] = [&[]; SEGS];
                for (seg, &(at, blocks)) in segs.iter_mut().zip(parts) {
                    *seg = &data[at..at + blocks * 64];
                }
                let fin = tail.map(|t| (&data[..t], 12_345));
                Job::<Md5> {
                    state: IV,
                    segs,
                    fin,
                }
            };
            let mut got = vec![None; n];
            run::<Md5>(
                kernels,
                best(kernels, n),
                true,
                specs.iter().map(job).enumerate(),
                |i, s| got[i] = Some(*s),
            );
            for (spec, g) in specs.iter().zip(&got) {
                assert_eq!(*g, Some(job(spec).run_single(portable())), "{spec:?}");
            }
        }
    }

    /// Ragged lengths (empty, sub-block, two-block padding, long) in every tail shape.
    #[test]
    fn ragged_tails_are_exact() {
        let lens = [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 4096, 9999];
        for n in 1..=30 {
            let msgs: Vec<Vec<u8>> = (0..n)
                .map(|i| {
                    (0..lens[(i * 7) % lens.len()] + i)
                        .map(|b| (b * 31 + i) as u8)
                        .collect()
                })
                .collect();
            slots_for(&msgs);
        }
    }
}
