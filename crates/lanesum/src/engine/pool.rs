//! One hash family's share of an engine: the streams whose blocks wait for lanes, and the
//! rounds that hash them.
//!
//! Each stream owns a slot: its chaining state and two halves of a batch of whole blocks,
//! `ready` (full, waiting for a round) and `fill` (being written). A writer copies into
//! `fill`; when it is full it becomes `ready` and goes on the waiting list, and the writer
//! goes on filling. Only a writer with both halves full runs a *round*: it takes every
//! waiting `ready` half it can lock without blocking (a core's share of the writers, at
//! most the widest kernel's lanes; those written on its own CPU, if there are any) and
//! hashes them with its own in one multi-lane call. A round takes a claimed slot's state
//! and half out and unlocks it, so that slot's writer goes on filling meanwhile; a writer
//! that fills up while its half is in a round waits for that round (the back-pressure).
//!
//! A `MultiHasher` copies a write once, not once per algorithm: its streams take the same
//! buffer of whole blocks as a shared half, and each family's rounds read it in place.
//! Owned chunks (`update_bytes`) are not copied at all: a half is then slices of them.
//!
//! Since writers run a half ahead, the halves a round finds are mostly full: every lane
//! has the same work, and nobody waits for companions. There is no central thread, and
//! rounds on different cores work on disjoint slots.
//!
//! Locking: a thread blocks only on its own slot (briefly, or on its condition variable
//! while a round holds its half), on the short `waiting` list lock, and, when a round
//! ends, on the slots that round claimed (their owners never block while holding them).
//! Other slots are only ever `try_lock`ed, so no lock cycle can form. `parking_lot`
//! mutexes do not poison, and a claimed half goes back to its slot even if a round
//! unwinds: a panic elsewhere never makes a slot unusable.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::isa::{self, Features};
use crate::lanes::LaneKernel;
use crate::merkle_damgard::{self, digest_of, Family, MAX_BLOCK};
use crate::schedule::{self, best, segs, Job, SEGS};
use crate::Digest;

/// Whole blocks a stream may hold unhashed (both halves, at their largest).
#[cfg(test)]
pub(crate) const BATCH: usize = 2 * MAX_HALF;

/// Bounds of a half: what a round hashes of each claimed stream. With more writer threads
/// than cores every half costs a thread switch or two, so halves are large, but the
/// halves of all the engine's streams should stay in the last-level cache, so they
/// shrink as streams are added (see [`Pool::half`]). In tests, small enough that every
/// test's streams fill halves often (the logic does not depend on the size).
const MAX_HALF: usize = if cfg!(miri) {
    4096
} else if cfg!(test) {
    8 * 1024
} else {
    128 * 1024
};
const MIN_HALF: usize = MAX_HALF / 8;

/// Bytes of halves the engine's streams should hold between them. Measured with 32 threads
/// of 32 KiB writes: MD5 alone reached 0.57 of `hash_many_par` with 32 KiB halves and 0.70
/// with 128 KiB (fewer switches), while md5+sha1+sha256+sha512 (4 streams per thread)
/// ran 1.95 GiB/s with 32 KiB halves and 1.55 with 128 KiB (cache misses).
const HALVES_BUDGET: usize = if cfg!(test) { 64 << 10 } else { 4 << 20 };

/// Bytes of owned chunks a half holds. `HALVES_BUDGET` keeps the engine's copies in the
/// last-level cache, but chunks are no copies (and a `MultiHasher`'s streams share them),
/// so they fill the largest half: fewer rounds, and with more writer threads than cores,
/// fewer thread switches. 32 MultiHashers of 32 KiB chunks, noisy neighbour: 3.75x the
/// sequential reference with halves of the budget's size, 4.18x with these.
const CHUNKS_HALF: usize = MAX_HALF;

/// Writes smaller than this are gathered in the stream itself before they reach the slot,
/// so tiny writes cost a copy, not a lock.
pub(crate) const STAGE: usize = 1024;

type Slot<F> = Arc<SlotCell<F>>;

/// Whole blocks of one message, handed to the several streams that hash it (a
/// `MultiHasher`'s, one per algorithm) so that none needs a copy of its own.
pub(crate) type SharedHalf = Arc<Vec<u8>>;

