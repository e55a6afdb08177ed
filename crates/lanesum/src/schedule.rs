//! The lane scheduler shared by `hash_many` and the lane engine.
//!
//! A [`Job`] is one message's share of work: whole blocks in up to three segments (an
//! engine stream's buffered blocks, a block completed from its partial buffer, and the
//! caller's slice, all hashed without copying), then optionally the final padding. The
//! scheduler keeps every lane busy: a lane whose job ends takes the next one at once,
//! padding is done in-lane from a small per-lane tail buffer, and once no job is waiting
//! it moves the remaining ones to whichever kernel is fastest for that many (down to
//! SHA-NI or scalar single-stream).

use crate::lanes::LaneKernel;
use crate::merkle_damgard::{pad_final, Family, MAX_BLOCK};

/// Upper bound on lanes of any kernel (AVX-512 MD5 with 8 interleaved sets).
pub(crate) const MAX_LANES: usize = 128;

/// One message's work for the lanes.
pub(crate) struct Job<'a, F: Family> {
    /// Chaining state to start from.
    pub state: F::State,
    /// Whole blocks, hashed in this order; any may be empty.
    pub segs: [&'a [u8]; 3],
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
            segs: [&msg[..body], &[], &[]],
            fin: Some((&msg[body..], msg.len() as u64)),
        }
    }

    /// Hash the job on the single-stream path; returns the final state.
    pub(crate) fn run_single(self) -> F::State {
        let mut state = self.state;
        for seg in self.segs {
            if !seg.is_empty() {
                F::compress(&mut state, seg);
            }
        }
        if let Some((tail, total)) = self.fin {
            let mut last = [0u8; 2 * MAX_BLOCK];
            let used = pad_final::<F>(tail, total, &mut last);
            F::compress(&mut state, &last[..used]);
        }
        state
    }
}

/// Where a lane is in its job.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    /// Whole blocks: `cur` is what is left of the current segment, `next` the later ones.
    Body,
    /// The padded final block(s) in the lane's tail buffer; `pos..end` still to do.
    Tail,
}

#[derive(Clone, Copy)]
struct Lane<'a> {
    id: usize,
    phase: Phase,
    cur: &'a [u8],
    next: [&'a [u8]; 2],
    fin: Option<(&'a [u8], u64)>,
    pos: usize,
    end: usize,
}

const IDLE: Lane<'static> = Lane {
    id: 0,
    phase: Phase::Idle,
    cur: &[],
    next: [&[], &[]],
    fin: None,
    pos: 0,
    end: 0,
};

/// Runs `jobs` (each with a caller-chosen id) through `kernels`, starting on `start`;
/// `done(id, state)` receives each job's final state as it ends. With `narrow`, the
/// kernel is switched to a narrower, faster one once the queue is empty; without it
/// (forced kernels, for tests) every job runs on `start` and jobs fill lanes in order.
pub(crate) fn run<'a, F: Family>(
    kernels: &[LaneKernel<F::Word>],
    start: LaneKernel<F::Word>,
    narrow: bool,
    jobs: impl ExactSizeIterator<Item = (usize, Job<'a, F>)>,
    done: impl FnMut(usize, &F::State),
) {
    let mut s = Lanes::<F, _> {
        kernel: start,
        state: Vec::new(),
        lanes: Vec::new(),
        tails: Vec::new(),
        done,
    };
    s.resize(start);
    let mut queue = jobs;
    loop {
        for l in 0..s.lanes.len() {
            if s.lanes[l].phase == Phase::Idle {
                match queue.next() {
                    Some((id, job)) => s.start(l, id, job),
                    None => break,
                }
            }
        }
        let busy = s.lanes.iter().filter(|l| l.phase != Phase::Idle).count();
        if busy == 0 {
            break;
        }
        if narrow && queue.len() == 0 {
            // Only kernels wide enough for every busy lane: nothing is left to refill.
            let wide: Vec<_> = kernels
                .iter()
                .copied()
                .filter(|k| k.lanes >= busy)
                .collect();
            let k = best(&wide, busy);
            if k.rate_with(busy) > 1.05 * s.kernel.rate_with(busy) {
                s.resize(k);
            }
        }
        s.step();
    }
}

/// The kernel with the best throughput for `busy` messages; fewer lanes on a tie.
pub(crate) fn best<W: Copy>(kernels: &[LaneKernel<W>], busy: usize) -> LaneKernel<W> {
    let busy = busy.max(1);
    *kernels
        .iter()
        .max_by(|a, b| {
            a.rate_with(busy)
                .partial_cmp(&b.rate_with(busy))
                .unwrap()
                .then(b.lanes.cmp(&a.lanes))
        })
        .expect("the single-stream kernel is always there")
}

struct Lanes<'a, F: Family, D> {
    kernel: LaneKernel<F::Word>,
    /// Word-major state of every lane (see `lanes`).
    state: Vec<F::Word>,
    lanes: Vec<Lane<'a>>,
    tails: Vec<[u8; 2 * MAX_BLOCK]>,
    done: D,
}

