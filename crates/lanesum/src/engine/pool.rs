//! One hash family's share of an engine: the streams whose blocks wait for lanes, and the
//! rounds that hash them.
//!
//! Each stream owns a slot (chaining state plus at most [`BATCH`] bytes of whole blocks not
//! yet hashed) behind its own mutex. A writer that is not alone copies its blocks into its
//! slot and returns; a writer whose slot is full, or that is alone, or that finalizes, runs
//! a *round*: it claims every waiting slot it can lock without blocking (up to the widest
//! kernel's lanes) and hashes them together with its own data, its new bytes read in place.
//! So no thread ever waits for companions, no central thread exists, and rounds on
//! different cores work on disjoint slots.
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

/// Whole blocks a stream may hold unhashed. Small enough that a round of the widest MD5
/// kernel (64 lanes) stays in L2, large enough that a kernel call covers many blocks.
pub(crate) const BATCH: usize = 64 * 1024;

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
            waiting: Mutex::new(Vec::new()),
            writers: AtomicUsize::new(0),
        }
    }

    pub(crate) fn writers(&self) -> usize {
        self.writers.load(Ordering::Relaxed)
    }

    #[cfg(test)]
    pub(crate) fn waiting_len(&self) -> usize {
        self.waiting.lock().len()
    }

    /// Take in whole blocks `head` then `body` for `slot`'s stream.
    fn absorb(&self, slot: &Slot<F>, head: &[u8], body: &[u8]) {
        let mut me = slot.lock_arc();
        let n = head.len() + body.len();
        if me.buf.len() + n > BATCH || self.writers() <= 1 {
            self.round(slot, me, [head, body], None);
            return;
        }
        if me.buf.capacity() == 0 {
            me.buf.reserve_exact(BATCH);
        }
        me.buf.extend_from_slice(head);
        me.buf.extend_from_slice(body);
        let crowd = {
            let mut waiting = self.waiting.lock();
            if !me.queued {
                me.queued = true;
                waiting.push(Arc::clone(slot));
            }
            waiting.len() >= self.widest
        };
        if crowd {
            self.round(slot, me, [&[], &[]], None);
        }
    }

    /// Hash `me`'s buffered blocks, then `more`, then `fin` (the final padding, if any),
    /// together with every waiting slot this thread can claim; returns `me`'s new state.
    fn round(
        &self,
        slot: &Slot<F>,
        mut me: Claimed<F>,
        more: [&[u8]; 2],
        fin: Option<(&[u8], u64)>,
    ) -> F::State {
        let mut others = self.claim(slot, &mut me);
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
        me.state
    }

    /// Lock and unqueue up to `widest - 1` waiting slots other than `me`'s, never blocking.
    fn claim(&self, slot: &Slot<F>, me: &mut Claimed<F>) -> Vec<Claimed<F>> {
        let mut waiting = self.waiting.lock();
        me.queued = false;
        if waiting.is_empty() {
            return Vec::new();
        }
        let mut got = Vec::new();
        for s in std::mem::take(&mut *waiting) {
            if Arc::ptr_eq(&s, slot) {
                continue; // our own entry: we hash our blocks now
            }
            if got.len() + 1 >= self.widest {
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
        let state = self.pool.round(
            &self.slot,
            me,
            [&self.part[..whole], &[]],
            Some((&self.part[whole..self.part_len], self.total)),
        );
        digest_of::<F>(&state, len)
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