/// A half's bytes: the stream's own buffer, a shared one (never appended to: it counts as
/// full), or slices of a caller's owned chunks, hashed where they are.
// Chunks are inline, not boxed: halves live in slots and move one at a time, and boxing
// would allocate for every chunk.
#[allow(clippy::large_enum_variant)]
enum Half {
    Own(Vec<u8>),
    Shared(SharedHalf),
    /// In order, the non-empty ones first: at most a lane job's segments. One may be the
    /// stream's staged bytes completed to whole blocks with a chunk's first bytes, the
    /// only bytes of a chunk that are copied.
    Chunks([Bytes; SEGS]),
}

impl Default for Half {
    fn default() -> Self {
        Half::Own(Vec::new())
    }
}

impl Half {
    /// The bytes, in order, as a job's segments.
    fn segs(&self) -> [&[u8]; SEGS] {
        match self {
            Half::Own(v) => segs([&v[..]]),
            Half::Shared(s) => segs([&s[..]]),
            Half::Chunks(c) => c.each_ref().map(|b| &b[..]),
        }
    }

    /// Its non-empty segments.
    fn parts(&self) -> usize {
        self.segs().iter().filter(|s| !s.is_empty()).count()
    }

    fn len(&self) -> usize {
        self.segs().iter().map(|s| s.len()).sum()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Chunks with room for more: fewer slices than a job has, under `CHUNKS_HALF` bytes.
    fn takes_chunks(&self) -> bool {
        matches!(self, Half::Chunks(_)) && self.parts() < SEGS && self.len() < CHUNKS_HALF
    }

    /// Append `more` (chunks) to these chunks, or put it in place of nothing; gives it
    /// back if that would make more than `CHUNKS_HALF` bytes or `SEGS` slices.
    fn join(&mut self, more: Half) -> Option<Half> {
        if self.is_empty() {
            *self = more;
            return None;
        }
        let n = self.parts();
        let fits = n + more.parts() <= SEGS && self.len() + more.len() <= CHUNKS_HALF;
        match (self, more) {
            (Half::Chunks(have), Half::Chunks(new)) if fits => {
                for (to, from) in have[n..].iter_mut().zip(new) {
                    *to = from;
                }
                None
            }
            (_, more) => Some(more),
        }
    }

    /// Empty it, keeping an own buffer's allocation and letting go of any other.
    fn clear(&mut self) {
        match self {
            Half::Own(v) => v.clear(),
            Half::Shared(_) | Half::Chunks(_) => *self = Half::default(),
        }
    }

    /// Make chunks one segment, by copying them.
    fn flatten(&mut self) {
        if let Half::Chunks(_) = self {
            *self = Half::Own(self.segs().concat());
        }
    }
}

pub(crate) struct SlotCell<F: Family> {
    data: Mutex<SlotData<F>>,
    /// Signalled when a round gives the slot back.
    back: Condvar,
}

pub(crate) struct SlotData<F: Family> {
    state: F::State,
    /// A full half waiting for a round, or empty. While `busy`, a round has it (and
    /// `state`) and this is an empty placeholder.
    ready: Half,
    /// Whole blocks written after `ready`: at most a half.
    fill: Half,
    busy: bool,
    /// An entry for this slot is in `Pool::waiting`.
    queued: bool,
}

pub(crate) struct Pool<F: Family> {
    kernels: Vec<LaneKernel<F::Word>>,
    widest: usize,
    /// Cores that can run rounds at once.
    cores: usize,
    /// Slots with a `ready` half, in the order they became ready. May hold stale entries
    /// (slots hashed since, or dropped); rounds discard those.
    waiting: Mutex<Vec<Waiting<F>>>,
    /// Streams that have handed blocks to the pool (or were counted early by a
    /// `MultiHasher`) and not finished. A lone writer hashes at once: there is nobody to
    /// share lanes with, and copying would only cost.
    writers: AtomicUsize,
    /// The same over the whole engine (all families).
    engine_writers: Arc<AtomicUsize>,
}

/// A slot on the waiting list, and the CPU its writer was on when the half became ready
/// (so, mostly, the one that copied it in).
///
/// A round takes the halves of its own CPU when there are any: a half's lines are then in
/// the caches of the core that hashes them, and the next copies into it land on lines
/// that core holds. The 2-vCPU VM this was measured on has spells (tens of seconds) in
/// which lines move between its vCPUs slowly: 32 MD5 streams in 32 KiB writes then ran at
/// a median 6.2 GiB/s taking any CPU's halves and 8.6 taking their own, and the
/// noisy-neighbour MultiHashers at 1.31 and 1.75 GiB/s; outside those spells, 8.7 and 8.9
/// GiB/s, 1.72 and 1.77 (40 alternating runs).
struct Waiting<F: Family> {
    slot: Slot<F>,
    cpu: usize,
}

/// A slot's state and `ready` half, taken by a round. Dropping it gives both back, hashed
/// if the round got as far as `hashed`, untouched otherwise (a round that unwinds).
struct Claim<F: Family> {
    slot: Slot<F>,
    state: F::State,
    half: Half,
    hashed: bool,
}

impl<F: Family> Drop for Claim<F> {
    fn drop(&mut self) {
        let mut d = self.slot.data.lock();
        d.state = self.state;
        if self.hashed {
            self.half.clear();
        }
        d.ready = std::mem::take(&mut self.half);
        d.busy = false;
        drop(d);
        self.slot.back.notify_all();
    }
}

impl<F: Family> Pool<F> {
    pub(crate) fn new(features: Features, engine_writers: Arc<AtomicUsize>) -> Self {
        let kernels = merkle_damgard::kernels::<F>(features);
        let widest = kernels.iter().map(|k| k.lanes).max().unwrap_or(1);
        Pool {
            kernels,
            widest,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            waiting: Mutex::new(Vec::new()),
            writers: AtomicUsize::new(0),
            engine_writers,
        }
    }

