//! The lanes of one batch: which job each lane runs and where it is in it, refilled as
//! jobs end, narrowed as the queue empties, staggered at the start, and balanced at the
//! end (`tail`).

#[cfg(test)]
use std::cell::Cell;

use super::choose::{best, best_by, plan_min_blocks};
use super::job::{blocks_of, segs, Job, SEGS};
use super::spare::{keep_tails, take_tails, SPARE_PADS};
use super::tail::{self, shortest_plan};
use crate::family::{self, Family, Kernels, MAX_BLOCK};
use crate::lanes::{plan_ns, LaneKernel, MAX_LANES};
use crate::merkle_damgard::pad_final;

/// Blocks of its current segment a lane needs per block of delay before
/// [`Lanes::stagger`] delays it: the delayed lanes' work is wasted, so at most ~1/32 of
/// it.
const STAGGER_MIN_RATIO: usize = 32;

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

/// `jobs` through the best kernel of `kernels` for their number, in lanes, or one after
/// another on the single-stream path when that is best (one job, or too few to pay).
pub(crate) fn run_best<'a, F: Family>(
    kernels: &Kernels<F>,
    jobs: Vec<(usize, Job<'a, F>)>,
    mut done: impl FnMut(usize, &F::State),
) {
    let busy = jobs.len();
    let k = kernels.few_over(best(&kernels.lanes, busy), busy, || {
        jobs.iter().map(|(_, j)| j.block_count()).min().unwrap_or(0)
    });
    if k.lanes == 1 {
        for (i, job) in jobs {
            done(i, &job.run_single(kernels.single));
        }
        return;
    }
    run::<F>(&kernels.lanes, k, true, jobs.into_iter(), done);
}

/// One chunk of a stream for [`run_chunks`]: the stream's id and chaining state, then
/// its carried bytes completed to a block (`head[..head_len]`) and the chunk's whole
/// blocks after it, read in place (as `merkle_damgard::split_chunk` gives them).
pub(crate) type Chunk<'a, F> = (
    usize,
    <F as Family>::State,
    ([u8; MAX_BLOCK], usize, &'a [u8]),
);

/// One pass over a chunk of each of several streams, through [`run_best`], longest
/// first: the end of the pass, where lanes run empty, then holds the short chunks.
pub(crate) fn run_chunks<F: Family>(
    kernels: &Kernels<F>,
    mut work: Vec<Chunk<'_, F>>,
    done: impl FnMut(usize, &F::State),
) {
    work.sort_by_key(|(_, _, (_, head_len, body))| std::cmp::Reverse(head_len + body.len()));
    let jobs = work
        .iter()
        .map(|(i, state, (head, head_len, body))| {
            let job = Job {
                state: *state,
                segs: segs([&head[..*head_len], body]),
                fin: None,
            };
            (*i, job)
        })
        .collect();
    run_best(kernels, jobs, done);
}

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
                // The running one is among them even when `kernels` lacks it (one of
                // `Kernels::few`, where the others may all be narrower).
                let busy = s.busy;
                let current = [s.kernel];
                let wide = kernels.iter().chain(&current).filter(|k| k.lanes >= busy);
                let (k, _) = best_by(wide, |k| k.rate_with(busy));
                if k.rate_with(busy) > 1.05 * s.kernel.rate_with(busy) {
                    #[cfg(test)]
                    NARROWED.set(NARROWED.get() + 1);
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
            let blocks = job.block_count();
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

#[cfg(test)]
thread_local! {
    /// Batches whose lanes [`Lanes::stagger`] started apart, on this thread.
    pub(crate) static STAGGERED: Cell<usize> = const { Cell::new(0) };
    /// Balanced plans [`Lanes::run_plan`] ran, on this thread.
    pub(super) static PLANS: Cell<usize> = const { Cell::new(0) };
    /// Kernels switched to a narrower one as jobs ended, on this thread.
    pub(crate) static NARROWED: Cell<usize> = const { Cell::new(0) };
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
        let t_end = tail::run::<F>(&self.kernel, &mut self.state, &parts, &mut slots);
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
