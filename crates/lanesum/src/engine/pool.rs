//! One hash family's share of an engine: the slots of the streams whose blocks wait for
//! lanes, and the rounds that hash them.
//!
//! Each stream owns a slot: its chaining state and two halves of a batch of whole blocks,
//! `ready` (full, waiting for a round) and `fill` (being written). A writer copies into
//! `fill`; when it is full it becomes `ready` and goes on the waiting list, and the writer
//! goes on filling. Only a writer with both halves full runs a *round*: it takes every
//! waiting `ready` half it can lock without blocking (a core's share of the engine's
//! streams, at most the widest kernel's lanes; those written on its own CPU first) and
//! hashes them with its own in one multi-lane call. A round takes a claimed slot's state
//! and half out and unlocks it, so that slot's writer goes on filling meanwhile; a writer
//! that fills up while its half is in a round waits for that round (the back-pressure),
//! hashing a round of other streams' waiting halves meanwhile, if enough wait (of any
//! family: see [`Crew`]).
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
//! A writer helping holds no lock of its own: the round that holds its half may end
//! meanwhile and give the half back.
//! Other slots are only ever `try_lock`ed, so no lock cycle can form. `parking_lot`
//! mutexes do not poison, and a claimed half goes back to its slot even if a round
//! unwinds: a panic elsewhere never makes a slot unusable.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use super::crew::{Crew, Help};
use super::half::{Half, HALVES_BUDGET, MAX_HALF, MIN_HALF};
use crate::family::{Compress, Family, Kernels, MD_BLOCKS};
use crate::isa::Features;
use crate::schedule::{self, best, segs, Job, SEGS};
use crate::sys::current_cpu;

/// Whole blocks a stream may hold unhashed (both halves, at their largest).
#[cfg(test)]
pub(crate) const BATCH: usize = 2 * MAX_HALF;

pub(crate) type Slot<F> = Arc<SlotCell<F>>;

/// A stream's place in the pool.
pub(crate) struct SlotCell<F: Family> {
    pub(crate) data: Mutex<SlotData<F>>,
    /// Signalled when a round gives the slot back.
    back: Condvar,
}

/// What a slot holds: the stream's chaining state and its halves.
pub(crate) struct SlotData<F: Family> {
    pub(crate) state: F::State,
    /// A full half waiting for a round, or empty. While `busy`, a round has it (and
    /// `state`) and this is an empty placeholder.
    pub(crate) ready: Half,
    /// Whole blocks written after `ready`: at most a half.
    pub(crate) fill: Half,
    pub(crate) busy: bool,
    /// An entry for this slot is in `Pool::waiting`.
    queued: bool,
}

/// One family's streams of an engine, and the kernels their rounds run.
pub(crate) struct Pool<F: Family> {
    kernels: Kernels<F>,
    /// Cores that can run rounds at once.
    cores: usize,
    /// Slots with a `ready` half, in the order they became ready. May hold stale entries
    /// (a slot whose stream hashed alone after it was listed, at most one per live
    /// stream); rounds discard those. A dropped stream takes its own away ([`Pool::forget`]).
    waiting: Mutex<Vec<Waiting<F>>>,
    /// Streams that have handed blocks to the pool (or were counted early by a
    /// `MultiHasher`) and not finished. A lone writer hashes at once: there is nobody to
    /// share lanes with, and copying would only cost.
    pub(crate) writers: AtomicUsize,
    /// The engine's writers over all families, and its other pools.
    pub(crate) crew: Arc<Crew>,
}