    pub(crate) fn writers(&self) -> usize {
        self.writers.load(Ordering::Relaxed)
    }

    /// The size of a half now: the budget shared by the engine's writers, a multiple of
    /// every block size.
    fn half(&self) -> usize {
        let writers = self.engine_writers.load(Ordering::Relaxed).max(1);
        (HALVES_BUDGET / writers / MAX_BLOCK * MAX_BLOCK).clamp(MIN_HALF, MAX_HALF)
    }

    /// The size of a half shared by `streams` streams: they hold at most three such
    /// (two in their slots, one being gathered) where they would hold two halves each.
    pub(crate) fn shared_half(&self, streams: usize) -> usize {
        (self.half() * 2 * streams / 3 / MAX_BLOCK * MAX_BLOCK).clamp(MIN_HALF, MAX_HALF)
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

    /// Halves waiting that were written on `cpu`.
    fn waiting_on(&self, cpu: usize) -> usize {
        self.waiting.lock().iter().filter(|w| w.cpu == cpu).count()
    }

    /// Wait until no round holds `me`'s half and state.
    fn wait_back(slot: &Slot<F>, me: &mut MutexGuard<'_, SlotData<F>>) {
        while me.busy {
            slot.back.wait(me);
        }
    }

    /// Take in whole blocks `head` then `body` for `slot`'s stream, or else (with both
    /// empty) the whole blocks of `shared`, as `fill` once that is empty.
    fn absorb<'d>(
        &self,
        slot: &Slot<F>,
        mut head: &'d [u8],
        mut body: &'d [u8],
        mut shared: Option<Half>,
    ) {
        debug_assert!(shared.is_none() || head.is_empty() && body.is_empty());
        let mut me = slot.data.lock();
        loop {
            if self.writers() <= 1 {
                Self::wait_back(slot, &mut me);
                match &shared {
                    Some(s) => hash_alone(&mut me, &s.segs(), None),
                    None => hash_alone(&mut me, &[head, body], None),
                }
                return;
            }
            let half = self.half();
            if let Some(s) = shared.take() {
                shared = me.fill.join(s);
            }
            // Chunks with room wait for more (any other write counts them as full).
            let copying = !head.is_empty() || !body.is_empty();
            if shared.is_none() && !copying && me.fill.takes_chunks() {
                return;
            }
            if let Half::Own(fill) = &mut me.fill {
                if fill.capacity() < half {
                    let more = half - fill.len();
                    fill.reserve_exact(more);
                }
                let room = half.saturating_sub(fill.len());
                let h = head.len().min(room);
                let b = body.len().min(room - h);
                fill.extend_from_slice(&head[..h]);
                fill.extend_from_slice(&body[..b]);
                (head, body) = (&head[h..], &body[b..]);
                // Before a shared half, a partial one counts as full (it is short once,
                // after the MultiHasher changed modes).
                if fill.len() < half && shared.is_none() {
                    return;
                }
            }
            if !me.busy && me.ready.is_empty() {
                let d = &mut *me;
                std::mem::swap(&mut d.ready, &mut d.fill);
                self.queue(slot, &mut me);
                continue;
            }
            if head.is_empty() && body.is_empty() && shared.is_none() {
                return;
            }
            if me.busy {
                Self::wait_back(slot, &mut me);
                continue;
            }
            // Both halves full and more to come.
            if !self.gather(&mut me) {
                continue; // another round took our half meanwhile
            }
            let done = self.round(slot, &mut me, [head, body], None);
            (head, body) = skip(head, body, done);
        }
    }

