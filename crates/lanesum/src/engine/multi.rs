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

/// Computes several algorithms of one stream in one pass.
///
/// When its stream is the only one writing on the engine, a large write runs the
/// algorithms concurrently on rayon's threads (the costliest first, each thread taking the
/// next as it finishes), so the time approaches that of the slowest algorithm. When other
/// streams are writing too, every core is busy anyway: the algorithms run one after the
/// other on the caller's thread and share each family's lanes with the other streams.
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
        }
    }

    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        let n = self.hashers.len();
        let threads = rayon::current_num_threads().min(n);
        // Our own streams count as writers once they have written.
        if threads > 1 && data.len() >= PAR_MIN && self.engine.writers() <= n {
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
        self
    }

    /// The digests, in the order the algorithms were given.
    pub fn finalize(self) -> Vec<Digest> {
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
