//! One hash family's share of an engine: the streams whose blocks wait for lanes, and the
//! rounds that hash them.
//!
//! Each stream owns a slot (chaining state plus at most [`BATCH`] bytes of whole blocks not
//! yet hashed) behind its own mutex. A writer that is not alone copies its blocks into its
//! slot and returns; a writer whose slot is full, or that is alone, or that finalizes, runs
//! a *round*: it claims waiting slots it can lock without blocking (a core's share of the
//! writers, at most the widest kernel's lanes) and hashes them together with its own data,
//! its new bytes read in place. So no central thread exists, and rounds on different
//! cores work on disjoint slots.
//!
//! With more writer threads than cores, a full writer would mostly find nobody waiting
//! (the others are descheduled) and hash alone; so before a round it yields the CPU for as
//! long as that brings new waiting slots. A yield that brings none ends the wait: nobody
//! waits for companions that aren't running.
//!
//! Locking: a thread blocks only on its own slot (while another thread's round hashes it,
//! which is the back-pressure) and on the short `waiting` list lock. Other slots are only
//! ever `try_lock`ed, so no lock cycle can form. `parking_lot` mutexes do not poison: a
//! panic elsewhere never makes a slot unusable.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{ArcMutexGuard, Mutex, RawMutex};

use crate::isa::Features;
use crate::lanes::LaneKernel;
use crate::merkle_damgard::{self, digest_of, Family, MAX_BLOCK};
use crate::schedule::{self, best, Job};
use crate::Digest;

/// Whole blocks a stream may hold unhashed. Small enough that a 16-lane round stays in
/// L2, large enough that a kernel call covers many blocks (16 to 256 KiB measured alike
/// for 32 streams of 32 KiB writes). Under Miri, small enough that small tests fill it.
pub(crate) const BATCH: usize = if cfg!(miri) { 4096 } else { 64 * 1024 };

/// Writes smaller than this are gathered in the stream itself before they reach the slot,
/// so tiny writes cost a copy, not a lock.
const STAGE: usize = 1024;

type Slot<F> = Arc<Mutex<SlotData<F>>>;
type Claimed<F> = ArcMutexGuard<RawMutex, SlotData<F>>;

pub(crate) struct SlotData<F: Family> {
    state: F::State,
    /// Whole blocks written but not hashed yet.
    buf: Vec<u8>,
    /// An entry for this slot is in `Pool::waiting`.
    queued: bool,
}

pub(crate) struct Pool<F: Family> {
    kernels: Vec<LaneKernel<F::Word>>,
    widest: usize,
    /// Cores that can run rounds at once.
    cores: usize,
    /// Slots with buffered blocks, in the order they started waiting. May hold stale
    /// entries (slots hashed since, or dropped); rounds discard those.
    waiting: Mutex<Vec<Slot<F>>>,
    /// Streams that have written and not finished. A lone writer hashes at once: there is
    /// nobody to share lanes with, and copying would only cost.
    writers: AtomicUsize,
}

impl<F: Family> Pool<F> {
    pub(crate) fn new(features: Features) -> Self {
        let kernels = merkle_damgard::kernels::<F>(features);
        let widest = kernels.iter().map(|k| k.lanes).max().unwrap_or(1);
        Pool {
            kernels,
            widest,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            waiting: Mutex::new(Vec::new()),
            writers: AtomicUsize::new(0),
        }
    }

    pub(crate) fn writers(&self) -> usize {
        self.writers.load(Ordering::Relaxed)
    }

    /// Streams one round should take: the widest kernel's lanes, but no more than a
    /// core's share of the writers, so that every core can run a round of its own rather
    /// than wait while one round holds every stream.
    fn round_lanes(&self) -> usize {
        self.writers().div_ceil(self.cores).clamp(1, self.widest)
    }

    #[cfg(test)]
    pub(crate) fn waiting_len(&self) -> usize {
        self.waiting.lock().len()
    }