    /// Before a round with too few waiting halves to fill the lanes, let other writers
    /// that are ready to run (more threads than cores) bring theirs: yield the CPU while
    /// that makes progress. Returns whether `me`'s ready half is still there to hash (a
    /// round elsewhere may have taken it meanwhile).
    ///
    /// Never waits for writers that aren't running: a yield that brings nothing new ends
    /// it, so a lone or idle-neighboured stream pays one `sched_yield` per half.
    fn gather(&self, me: &mut MutexGuard<'_, SlotData<F>>) -> bool {
        let want = self.round_lanes();
        let mut seen = self.waiting_on(isa::current_cpu());
        while seen < want {
            MutexGuard::unlocked(me, std::thread::yield_now);
            if me.busy || me.ready.is_empty() {
                return false;
            }
            let now = self.waiting_on(isa::current_cpu());
            if now <= seen {
                break;
            }
            seen = now;
        }
        true
    }

    /// Put `me`'s ready half on the waiting list.
    fn queue(&self, slot: &Slot<F>, me: &mut SlotData<F>) {
        if !me.queued {
            me.queued = true;
            self.waiting.lock().push(Waiting {
                slot: Arc::clone(slot),
                cpu: isa::current_cpu(),
            });
        }
    }

    /// Hash `me`'s `ready` half together with every waiting half this thread can claim.
    /// With `fin` (the final padding), or with nobody to claim, `fill` and `more` are
    /// hashed too (`more` in place) and the returned count covers all of `more`;
    /// otherwise it is 0: the lanes get equal halves, and the excess would run alone on
    /// the single-stream path while every other lane idles. `me` must not be busy.
    fn round(
        &self,
        slot: &Slot<F>,
        me: &mut MutexGuard<'_, SlotData<F>>,
        more: [&[u8]; 2],
        fin: Option<(&[u8], u64)>,
    ) -> usize {
        debug_assert!(!me.busy);
        let mut others = self.claim(slot, me);
        let me = &mut **me;
        if others.is_empty() {
            hash_alone(me, &more, fin);
            return more[0].len() + more[1].len();
        }
        let own = if fin.is_some() {
            debug_assert!(more[1].is_empty());
            // A job has `SEGS` segments: chunks among the halves are copied to make room.
            let too_many = |me: &SlotData<F>| {
                me.ready.parts() + me.fill.parts() + usize::from(!more[0].is_empty()) > SEGS
            };
            if too_many(me) {
                me.fill.flatten();
            }
            if too_many(me) {
                me.ready.flatten();
            }
            let all = me.ready.segs().into_iter().chain(me.fill.segs());
            Job {
                state: me.state,
                segs: segs(all.chain([more[0]])),
                fin,
            }
        } else {
            Job::blocks(me.state, me.ready.segs())
        };
        let mut states = vec![F::State::default(); others.len() + 1];
        // Collected: `run` wants an exact-size iterator, which a chain is not.
        let jobs: Vec<Job<F>> = std::iter::once(own)
            .chain(others.iter().map(|o| Job::blocks(o.state, o.half.segs())))
            .collect();
        let jobs = jobs.into_iter().enumerate();
        let start = best(&self.kernels, states.len());
        schedule::run::<F>(&self.kernels, start, true, jobs, |i, s| states[i] = *s);
        me.state = states[0];
        me.ready.clear();
        for (o, s) in others.iter_mut().zip(&states[1..]) {
            o.state = *s;
            o.hashed = true;
        }
        drop(others);
        if fin.is_some() {
            me.fill.clear();
            return more[0].len();
        }
        0
    }

