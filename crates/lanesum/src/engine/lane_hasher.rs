//! [`Engine`], the lanes shared by streams, and [`LaneHasher`], one stream on them.

use std::fmt;
use std::io;
use std::sync::{Arc, OnceLock, Weak};

#[cfg(feature = "bytes")]
use bytes::Bytes;

use super::crew::{Crew, Help};
use super::half::SharedHalf;
use super::pool::Pool;
use super::stream::Stream;
use crate::families::{self, all, each, map, AllOf, AllSponges, Each, OneOf, SpongeOf};
use crate::family::Family;
use crate::isa::{self, Features};
use crate::{Algorithm, Digest, Hasher};

/// Shared lanes for any number of streams on any threads; cheap to clone (a handle).
///
/// Most programs use the process-wide [`Engine::global`] (what [`LaneHasher::new`] does);
/// a separate engine keeps one group of streams from waiting on another's rounds.
#[derive(Clone)]
pub struct Engine {
    pools: Arc<AllOf<Pools>>,
    sponges: Arc<AllSponges<Pools>>,
    level: Features,
    /// Writers (streams that have handed blocks to a pool and not finished), over all
    /// families (each pool counts its own as well), and the pools as helpers.
    crew: Arc<Crew>,
}

/// Each family's pool of an engine.
pub(crate) struct Pools;

impl Each for Pools {
    type Of<F: Family> = Arc<Pool<F>>;
}

/// Each family's stream of a `LaneHasher`.
struct Streams;