/// A slot on the waiting list, and the CPU its writer was on when the half became ready
/// (so, mostly, the one that copied it in).
///
/// A round takes the halves of its own CPU first: a half's lines are then in the caches
/// of the core that hashes them, and the next copies into it land on lines that core
/// holds. The 2-vCPU VM this was measured on has spells (tens of seconds) in which lines
/// move between its vCPUs slowly: 32 MD5 streams in 32 KiB writes then ran at a median
/// 6.2 GiB/s taking any CPU's halves in the order they came and 8.6 taking their own, and
/// the noisy-neighbour MultiHashers at 1.31 and 1.75 GiB/s; outside those spells, 8.7
/// and 8.9 GiB/s, 1.72 and 1.77 (40 alternating runs).
///
/// But lanes left empty cost more than lines moved: a round fills its lanes up with other
/// CPUs' halves, and gathers until enough halves of any CPU wait. Waiting for a core's
/// share of *its own* halves meant, with 32 writer threads on 2 cores, 16-lane rounds
/// that needed every stream written on that CPU to be ready: a writer yielded about once
/// per half and the rounds ran 12-14 lanes on average. Counting every CPU's halves (same
/// process, alternating, loaded 2-core machine): 32 MD5 threads 1.15x faster through
/// `update` and 1.34x through `update_bytes`, 2 threads 1.12x and 1.03x.
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
    pub(crate) fn new(level: Features, crew: Arc<Crew>, cores: usize) -> Self {
        Pool {
            kernels: Kernels::new(level),
            cores: cores.max(1),
            waiting: Mutex::new(Vec::new()),
            writers: AtomicUsize::new(0),
            crew,
        }
    }

    /// A new stream's slot, at chaining state `iv`.
    pub(crate) fn new_slot(iv: F::State) -> Slot<F> {
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
    }

    /// The single-stream compression of this pool's level.
    pub(crate) fn single(&self) -> crate::family::Compress<F> {
        self.kernels.single
    }

    pub(crate) fn writers(&self) -> usize {
        self.writers.load(Ordering::Relaxed)
    }

    /// The size of a half now: the budget shared by the engine's writers, a multiple of
    /// every Merkle–Damgård block size (the same in their pools), and whole blocks of a
    /// sponge's rate.
    pub(crate) fn half(&self) -> usize {
        let writers = self.crew.writers().max(1);
        let half = (HALVES_BUDGET / writers / MD_BLOCKS * MD_BLOCKS).clamp(MIN_HALF, MAX_HALF);
        half / F::BLOCK * F::BLOCK
    }

    /// The size of a half shared by `streams` streams: they hold at most three such
    /// (two in their slots, one being gathered) where they would hold two halves each.
    pub(crate) fn shared_half(&self, streams: usize) -> usize {
        (self.half() * 2 * streams / 3 / MD_BLOCKS * MD_BLOCKS).clamp(MIN_HALF, MAX_HALF)
    }

    /// Streams one round should take: the widest kernel's lanes, but no more than a
    /// core's share of the engine's streams (of every family), so that every core can
    /// run a round of its own rather than wait while one round holds every stream.
    ///
    /// The share is of the whole engine's streams, not this family's: each family's
    /// rounds run beside the others', so with F families the cores hold F rounds at a
    /// time for every one a lone family would. A `MultiHasher` of md5+sha1+sha256+sha512
    /// is four streams. Counting only its own family, the noisy neighbour (32 of them) on
    /// 16 cores ran 2-stream rounds: MD5 and SHA-512 a pair of lanes at a time, 1.08x
    /// Go's sequential hashes there. Forced to size rounds for 16 cores on 2 (same
    /// process, alternating, 3 rounds each), against RustCrypto's four one after another:
    /// 1.45x with the family's streams, 2.56x with the engine's (8-stream rounds), and
    /// 2.70x sized for the 2 cores it ran on. On those 2 cores, the Go noisy neighbour
    /// ran as before (5 alternating runs each, within 1%) once the rounds were made
    /// equal: a cap of 24 lanes had made rounds of 24 and 8, 2-3% slower.
    fn round_lanes(&self) -> usize {
        let cap = self
            .crew
            .writers()
            .div_ceil(self.cores)
            .clamp(1, self.kernels.widest());
        // As many rounds as the cap allows, of equal size: 32 streams under a cap of 24
        // make two rounds of 16, not one of 24 and a second of 8.
        let streams = self.writers().max(1);
        streams.div_ceil(streams.div_ceil(cap))
    }

    /// Halves waiting for a round (stale entries included).
    pub(crate) fn waiting_len(&self) -> usize {
        self.waiting.lock().len()
    }

    /// Wait until no round holds `me`'s half and state.
    pub(crate) fn wait_back(slot: &Slot<F>, me: &mut MutexGuard<'_, SlotData<F>>) {
        while me.busy {
            slot.back.wait(me);
        }
    }

    /// Take in whole blocks `head` then `body` for `slot`'s stream, or else (with both
    /// empty) the whole blocks of `shared`, as `fill` once that is empty.
    pub(crate) fn absorb<'d>(
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
                    Some(s) => hash_alone(&mut me, self.kernels.single, &s.segs(), None),
                    None => hash_alone(&mut me, self.kernels.single, &[head, body], None),
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
                // Only for copies: a shared half or chunks would take its place.
                if copying && fill.capacity() < half {
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
                self.help_or_wait(slot, &mut me);
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

    /// Until no round holds `me`'s half: hash rounds of other streams' waiting halves,
    /// of any family (`me` unlocked meanwhile), and sleep only when too few wait. See
    /// [`Crew`] for why.
    fn help_or_wait(&self, slot: &Slot<F>, me: &mut MutexGuard<'_, SlotData<F>>) {
        while me.busy {
            if !MutexGuard::unlocked(me, || self.crew.help(self)) {
                Self::wait_back(slot, me);
            }
        }
    }

    /// Before a round with too few waiting halves (of any CPU) to fill the lanes, let
    /// other writers that are ready to run (more threads than cores) bring theirs: yield
    /// the CPU while that makes progress. Returns whether `me`'s ready half is still there
    /// to hash (a round elsewhere may have taken it meanwhile).
    ///
    /// Never waits for writers that aren't running: a yield that brings nothing new ends
    /// it, so a lone or idle-neighboured stream pays one `sched_yield` per half.
    fn gather(&self, me: &mut MutexGuard<'_, SlotData<F>>) -> bool {
        let want = self.round_lanes();
        let mut seen = self.waiting_len();
        while seen < want {
            MutexGuard::unlocked(me, std::thread::yield_now);
            if me.busy || me.ready.is_empty() {
                return false;
            }
            let now = self.waiting_len();
            if now <= seen {
                break;
            }
            seen = now;
        }
        true
    }

    /// A dropped stream's slot leaves the waiting list, so that its entry can't pin the
    /// slot (and its state) for good: `claim` prunes a stale entry only while its round
    /// has room, which a full round (or a family with as few writers as cores: rounds of
    /// one) never has. Before this, an engine hashing aborted uploads grew by about half a
    /// KiB per stream that was dropped with a half waiting (100,000 streams: 46 MB), and
    /// every round walked the longer list. `me` must be `slot`'s.
    pub(crate) fn forget(&self, slot: &Slot<F>, me: &mut SlotData<F>) {
        if std::mem::take(&mut me.queued) {
            // `queued` means exactly one entry; the others keep their order.
            let mut waiting = self.waiting.lock();
            let ours = |w: &Waiting<F>| Arc::ptr_eq(&w.slot, slot);
            if let Some(i) = waiting.iter().position(ours) {
                waiting.remove(i);
            }
            debug_assert!(!waiting.iter().any(ours), "a slot listed twice");
        }
    }

    /// Put `me`'s ready half on the waiting list.
    fn queue(&self, slot: &Slot<F>, me: &mut SlotData<F>) {
        if !me.queued {
            me.queued = true;
            self.waiting.lock().push(Waiting {
                slot: Arc::clone(slot),
                cpu: current_cpu(),
            });
        }
    }

    /// The stream's last rounds: its halves, then `body` (whole blocks) and the padded
    /// tail `fin`. A ready half with a fill behind it goes first, in a round gathered as
    /// any other: the final round's own job is then at most a half and a body long, like
    /// the halves it claims, rather than two halves beside their one with the lanes idle
    /// for the second (and alone, on the single-stream path, when nobody waits). `me` must
    /// be `slot`'s.
    pub(crate) fn finish(
        &self,
        slot: &Slot<F>,
        me: &mut MutexGuard<'_, SlotData<F>>,
        body: &[u8],
        fin: (&[u8], u64),
    ) {
        self.help_or_wait(slot, me);
        if !me.ready.is_empty() && !me.fill.is_empty() && self.writers() > 1 {
            self.queue(slot, me);
            if self.gather(me) {
                self.round(slot, me, [&[], &[]], None);
            }
            self.help_or_wait(slot, me);
        }
        self.round(slot, me, [body, &[]], Some(fin));
    }

    /// Hash `me`'s `ready` half together with every waiting half this thread can claim.
    /// With `fin` (the final padding), or with nobody to claim, `fill` and `more` are
    /// hashed too (`more` in place) and the returned count covers all of `more`;
    /// otherwise it is 0: the lanes get equal halves, and the excess would run alone on
    /// the single-stream path while every other lane idles. `me` must not be busy.
    pub(crate) fn round(
        &self,
        slot: &Slot<F>,
        me: &mut MutexGuard<'_, SlotData<F>>,
        more: [&[u8]; 2],
        fin: Option<(&[u8], u64)>,
    ) -> usize {
        debug_assert!(!me.busy);
        let mut others = self.claim(Some((slot, &mut **me)));
        let me = &mut **me;
        if others.is_empty() {
            hash_alone(me, self.kernels.single, &more, fin);
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
        self.hash_round(Some((own, &mut me.state)), &mut others);
        me.ready.clear();
        drop(others);
        if fin.is_some() {
            me.fill.clear();
            return more[0].len();
        }
        0
    }

    /// Hash `own` (the job of the writer running the round, if it has one, and where its
    /// new state goes) beside the claimed halves in one multi-lane run, marking those
    /// hashed.
    fn hash_round(&self, own: Option<(Job<'_, F>, &mut F::State)>, others: &mut [Claim<F>]) {
        let (own, own_state) = own.unzip();
        let skip = usize::from(own.is_some());
        let mut states = vec![F::State::default(); others.len() + skip];
        // Collected: `run` wants an exact-size iterator, which a chain is not.
        let jobs: Vec<Job<F>> = own
            .into_iter()
            .chain(others.iter().map(|o| Job::blocks(o.state, o.half.segs())))
            .collect();
        let busy = states.len();
        let start = self
            .kernels
            .few_over(best(&self.kernels.lanes, busy), busy, || {
                jobs.iter().map(Job::block_count).min().unwrap_or(0)
            });
        schedule::run::<F>(
            &self.kernels.lanes,
            start,
            true,
            jobs.into_iter().enumerate(),
            |i, s| states[i] = *s,
        );
        for (o, s) in others.iter_mut().zip(&states[skip..]) {
            o.state = *s;
            o.hashed = true;
        }
        if let Some(state) = own_state {
            *state = states[0];
        }
    }

    /// Take the state and ready half of waiting slots, never blocking: up to
    /// `round_lanes()`, less one for the writer's own (`own`, a slot and its data, whose
    /// entry is dropped) if it has one; halves written on this CPU first, then other
    /// CPUs' for the lanes left (better than lanes left idle).
    fn claim(&self, mut own: Option<(&Slot<F>, &mut SlotData<F>)>) -> Vec<Claim<F>> {
        let mut waiting = self.waiting.lock();
        if let Some((_, me)) = &mut own {
            me.queued = false;
        }
        let slot = own.map(|(slot, _)| slot);
        if waiting.is_empty() {
            return Vec::new();
        }
        let room = self.round_lanes() - usize::from(slot.is_some());
        let here = current_cpu();
        let mut got = Vec::new();
        for only_here in [true, false] {
            for w in std::mem::take(&mut *waiting) {
                if slot.is_some_and(|s| Arc::ptr_eq(&w.slot, s)) {
                    continue; // our own entry: we hash our half now
                }
                if got.len() >= room || only_here && w.cpu != here {
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

impl<F: Family> Help for Pool<F> {
    fn help(&self) -> bool {
        // A family with one writer or none has no rounds (and its list no lock to take).
        if self.writers() < 2 || self.waiting_len() < self.round_lanes() {
            return false;
        }
        let mut others = self.claim(None);
        if others.is_empty() {
            return false;
        }
        self.hash_round(None, &mut others);
        true
    }
}

/// Hash `me`'s halves, then `more` (in place), then `fin` on the single-stream path.
fn hash_alone<F: Family>(
    me: &mut SlotData<F>,
    compress: Compress<F>,
    more: &[&[u8]],
    fin: Option<(&[u8], u64)>,
) {
    let halves = me.ready.segs().into_iter().chain(me.fill.segs());
    for seg in halves.chain(more.iter().copied()) {
        if !seg.is_empty() {
            compress.run(&mut me.state, seg);
        }
    }
    me.state = Job::<F> {
        state: me.state,
        segs: [&[]; SEGS],
        fin,
    }
    .run_single(compress);
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

#[cfg(test)]
mod round_size {
    use super::*;
    use crate::isa;
    use crate::md5::Md5;

    /// A pool of `streams` MD5 streams in an engine of `all` streams, sized for `cores`.
    fn pool(cores: usize, streams: usize, all: usize) -> Pool<Md5> {
        let crew = Arc::new(Crew::default());
        (0..all).for_each(|_| crew.join());
        let p = Pool::<Md5>::new(isa::active(), crew, cores);
        p.writers.store(streams, Ordering::Relaxed);
        p
    }

    /// Rounds take a core's share of every family's streams, split evenly, never more
    /// than the widest kernel's lanes: 32 MultiHashers of four algorithms on 16 cores
    /// make 8-stream rounds, not the 2 that counting one family gave.
    #[test]
    fn a_round_is_a_cores_share_of_the_engine() {
        let widest = Kernels::<Md5>::new(isa::active()).widest();
        let expect = |cap: usize, streams: usize| {
            let cap = cap.clamp(1, widest);
            streams.div_ceil(streams.div_ceil(cap))
        };
        assert_eq!(pool(16, 32, 128).round_lanes(), expect(8, 32));
        assert_eq!(pool(16, 32, 32).round_lanes(), expect(2, 32));
        assert_eq!(pool(2, 32, 128).round_lanes(), expect(64, 32));
        assert_eq!(pool(2, 1, 1).round_lanes(), 1);
        assert_eq!(pool(1, 0, 0).round_lanes(), 1);
        // Equal rounds under the cap: never one full round and a short one.
        for streams in 1..=64 {
            let lanes = pool(2, streams, 4 * streams).round_lanes();
            let rounds = streams.div_ceil(lanes);
            assert!(
                lanes <= widest && rounds * lanes - streams < rounds,
                "{streams}: {lanes}"
            );
        }
    }
}