    /// Take the state and ready half of up to `round_lanes() - 1` waiting slots other than
    /// `me`'s, never blocking: halves written on this CPU, or another's when there are
    /// none (better than hashing alone).
    fn claim(&self, slot: &Slot<F>, me: &mut SlotData<F>) -> Vec<Claim<F>> {
        let mut waiting = self.waiting.lock();
        me.queued = false;
        if waiting.is_empty() {
            return Vec::new();
        }
        let lanes = self.round_lanes();
        let here = isa::current_cpu();
        let mut got = Vec::new();
        for only_here in [true, false] {
            if !got.is_empty() {
                break;
            }
            for w in std::mem::take(&mut *waiting) {
                if Arc::ptr_eq(&w.slot, slot) {
                    continue; // our own entry: we hash our half now
                }
                if got.len() + 1 >= lanes || only_here && w.cpu != here {
                    waiting.push(w);
                    continue;
                }
                let Some(mut o) = w.slot.data.try_lock() else {
                    // Its owner holds it for a moment: leave it for a later round.
                    waiting.push(w);
                    continue;
                };
                o.queued = false;
                if o.ready.is_empty() || o.busy {
                    continue; // a stale entry (dropped stream, or already hashed)
                }
                o.busy = true;
                let (state, half) = (o.state, std::mem::take(&mut o.ready));
                drop(o);
                got.push(Claim {
                    slot: w.slot,
                    state,
                    half,
                    hashed: false,
                });
            }
        }
        got
    }
}

/// A stream of one Merkle–Damgård family whose blocks go through a [`Pool`].
///
/// Small, so that a hasher is cheap to make and move: the stage and the slot are made
/// when first needed, and a message shorter than the stage never touches the pool.
pub(crate) struct Stream<F: Family> {
    pool: Arc<Pool<F>>,
    /// Made when whole blocks first reach the pool; until then the state is `iv`.
    slot: Option<Slot<F>>,
    iv: F::State,
    /// Bytes not yet handed to the slot: fewer than `STAGE`.
    part: Vec<u8>,
    total: u64,
    /// Counted in `pool.writers`.
    writing: bool,
}

impl<F: Family> Stream<F> {
    pub(crate) fn new(pool: Arc<Pool<F>>, iv: F::State) -> Self {
        Stream {
            pool,
            slot: None,
            iv,
            part: Vec::new(),
            total: 0,
            writing: false,
        }
    }

    fn slot(&mut self) -> Slot<F> {
        self.join();
        let iv = self.iv;
        Arc::clone(self.slot.get_or_insert_with(|| {
            Arc::new(SlotCell {
                data: Mutex::new(SlotData {
                    state: iv,
                    ready: Half::default(),
                    fill: Half::default(),
                    busy: false,
                    queued: false,
                }),
                back: Condvar::new(),
            })
        }))
    }

    /// Append to the stage, which is allocated once at its full size.
    fn stage(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        if self.part.capacity() < STAGE {
            self.part.reserve_exact(STAGE - self.part.len());
        }
        self.part.extend_from_slice(data);
    }

    /// Bytes that complete the staged ones to a whole block.
    fn to_block(&self) -> usize {
        self.part.len().next_multiple_of(F::BLOCK) - self.part.len()
    }