impl<'a, F: Family, D: FnMut(usize, &F::State)> Lanes<'a, F, D> {
    /// Switch to `kernel`, moving the busy lanes to the first columns of the new layout.
    fn resize(&mut self, kernel: LaneKernel<F::Word>) {
        assert!(kernel.lanes <= MAX_LANES);
        let old_n = self.lanes.len();
        let busy: Vec<usize> = (0..old_n)
            .filter(|&l| self.lanes[l].phase != Phase::Idle)
            .collect();
        assert!(busy.len() <= kernel.lanes);
        let n = kernel.lanes;
        let mut state = vec![F::Word::default(); F::WORDS * n];
        let mut lanes = vec![IDLE; n];
        let mut tails = vec![[0u8; 2 * MAX_BLOCK]; n];
        for (new, &old) in busy.iter().enumerate() {
            for w in 0..F::WORDS {
                state[w * n + new] = self.state[w * old_n + old];
            }
            lanes[new] = self.lanes[old];
            tails[new] = self.tails[old];
        }
        self.kernel = kernel;
        self.state = state;
        self.lanes = lanes;
        self.tails = tails;
    }

    /// Put job `id` into lane `l`.
    fn start(&mut self, l: usize, id: usize, job: Job<'a, F>) {
        let n = self.lanes.len();
        for (w, &v) in job.state.as_ref().iter().enumerate() {
            self.state[w * n + l] = v;
        }
        self.lanes[l] = Lane {
            id,
            phase: Phase::Body,
            cur: job.segs[0],
            next: [job.segs[1], job.segs[2]],
            fin: job.fin,
            pos: 0,
            end: 0,
        };
        self.advance(l);
    }

    /// Moves lane `l` past empty segments: to its next blocks, its padding, or its end.
    #[inline(always)]
    fn advance(&mut self, l: usize) {
        let lane = &mut self.lanes[l];
        if lane.phase == Phase::Body {
            while lane.cur.is_empty() && lane.next.iter().any(|s| !s.is_empty()) {
                lane.cur = lane.next[0];
                lane.next = [lane.next[1], &[]];
            }
            if !lane.cur.is_empty() {
                return;
            }
            if let Some((tail, total)) = lane.fin {
                let used = pad_final::<F>(tail, total, &mut self.tails[l]);
                lane.phase = Phase::Tail;
                lane.pos = 0;
                lane.end = used;
                return;
            }
        } else if lane.pos < lane.end {
            return;
        }
        let n = self.lanes.len();
        let mut s = F::State::default();
        for (w, v) in s.as_mut().iter_mut().enumerate() {
            *v = self.state[w * n + l];
        }
        (self.done)(self.lanes[l].id, &s);
        self.lanes[l] = IDLE;
    }

    /// One kernel call: as many blocks as the lane nearest its segment's end has left.
    fn step(&mut self) {
        // The pointer array lives on the stack; size it to the kernel so each call
        // initialises only as many entries as it has lanes.
        match self.lanes.len() {
            0..=8 => self.step_n::<8>(),
            9..=16 => self.step_n::<16>(),
            17..=32 => self.step_n::<32>(),
            33..=64 => self.step_n::<64>(),
            _ => self.step_n::<MAX_LANES>(),
        }
    }

    fn step_n<const N: usize>(&mut self) {
        let n = self.lanes.len();
        let nblocks = self
            .lanes
            .iter()
            .filter_map(|l| match l.phase {
                Phase::Idle => None,
                Phase::Body => Some(l.cur.len()),
                Phase::Tail => Some(l.end - l.pos),
            })
            .min()
            .expect("step needs a busy lane")
            / F::BLOCK;
        let mut ptrs: [&[u8]; N] = [&[]; N];
        let mut any: &[u8] = &[];
        for (l, lane) in self.lanes.iter().enumerate() {
            ptrs[l] = match lane.phase {
                Phase::Idle => continue,
                Phase::Body => lane.cur,
                Phase::Tail => &self.tails[l][lane.pos..lane.end],
            };
            any = ptrs[l];
        }
        // Idle lanes read a busy lane's bytes; their state is garbage and never read.
        for (l, lane) in self.lanes.iter().enumerate() {
            if lane.phase == Phase::Idle {
                ptrs[l] = any;
            }
        }
        self.kernel
            .compress(&mut self.state, F::WORDS, F::BLOCK, &ptrs[..n], nblocks);
        let used = nblocks * F::BLOCK;
        for l in 0..n {
            let lane = &mut self.lanes[l];
            match lane.phase {
                Phase::Idle => continue,
                Phase::Body => {
                    lane.cur = &lane.cur[used..];
                    if !lane.cur.is_empty() {
                        continue;
                    }
                }
                Phase::Tail => lane.pos += used,
            }
            self.advance(l);
        }
    }
}
