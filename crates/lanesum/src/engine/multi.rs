//! One stream, several algorithms, one pass over the data.

use std::fmt;
use std::io;
#[cfg(feature = "rayon")]
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[cfg(feature = "bytes")]
use bytes::Bytes;

#[cfg(feature = "rayon")]
use super::background::{Background, IN_FLIGHT};
use super::half::SharedHalf;
use super::lane_hasher::{Engine, LaneHasher};
use super::stream::STAGE;
use crate::families::{self, each};
use crate::family::{Family, MD_BLOCKS};
use crate::hasher;
use crate::isa::Features;
use crate::{Algorithm, Digest};

/// Writes at least this large run the algorithms on several cores: below it, handing work
/// to another thread costs more than it saves.
const PAR_MIN: usize = 16 * 1024;

/// A stream hashed alone gathers writes up to this much before the algorithms run side
/// by side: waking the other cores costs tens of microseconds, a copy of 64 KiB a few.
/// 64 KiB x 1024 writes, md5+sha1+sha256+sha512 against RustCrypto's one after the other
/// (Zen 4, 2 cores, three runs each in turn): 512 KiB 1.69-1.84x, 1 MiB 1.78-2.21x,
/// 2 MiB 1.86-2.12x, 4 MiB 2.13-2.27x. (Small in tests, so that batches overlap often.)
const PAR_BATCH: usize = if cfg!(test) { 256 << 10 } else { 4 << 20 };

/// Pieces a large write is cut into when every algorithm spreads one input over the
/// cores (the CRCs, BLAKE3): each algorithm takes a piece on every core while it is still
/// in the last-level cache. `lanesum -a crc32c,crc64nvme` of 1 GiB in page cache (Zen 3,
/// 2 cores): 0.43 s with the algorithms side by side over 64 MiB windows, each reading
/// the window from memory.
const SPREAD_PIECE: usize = 8 << 20;

/// Computes several algorithms of one stream in one pass.
///
/// When its stream is the only one writing on the engine, writes are gathered (up to
/// 4 MiB) and the algorithms run concurrently on rayon's threads (the costliest first, each
/// thread taking the next as it finishes), so the time approaches that of the slowest
/// algorithm. Batches are hashed in the background, each algorithm taking them in order at
/// its own pace, while the caller gathers the next ones: reading the stream (a pipe, a
/// socket) overlaps the hashing instead of leaving the cores idle between batches. When other streams are writing too, every core is busy anyway: the
/// algorithms run one after the other on the caller's thread and share each family's
/// lanes with the other streams; writes are then gathered into halves of whole blocks that
/// every algorithm's stream takes as it is, so the data is copied once, not once per
/// algorithm.
///
/// ```
/// use lanesum::{hash, Algorithm, MultiHasher};
/// let algs = [Algorithm::Md5, Algorithm::Sha256];
/// let mut m = MultiHasher::new(&algs);
/// m.update(b"abc");
/// let d = m.finalize();
/// assert_eq!(d[1], hash(Algorithm::Sha256, b"abc"));
/// ```
pub struct MultiHasher {
    engine: Engine,
    /// Costliest first; `slot[i]` is the output position of `algs[i]`.
    algs: Vec<Algorithm>,
    slot: Vec<usize>,
    /// The streams of `algs`, made when data first reaches them: a message shorter
    /// than `PAR_MIN` that never does is hashed at the end in one go per algorithm.
    hashers: Vec<LaneHasher>,
    /// The streams count as the engine's writers.
    joined: bool,
    /// Writes gathered for the next parallel pass (alone on the engine) or the next
    /// shared half (not alone); which one `pending_alone` says.
    pending: SharedHalf,
    pending_alone: bool,
    /// Bytes handed to the streams so far.
    fed: u64,
    /// Halves handed to the streams earlier, reused once they let go of them.
    spare: Vec<SharedHalf>,
    /// The streams while gathered batches are hashed on rayon's threads (`hashers` is
    /// empty meanwhile).
    #[cfg(feature = "rayon")]
    background: Option<Background>,
}

/// Halves a MultiHasher keeps for reuse: each stream holds at most two, the one being
/// filled is a third.
const SPARES: usize = 2;

impl MultiHasher {
    /// On the process-wide engine; digests come back in the order of `algs`.
    pub fn new(algs: &[Algorithm]) -> MultiHasher {
        Self::with_engine(Engine::global(), algs)
    }

    /// On `engine`; digests come back in the order of `algs`.
    pub fn with_engine(engine: &Engine, algs: &[Algorithm]) -> MultiHasher {
        let f = engine.level();
        let mut slot: Vec<usize> = (0..algs.len()).collect();
        slot.sort_by(|&a, &b| cost(algs[b], f).total_cmp(&cost(algs[a], f)));
        MultiHasher {
            engine: engine.clone(),
            algs: slot.iter().map(|&i| algs[i]).collect(),
            slot,
            hashers: Vec::new(),
            joined: false,
            pending: SharedHalf::default(),
            pending_alone: false,
            fed: 0,
            spare: Vec::new(),
            #[cfg(feature = "rayon")]
            background: None,
        }
    }

