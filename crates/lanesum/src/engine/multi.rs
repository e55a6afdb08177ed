//! One stream, several algorithms, one pass over the data.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Engine, LaneHasher};
use crate::isa::{self, Features};
use crate::merkle_damgard::Family;
use crate::{Algorithm, Digest};

/// Writes at least this large run the algorithms on several cores: below it, handing work
/// to another thread costs more than it saves.
const PAR_MIN: usize = 16 * 1024;

/// A stream hashed alone gathers writes up to this much before the algorithms run side
/// by side: waking the other cores costs tens of microseconds, a copy of 64 KiB a few.
const PAR_BATCH: usize = 1 << 20;

/// Computes several algorithms of one stream in one pass.
///
/// When its stream is the only one writing on the engine, writes are gathered (up to
/// 1 MiB) and the algorithms run concurrently on rayon's threads (the costliest first, each
/// thread taking the next as it finishes), so the time approaches that of the slowest
/// algorithm. When other streams are writing too, every core is busy anyway: the
/// algorithms run one after the other on the caller's thread and share each family's
/// lanes with the other streams.
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
    /// Costliest first; `slot[i]` is the output position of `hashers[i]`.
    hashers: Vec<LaneHasher>,
    slot: Vec<usize>,
    /// Writes gathered for the next parallel pass (alone on the engine only).
    pending: Vec<u8>,
}

impl MultiHasher {
    /// On the process-wide engine; digests come back in the order of `algs`.
    pub fn new(algs: &[Algorithm]) -> MultiHasher {
        Self::with_engine(Engine::global(), algs)
    }

    pub fn with_engine(engine: &Engine, algs: &[Algorithm]) -> MultiHasher {
        let f = isa::active();
        let mut slot: Vec<usize> = (0..algs.len()).collect();
        slot.sort_by(|&a, &b| cost(algs[b], f).total_cmp(&cost(algs[a], f)));
        MultiHasher {
            engine: engine.clone(),
            hashers: slot.iter().map(|&i| engine.hasher(algs[i])).collect(),
            slot,
            pending: Vec::new(),
        }
    }

    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        let n = self.hashers.len();
        // Our own streams count as writers once they have written.
        let alone = n > 1 && rayon::current_num_threads() > 1 && self.engine.writers() <= n;
        if !alone {
            self.flush();
            self.each(data);
        } else if self.pending.len() + data.len() <= PAR_BATCH {
            self.pending.extend_from_slice(data);
            if self.pending.len() == PAR_BATCH {
                self.flush();
            }
        } else {
            self.flush();
            self.each(data);
        }
        self
    }

    /// Hash the gathered writes.
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.each(&pending);
            self.pending = pending;
            self.pending.clear();
        }
    }

    /// `data` through every algorithm: side by side on several cores when it is large
    /// enough to pay, else one after the other here.
    fn each(&mut self, data: &[u8]) {
        let threads = rayon::current_num_threads().min(self.hashers.len());
        if threads > 1 && data.len() >= PAR_MIN {
            let next = AtomicUsize::new(0);
            let cells: Vec<parking_lot::Mutex<&mut LaneHasher>> = self
                .hashers
                .iter_mut()
                .map(parking_lot::Mutex::new)
                .collect();
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
        } else {
            for h in &mut self.hashers {
                h.update(data);
            }
        }
    }

    /// The digests, in the order the algorithms were given.
    pub fn finalize(mut self) -> Vec<Digest> {
        self.flush();
        let mut out = vec![Digest::from_bytes(&[]); self.hashers.len()];
        for (h, &i) in self.hashers.into_iter().zip(&self.slot) {
            out[i] = h.finalize();
        }
        out
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

/// Relative single-stream cost per byte, to start the slowest algorithms first.
fn cost(alg: Algorithm, f: Features) -> f32 {
    use crate::{md5::Md5, sha1::Sha1, sha256::Sha256, sha512::Sha512};
    let gbps = match alg {
        Algorithm::Md5 => Md5::single_gbps(f),
        Algorithm::Sha1 => Sha1::single_gbps(f),
        Algorithm::Sha224 | Algorithm::Sha256 => Sha256::single_gbps(f),
        Algorithm::Sha384 | Algorithm::Sha512 | Algorithm::Sha512_224 | Algorithm::Sha512_256 => {
            Sha512::single_gbps(f)
        }
        // The rest are not lane algorithms; BLAKE3 spreads large writes itself.
        Algorithm::Blake3(_) => 4.0,
        _ => 1.0,
    };
    1.0 / gbps
}