impl Each for Streams {
    type Of<F: Family> = Stream<F>;
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// A new engine using the kernels of the active instruction-set level, its rounds
    /// sized for the cores this thread may run on.
    pub fn new() -> Engine {
        Self::with_cores(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// A new engine whose rounds are sized for `cores` cores rather than the machine's:
    /// for a process whose writers run on fewer cores than it may use, or to see on a
    /// small machine how the engine divides streams among the lanes of a large one.
    ///
    /// Each round takes at most a core's share of the streams, so that every core can
    /// hash a round of its own: 32 streams on 16 cores make 2-stream rounds, on 2 cores
    /// 16-stream ones. The digests never depend on it.
    pub fn with_cores(cores: usize) -> Engine {
        let level = isa::active();
        let crew = Arc::new(Crew::default());
        let mut helpers = Vec::new();
        let pools = all!(|F| enlist(&mut helpers, Pool::<F>::new(level, crew.clone(), cores)));
        let sponges =
            all!(sponge | F | enlist(&mut helpers, Pool::<F>::new(level, crew.clone(), cores)));
        crew.set_pools(helpers);
        Engine {
            pools: Arc::new(pools),
            sponges: Arc::new(sponges),
            level,
            crew,
        }
    }

    /// The process-wide engine.
    pub fn global() -> &'static Engine {
        static GLOBAL: OnceLock<Engine> = OnceLock::new();
        GLOBAL.get_or_init(Engine::new)
    }

    /// A streaming hasher for `alg` whose blocks share this engine's lanes.
    ///
    /// # Panics
    /// As [`Hasher::new`], for a hand-built algorithm with an impossible length.
    pub fn hasher(&self, alg: Algorithm) -> LaneHasher {
        assert!(alg.is_valid(), "invalid output length for {alg:?}");
        let inner = if let Some(iv) = families::lookup(alg) {
            Inner::Lanes(map!(iv, &*self.pools, |_F, iv, pool| Stream::new(
                Arc::clone(pool),
                *iv
            )))
        } else if let Some(iv) = families::lookup_sponge(alg) {
            Inner::Sponge(map!(sponge iv, &*self.sponges, |_F, iv, pool| Stream::new(
                Arc::clone(pool),
                *iv
            )))
        } else {
            Inner::Plain(Hasher::at(alg, self.level))
        };
        LaneHasher { alg, inner }
    }

    /// Writers of this engine, over all families.
    pub(crate) fn writers(&self) -> usize {
        self.crew.writers()
    }

    /// Rounds its writers have run while their own halves were in other rounds.
    #[cfg(test)]
    pub(crate) fn helped(&self) -> usize {
        self.crew.helped.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The size of a half shared by `streams` streams now (the same in every family's pool).
    pub(crate) fn shared_half(&self, streams: usize) -> usize {
        self.pools.md5.shared_half(streams)
    }

    /// Halves waiting for a round, over all families.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        let p = &self.pools;
        let s = &self.sponges;
        p.md5.waiting_len()
            + p.sha1.waiting_len()
            + p.sha256.waiting_len()
            + p.sha512.waiting_len()
            + p.sm3.waiting_len()
            + s.sha3_224.waiting_len()
            + s.sha3_256.waiting_len()
            + s.sha3_384.waiting_len()
            + s.sha3_512.waiting_len()
            + s.shake128.waiting_len()
            + s.shake256.waiting_len()
    }

    /// The instruction-set level of this engine's kernels.
    pub(crate) fn level(&self) -> Features {
        self.level
    }
}

/// A streaming hasher whose blocks share SIMD lanes with other streams of its [`Engine`].
///
/// Same results as [`Hasher`]; faster in aggregate when many streams write at once.
/// Dropping it unfinished is fine at any point: its buffered blocks are freed.
pub struct LaneHasher {
    alg: Algorithm,
    inner: Inner,
}

enum Inner {
    /// MD5, SHA-1, the SHA-2 family and SM3: a stream of the engine.
    Lanes(OneOf<Streams>),
    /// SHA-3 and SHAKE: a sponge's stream of the engine.
    Sponge(SpongeOf<Streams>),
    /// The others: a plain hasher.
    Plain(Hasher),
}

/// `$stream` with `$s` bound to the stream of whichever family `$inner` holds, or
/// `$plain` with `$h` bound to its plain hasher.
macro_rules! dispatch {
    ($inner:expr, $s:ident => $stream:expr, $h:pat => $plain:expr) => {
        match $inner {
            Inner::Lanes(l) => each!(l, |_F, $s| $stream),
            Inner::Sponge(l) => each!(sponge l, |_F, $s| $stream),
            Inner::Plain($h) => $plain,
        }
    };
}

impl LaneHasher {
    /// A hasher on the process-wide engine.
    pub fn new(alg: Algorithm) -> LaneHasher {
        Engine::global().hasher(alg)
    }

    /// The algorithm this hasher computes.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// Absorb more of the message. May hash other streams' waiting blocks too.
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        dispatch!(&mut self.inner, s => s.update(data), h => {
            h.update(data);
        });
        self
    }

    /// Count as a writer of the engine from now on, as if it had handed blocks to it.
    pub(crate) fn start_writing(&mut self) {
        dispatch!(&mut self.inner, s => s.join(), _ => {});
    }

    /// As `update(half)`, without a copy of `half` where the stream can hash it in place.
    pub(crate) fn update_shared(&mut self, half: &SharedHalf) {
        dispatch!(&mut self.inner, s => s.update_shared(half), h => {
            h.update(half);
        });
    }

    /// As `update(&chunk)`, for data the caller owns (a server's body chunks usually are
    /// [`Bytes`](bytes::Bytes)): the chunk's whole blocks wait for lanes where they are,
    /// where `update` copies them. Chunks under a kilobyte are copied as by `update`. A
    /// stream holds at most 512 KiB of slices of its chunks (which keep their buffers
    /// alive) before its writer has to hash.
    ///
    /// 32 MD5 streams of 64 MiB in 32 KiB writes, 16 on each of 2 threads (2 cores): 0.63
    /// of `hash_many_par` on the same data through `update`, 0.90 through `update_bytes`;
    /// on a thread each, 0.52 and 0.67.
    ///
    /// ```
    /// use lanesum::{hash, Algorithm, Bytes, LaneHasher};
    ///
    /// let body = Bytes::from(vec![7u8; 100_000]);
    /// let mut h = LaneHasher::new(Algorithm::Md5);
    /// h.update_bytes(body.slice(..60_001)).update_bytes(body.slice(60_001..));
    /// assert_eq!(h.finalize(), hash(Algorithm::Md5, &body));
    /// ```
    #[cfg(feature = "bytes")]
    pub fn update_bytes(&mut self, chunk: Bytes) -> &mut Self {
        dispatch!(&mut self.inner, s => s.update_bytes(chunk), h => {
            h.update(&chunk);
        });
        self
    }

    /// Bytes its stream holds unhashed in the pool (not counting the stage).
    #[cfg(test)]
    pub(crate) fn buffered(&self) -> usize {
        dispatch!(&self.inner, s => s.buffered(), _ => 0)
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Digest {
        let len = self.alg.digest_len();
        dispatch!(self.inner, s => s.finalize(len), h => h.finalize())
    }
}

/// `pool`, shared, and listed among the engine's helpers.
fn enlist<F: Family>(helpers: &mut Vec<Weak<dyn Help>>, pool: Pool<F>) -> Arc<Pool<F>> {
    let pool = Arc::new(pool);
    let weak: Weak<Pool<F>> = Arc::downgrade(&pool);
    helpers.push(weak);
    pool
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("level", &self.level)
            .field("writers", &self.writers())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for LaneHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaneHasher")
            .field("algorithm", &self.alg)
            .finish_non_exhaustive()
    }
}

impl io::Write for LaneHasher {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