    /// Take in whole blocks `head` then `body` for `slot`'s stream.
    fn absorb<'d>(&self, slot: &Slot<F>, mut head: &'d [u8], mut body: &'d [u8]) {
        let mut me = slot.lock_arc();
        loop {
            let n = head.len() + body.len();
            if me.buf.len() + n > BATCH {
                me = self.gather(slot, me, n);
            }
            if me.buf.len() + n > BATCH || self.writers() <= 1 {
                // A round may hash only part of the new bytes (it evens lanes out); the
                // rest is buffered, or goes to the next round if it is over a batch.
                let (m, done) = self.round(slot, me, [head, body], None);
                me = m;
                (head, body) = skip(head, body, done);
                if head.is_empty() && body.is_empty() {
                    return;
                }
                continue;
            }
            me.buf.extend_from_slice(head);
            me.buf.extend_from_slice(body);
            if self.queue(slot, &mut me) >= self.round_lanes() {
                let _ = self.round(slot, me, [&[], &[]], None);
            }
            return;
        }
    }

    /// Put `me` (with buffered blocks) on the waiting list; returns the list's length.
    fn queue(&self, slot: &Slot<F>, me: &mut Claimed<F>) -> usize {
        if me.buf.capacity() == 0 {
            me.buf.reserve_exact(BATCH);
        }
        let mut waiting = self.waiting.lock();
        if !me.queued {
            me.queued = true;
            waiting.push(Arc::clone(slot));
        }
        waiting.len()
    }

    /// Before a round with too few waiting slots to fill the lanes, let other writers
    /// that are ready to run (more threads than cores) bring their blocks: yield the CPU
    /// while that makes progress. Returns `me` relocked, possibly hashed meanwhile by
    /// another round so that `n` more bytes fit again.
    ///
    /// Never waits for writers that aren't running: a yield that brings nothing new ends
    /// it, so a lone or idle-neighboured stream pays one `sched_yield` per batch.
    fn gather(&self, slot: &Slot<F>, mut me: Claimed<F>, n: usize) -> Claimed<F> {
        let want = self.round_lanes();
        let mut seen = self.waiting.lock().len();
        // Our own entry (if any) counts: it joins the round either way.
        while seen + usize::from(!me.queued) < want {
            drop(me);
            std::thread::yield_now();
            me = slot.lock_arc();
            let now = self.waiting.lock().len();
            if me.buf.len() + n <= BATCH || now <= seen {
                break;
            }
            seen = now;
        }
        me
    }

    /// Hash `me`'s buffered blocks, then `more`, then `fin` (the final padding, if any),
    /// together with every waiting slot this thread can claim. Returns `me` and how many
    /// bytes of `more` were hashed: without `fin`, only as many as keep `me`'s lane no
    /// longer than the longest other, since the excess would run alone on the
    /// single-stream path while every other lane idles.
    fn round(
        &self,
        slot: &Slot<F>,
        mut me: Claimed<F>,
        more: [&[u8]; 2],
        fin: Option<(&[u8], u64)>,
    ) -> (Claimed<F>, usize) {
        let mut others = self.claim(slot, &mut me);
        let mut more = more;
        if fin.is_none() && !others.is_empty() {
            let longest = others.iter().map(|o| o.buf.len()).max().unwrap_or(0);
            let room = longest.saturating_sub(me.buf.len());
            let take0 = more[0].len().min(room);
            let take1 = more[1].len().min(room - take0);
            more = [&more[0][..take0], &more[1][..take1]];
        }
        let hashed = more[0].len() + more[1].len();
        let own = Job {
            state: me.state,
            segs: [&me.buf, more[0], more[1]],
            fin,
        };
        if others.is_empty() {
            me.state = own.run_single();
        } else {
            let mut states = vec![F::State::default(); others.len() + 1];
            let jobs: Vec<Job<F>> = std::iter::once(own)
                .chain(others.iter().map(|o| Job {
                    state: o.state,
                    segs: [&o.buf, &[], &[]],
                    fin: None,
                }))
                .collect();
            let start = best(&self.kernels, states.len());
            schedule::run::<F>(
                &self.kernels,
                start,
                true,
                jobs.into_iter().enumerate(),
                |i, s| states[i] = *s,
            );
            me.state = states[0];
            for (o, s) in others.iter_mut().zip(&states[1..]) {
                o.state = *s;
                o.buf.clear();
            }
        }
        me.buf.clear();
        (me, hashed)
    }

    /// Lock and unqueue up to `round_lanes() - 1` waiting slots other than `me`'s, never blocking.
    fn claim(&self, slot: &Slot<F>, me: &mut Claimed<F>) -> Vec<Claimed<F>> {
        let mut waiting = self.waiting.lock();
        me.queued = false;
        if waiting.is_empty() {
            return Vec::new();
        }
        let lanes = self.round_lanes();
        let mut got = Vec::new();
        for s in std::mem::take(&mut *waiting) {
            if Arc::ptr_eq(&s, slot) {
                continue; // our own entry: we hash our blocks now
            }
            if got.len() + 1 >= lanes {
                waiting.push(s);
                continue;
            }
            match s.try_lock_arc() {
                Some(mut o) => {
                    if !o.buf.is_empty() {
                        o.queued = false;
                        got.push(o);
                    }
                    // Empty: a stale entry (dropped stream, or already hashed).
                }
                // Its owner or another round holds it: leave it for a later round.
                None => waiting.push(s),
            }
        }
        got
    }
}