    /// Count this stream among the writers (from its first whole blocks for the pool, or
    /// earlier when a `MultiHasher` asks): a message that fits the stage never does.
    pub(crate) fn join(&mut self) {
        if !self.writing {
            self.writing = true;
            self.pool.writers.fetch_add(1, Ordering::Relaxed);
            self.pool.engine_writers.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.part.len() + data.len() < STAGE {
            self.stage(data);
            return;
        }
        // Complete the staged bytes to a whole block: `STAGE` is a multiple of every block
        // size and `part.len() + data.len() >= STAGE`, so `data` has enough.
        let fill = self.to_block();
        self.stage(&data[..fill]);
        let data = &data[fill..];
        let whole = data.len() - data.len() % F::BLOCK;
        let slot = self.slot();
        self.pool.absorb(&slot, &self.part, &data[..whole], None);
        self.part.clear();
        self.stage(&data[whole..]);
    }

    /// As `update(half)`, but without copying `half` when the stream is at a block
    /// boundary (`half` is whole blocks of every family).
    pub(crate) fn update_shared(&mut self, half: &SharedHalf) {
        if !self.part.is_empty() || half.is_empty() || !half.len().is_multiple_of(F::BLOCK) {
            return self.update(half);
        }
        self.total = self.total.wrapping_add(half.len() as u64);
        let slot = self.slot();
        self.pool
            .absorb(&slot, &[], &[], Some(Half::Shared(Arc::clone(half))));
    }

    /// As `update(&chunk)`, but the chunk's whole blocks wait for lanes in place: only the
    /// bytes that complete the staged ones to a block are copied. A chunk larger than
    /// `CHUNKS_HALF` goes as several slices of it.
    pub(crate) fn update_bytes(&mut self, chunk: Bytes) {
        let stitch = self.to_block();
        if chunk.len() < stitch + STAGE {
            return self.update(&chunk);
        }
        self.total = self.total.wrapping_add(chunk.len() as u64);
        // `STAGE` is a multiple of every block size, so this stays within the stage.
        self.stage(&chunk[..stitch]);
        let whole = (chunk.len() - stitch) / F::BLOCK * F::BLOCK;
        let mut body = chunk.slice(stitch..stitch + whole);
        let slot = self.slot();
        // The stage goes first, as a slice of its own, if it holds blocks.
        let mut head = if self.part.is_empty() {
            Bytes::new()
        } else {
            Bytes::from(std::mem::take(&mut self.part))
        };
        while !body.is_empty() {
            // Whole blocks, and `head` (at most `STAGE`) plus one block fits.
            let room = CHUNKS_HALF.saturating_sub(head.len()).max(F::BLOCK);
            let piece = body.split_to(body.len().min(room));
            let half = Half::Chunks(segs([std::mem::take(&mut head), piece]));
            self.pool.absorb(&slot, &[], &[], Some(half));
        }
        self.stage(&chunk[stitch + whole..]);
    }

    /// Bytes held unhashed in the slot (not counting the stage).
    #[cfg(test)]
    pub(crate) fn buffered(&self) -> usize {
        self.slot.as_ref().map_or(0, |slot| {
            let d = slot.data.lock();
            d.ready.len() + d.fill.len()
        })
    }

    pub(crate) fn finalize(mut self, len: usize) -> Digest {
        let whole = self.part.len() - self.part.len() % F::BLOCK;
        let (body, tail) = self.part.split_at(whole);
        let Some(slot) = self.slot.take() else {
            // Nothing reached the pool: a short message, hashed here.
            let state = Job::<F> {
                state: self.iv,
                segs: segs([body]),
                fin: Some((tail, self.total)),
            }
            .run_single();
            return digest_of::<F>(&state, len);
        };
        let mut me = slot.data.lock();
        Pool::wait_back(&slot, &mut me);
        self.pool
            .round(&slot, &mut me, [body, &[]], Some((tail, self.total)));
        let state = me.state;
        drop(me);
        self.slot = Some(slot);
        digest_of::<F>(&state, len)
    }
}

impl<F: Family> Drop for Stream<F> {
    fn drop(&mut self) {
        if self.writing {
            self.pool.writers.fetch_sub(1, Ordering::Relaxed);
            self.pool.engine_writers.fetch_sub(1, Ordering::Relaxed);
        }
        // Free the halves now (a round holding one gives it back to the slot, which goes
        // with the last reference); a stale `waiting` entry may keep the slot a while.
        if let Some(slot) = &self.slot {
            let mut d = slot.data.lock();
            d.fill = Half::default();
            if !d.busy {
                d.ready = Half::default();
            }
        }
    }
}

const _: () = assert!(
    STAGE.is_multiple_of(MAX_BLOCK)
        && MIN_HALF.is_multiple_of(MAX_BLOCK)
        && MIN_HALF > 0
        && STAGE + MAX_BLOCK <= CHUNKS_HALF
        && CHUNKS_HALF <= MAX_HALF
);

/// Hash `me`'s halves, then `more` (in place), then `fin` on the single-stream path.
fn hash_alone<F: Family>(me: &mut SlotData<F>, more: &[&[u8]], fin: Option<(&[u8], u64)>) {
    let halves = me.ready.segs().into_iter().chain(me.fill.segs());
    for seg in halves.chain(more.iter().copied()) {
        if !seg.is_empty() {
            F::compress(&mut me.state, seg);
        }
    }
    me.state = Job::<F> {
        state: me.state,
        segs: [&[]; SEGS],
        fin,
    }
    .run_single();
    me.ready.clear();
    me.fill.clear();
}

/// `head ++ body` without its first `n` bytes.
fn skip<'a>(head: &'a [u8], body: &'a [u8], n: usize) -> (&'a [u8], &'a [u8]) {
    if n <= head.len() {
        (&head[n..], body)
    } else {
        (&[], &body[n - head.len()..])
    }
}