    /// Absorb more of the stream into every algorithm.
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        if self.algs.len() <= 1 {
            self.each(data, false);
            return self;
        }
        if self.alone(data.len()) {
            self.write_alone(data);
        } else {
            self.share(data);
        }
        self
    }

    /// A write while alone on the engine: gathered for the algorithms to run side by side.
    fn write_alone(&mut self, data: &[u8]) {
        if threads() <= 1 {
            self.each(data, false);
        } else if data.len() < PAR_BATCH && self.pending.len() + data.len() <= PAR_BATCH {
            Arc::make_mut(&mut self.pending).extend_from_slice(data);
            if self.pending.len() == PAR_BATCH {
                self.flush();
            }
        } else {
            // What was gathered first; then this write in place (a batch or more is
            // never copied).
            self.flush();
            self.each(data, true);
        }
    }

    /// As `update(&chunk)`, for data the caller owns: when other streams are writing, each
    /// algorithm's stream takes a chunk of 16 KiB or more in place (see
    /// [`LaneHasher::update_bytes`]) rather than a copy shared by the algorithms. Alone on
    /// the engine, writes are gathered for the algorithms to run side by side, as by
    /// `update`.
    #[cfg(feature = "bytes")]
    pub fn update_bytes(&mut self, chunk: Bytes) -> &mut Self {
        if self.algs.len() > 1 {
            if chunk.len() < PAR_MIN {
                return self.update(&chunk);
            }
            if self.alone(chunk.len()) {
                self.write_alone(&chunk);
                return self;
            }
        }
        // What was gathered goes first.
        self.flush();
        self.make_streams();
        self.fed += chunk.len() as u64;
        for h in &mut self.hashers {
            h.update_bytes(chunk.clone());
        }
        self
    }

    /// Whether this stream is the engine's only writer, before a write of `len` bytes;
    /// counts its streams as writers from the first kilobyte, and hashes what was gathered
    /// for the other mode when the answer changes.
    fn alone(&mut self, len: usize) -> bool {
        let n = self.algs.len();
        if !self.joined && self.fed as usize + self.pending.len() + len >= STAGE {
            // Count as writing from the first kilobyte, before any reaches a stream, so
            // that MultiHashers starting together see each other rather than all
            // gathering as if alone. A shorter message never counts, as a `LaneHasher`.
            self.joined = true;
            self.make_streams();
            for h in &mut self.hashers {
                h.start_writing();
            }
        }
        let alone = self.engine.writers() <= if self.joined { n } else { 0 };
        if alone != self.pending_alone {
            self.flush();
            self.pending_alone = alone;
        }
        alone
    }

    fn make_streams(&mut self) {
        self.settle();
        if self.hashers.is_empty() {
            let engine = &self.engine;
            self.hashers = self.algs.iter().map(|&a| engine.hasher(a)).collect();
        }
    }

    /// Gather `data` into halves and hand each full one to every stream.
    fn share(&mut self, mut data: &[u8]) {
        let half = self.engine.shared_half(self.algs.len());
        while !data.is_empty() {
            let buf = Arc::make_mut(&mut self.pending);
            if buf.capacity() < half {
                buf.reserve_exact(half - buf.len());
            }
            // End at a block boundary of every Merkle–Damgård family, even if the half
            // shrank below what we hold: after a partial block from the other mode, the
            // next half is copied in and the ones after it go in place again. (A
            // sponge's stream copies what is not whole blocks of its rate.)
            let skew = (self.fed % MD_BLOCKS as u64) as usize;
            let target = half.max(buf.len() + skew).next_multiple_of(MD_BLOCKS) - skew;
            let take = (target - buf.len()).min(data.len());
            buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if buf.len() < target {
                return;
            }
            self.make_streams();
            for h in &mut self.hashers {
                h.update_shared(&self.pending);
            }
            self.fed += target as u64;
            let next = self.unused_spare();
            let used = std::mem::replace(&mut self.pending, next);
            if self.spare.len() < SPARES {
                self.spare.push(used);
            }
        }
    }

    /// An empty buffer: a spare that no stream holds any more, or a new one.
    fn unused_spare(&mut self) -> SharedHalf {
        let mut next = match self
            .spare
            .iter_mut()
            .position(|s| Arc::get_mut(s).is_some())
        {
            Some(i) => self.spare.swap_remove(i),
            None => SharedHalf::default(),
        };
        Arc::make_mut(&mut next).clear();
        next
    }

    /// Hash the gathered writes: in the background when they were gathered alone (the
    /// caller goes on gathering the next batch meanwhile), else here.
    fn flush(&mut self) {
        #[cfg(feature = "rayon")]
        if self.pending_alone
            && self.pending.len() >= PAR_MIN
            && threads() > 1
            // A pool thread would block on its own pool: hash here instead.
            && rayon::current_thread_index().is_none()
        {
            self.hash_in_background();
            return;
        }
        if !self.pending.is_empty() {
            // A second handle, not a move: the buffer stays ours (unique again after).
            let pending = Arc::clone(&self.pending);
            self.each(&pending, self.pending_alone);
            drop(pending);
            Arc::make_mut(&mut self.pending).clear();
        }
    }

    /// Hand the gathered batch to the streams on rayon's threads (the streams go there
    /// with the first batch and stay until something else needs them).
    #[cfg(feature = "rayon")]
    fn hash_in_background(&mut self) {
        if self.background.is_none() {
            self.make_streams();
            self.background = Some(Background::new(std::mem::take(&mut self.hashers)));
        }
        let next = self.unused_spare();
        let batch = std::mem::replace(&mut self.pending, next);
        self.fed += batch.len() as u64;
        if let Some(bg) = &self.background {
            bg.push(&batch);
        }
        // Reused once every algorithm has hashed it.
        if self.spare.len() < SPARES + IN_FLIGHT {
            self.spare.push(batch);
        }
    }

    /// Take the streams back from the background, once every batch there is hashed.
    fn settle(&mut self) {
        #[cfg(feature = "rayon")]
        if let Some(bg) = self.background.take() {
            self.hashers = bg.finish();
        }
    }

    /// `data` through every algorithm: side by side on several cores when `parallel` and
    /// it is large enough to pay, else one after the other here.
    fn each(&mut self, data: &[u8], parallel: bool) {
        self.make_streams();
        self.fed += data.len() as u64;
        let threads = threads().min(self.hashers.len());
        if parallel && threads > 1 && data.len() >= PAR_MIN {
            if self.algs.iter().all(|a| a.spreads_one_input()) {
                // Each already spreads a large write over every core: run them in turn
                // over pieces that stay in cache, so the data comes from memory once
                // rather than once per algorithm.
                for piece in data.chunks(SPREAD_PIECE) {
                    for h in &mut self.hashers {
                        h.update(piece);
                    }
                }
            } else {
                side_by_side(&mut self.hashers, data, threads);
            }
        } else {
            for h in &mut self.hashers {
                h.update(data);
            }
        }
    }

    /// The digests, in the order the algorithms were given.
    pub fn finalize(mut self) -> Vec<Digest> {
        self.settle();
        let mut out = vec![Digest::from_bytes(&[]); self.algs.len()];
        if self.hashers.is_empty() && self.pending.len() < PAR_MIN {
            for (&a, &i) in self.algs.iter().zip(&self.slot) {
                out[i] = hasher::hash_at(a, &self.pending, self.engine.level());
            }
            return out;
        }
        self.flush();
        self.make_streams();
        for (h, &i) in self.hashers.into_iter().zip(&self.slot) {
            out[i] = h.finalize();
        }
        out
    }
}