/// A stream of one Merkle–Damgård family whose blocks go through a [`Pool`].
pub(crate) struct Stream<F: Family> {
    pool: Arc<Pool<F>>,
    slot: Slot<F>,
    /// Bytes not yet handed to the slot: fewer than `STAGE`.
    part: [u8; STAGE],
    part_len: usize,
    total: u64,
    /// Counted in `pool.writers`.
    writing: bool,
}

impl<F: Family> Stream<F> {
    pub(crate) fn new(pool: Arc<Pool<F>>, iv: F::State) -> Self {
        Stream {
            pool,
            slot: Arc::new(Mutex::new(SlotData {
                state: iv,
                buf: Vec::new(),
                queued: false,
            })),
            part: [0; STAGE],
            part_len: 0,
            total: 0,
            writing: false,
        }
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.total = self.total.wrapping_add(data.len() as u64);
        if !self.writing {
            self.writing = true;
            self.pool.writers.fetch_add(1, Ordering::Relaxed);
        }
        if self.part_len + data.len() < STAGE {
            self.part[self.part_len..self.part_len + data.len()].copy_from_slice(data);
            self.part_len += data.len();
            return;
        }
        // Complete the staged bytes to a whole block: `STAGE` is a multiple of every block
        // size and `part_len + data.len() >= STAGE`, so `data` has enough.
        let fill = self.part_len.next_multiple_of(F::BLOCK) - self.part_len;
        self.part[self.part_len..self.part_len + fill].copy_from_slice(&data[..fill]);
        let head = self.part_len + fill;
        data = &data[fill..];
        let whole = data.len() - data.len() % F::BLOCK;
        self.pool
            .absorb(&self.slot, &self.part[..head], &data[..whole]);
        let rest = &data[whole..];
        self.part[..rest.len()].copy_from_slice(rest);
        self.part_len = rest.len();
    }

    /// Bytes held unhashed in the slot (not counting the stage).
    #[cfg(test)]
    pub(crate) fn buffered(&self) -> usize {
        self.slot.lock().buf.len()
    }

    pub(crate) fn finalize(self, len: usize) -> Digest {
        let whole = self.part_len - self.part_len % F::BLOCK;
        let me = self.slot.lock_arc();
        let (me, _) = self.pool.round(
            &self.slot,
            me,
            [&self.part[..whole], &[]],
            Some((&self.part[whole..self.part_len], self.total)),
        );
        digest_of::<F>(&me.state, len)
    }
}

impl<F: Family> Drop for Stream<F> {
    fn drop(&mut self) {
        if self.writing {
            self.pool.writers.fetch_sub(1, Ordering::Relaxed);
        }
        // Free the batch now; a stale `waiting` entry may keep the (empty) slot a while.
        self.slot.lock().buf = Vec::new();
    }
}

const _: () = assert!(STAGE.is_multiple_of(MAX_BLOCK) && STAGE <= BATCH);

/// `head ++ body` without its first `n` bytes.
fn skip<'a>(head: &'a [u8], body: &'a [u8], n: usize) -> (&'a [u8], &'a [u8]) {
    if n <= head.len() {
        (&head[n..], body)
    } else {
        (&[], &body[n - head.len()..])
    }
}