impl fmt::Debug for MultiHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut algs = self.algs.clone();
        for (&a, &i) in self.algs.iter().zip(&self.slot) {
            algs[i] = a;
        }
        f.debug_struct("MultiHasher")
            .field("algorithms", &algs)
            .field("bytes", &(self.fed + self.pending.len() as u64))
            .finish_non_exhaustive()
    }
}

impl io::Write for MultiHasher {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Rayon's threads (1 without the `rayon` feature).
fn threads() -> usize {
    #[cfg(feature = "rayon")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "rayon"))]
    1
}

/// `data` through every hasher, on up to `threads` of rayon's threads: each takes the next
/// hasher (costliest first) as it finishes one.
#[cfg(feature = "rayon")]
fn side_by_side(hashers: &mut [LaneHasher], data: &[u8], threads: usize) {
    let next = AtomicUsize::new(0);
    let cells: Vec<parking_lot::Mutex<&mut LaneHasher>> =
        hashers.iter_mut().map(parking_lot::Mutex::new).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        match cells.get(i) {
            Some(h) => {
                h.lock().update(data);
            }
            None => break,
        }
    };
    rayon::in_place_scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| work());
        }
        work();
    });
}

/// Without rayon there is one thread: `threads()` is 1 and this is never reached.
#[cfg(not(feature = "rayon"))]
fn side_by_side(hashers: &mut [LaneHasher], data: &[u8], _threads: usize) {
    for h in hashers {
        h.update(data);
    }
}

/// Relative single-stream cost per byte, to start the slowest algorithms first.
fn cost(alg: Algorithm, level: Features) -> f32 {
    let gbps = match families::lookup(alg) {
        Some(iv) => each!(iv, |F, _iv| F::single(level).kernel.est_gbps),
        // The rest are not lane algorithms; BLAKE3 spreads large writes itself.
        None if matches!(alg, Algorithm::Blake3(_)) => 4.0,
        None => 1.0,
    };
    1.0 / gbps
}
