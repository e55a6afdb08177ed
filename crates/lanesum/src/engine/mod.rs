//! The lane engine: concurrent streams share SIMD lanes.
//!
//! Servers rarely have whole messages up front: they have many uploads arriving at once,
//! each a stream of writes. A [`LaneHasher`] is a streaming hasher (`update`, `finalize`,
//! [`std::io::Write`], `Send`) whose whole blocks go through an [`Engine`]: when several
//! streams are writing, each write is buffered (at most 256 KiB per stream, in two halves)
//! and a thread that has filled both halves hashes its first together with every other
//! stream's waiting half in one multi-lane kernel call. There is no engine thread: the
//! thread that brings data does the hashing, a lone stream hashes at once on the
//! single-stream path, and a writer that outruns the engine hashes (its own and others'
//! blocks) or waits for the round that holds its blocks, instead of buffering more.
//!
//! ```
//! use std::io::Write;
//! use lanesum::{hash, Algorithm, LaneHasher};
//!
//! let handles: Vec<_> = (0..8u8)
//!     .map(|t| {
//!         std::thread::spawn(move || {
//!             let mut h = LaneHasher::new(Algorithm::Sha256);
//!             for _ in 0..100 {
//!                 h.write_all(&[t; 1000]).unwrap();
//!             }
//!             h.finalize()
//!         })
//!     })
//!     .collect();
//! for (t, th) in handles.into_iter().enumerate() {
//!     assert_eq!(th.join().unwrap(), hash(Algorithm::Sha256, &vec![t as u8; 100_000]));
//! }
//! ```
//!
//! Only MD5, SHA-1 and the SHA-2 family have lane kernels; a `LaneHasher` of any other
//! algorithm is a plain [`Hasher`](crate::Hasher). [`MultiHasher`] computes several
//! algorithms of one stream in one pass.

mod multi;
mod pool;

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use crate::md5::Md5;
use crate::merkle_damgard::{self, Start};
use crate::sha1::Sha1;
use crate::sha256::Sha256;
use crate::sha512::Sha512;
use crate::{isa, Algorithm, Digest, Hasher};
pub use multi::MultiHasher;
use pool::{Pool, SharedHalf, Stream};

/// Shared lanes for any number of streams on any threads; cheap to clone (a handle).
///
/// Most programs use the process-wide [`Engine::global`] (what [`LaneHasher::new`] does);
/// a separate engine keeps one group of streams from waiting on another's rounds.
#[derive(Clone)]
pub struct Engine {
    md5: Arc<Pool<Md5>>,
    sha1: Arc<Pool<Sha1>>,
    sha256: Arc<Pool<Sha256>>,
    sha512: Arc<Pool<Sha512>>,
    /// Writers (streams that have handed blocks to a pool and not finished), over all
    /// families (each pool counts its own as well).
    writers: Arc<AtomicUsize>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// A new engine using the kernels of the active instruction-set level.
    pub fn new() -> Engine {
        let f = isa::active();
        let all = Arc::new(AtomicUsize::new(0));
        Engine {
            md5: Arc::new(Pool::new(f, all.clone())),
            sha1: Arc::new(Pool::new(f, all.clone())),
            sha256: Arc::new(Pool::new(f, all.clone())),
            sha512: Arc::new(Pool::new(f, all.clone())),
            writers: all,
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
        let inner = match merkle_damgard::start(alg) {
            Some(Start::Md5(iv)) => Inner::Md5(Stream::new(self.md5.clone(), iv)),
            Some(Start::Sha1(iv)) => Inner::Sha1(Stream::new(self.sha1.clone(), iv)),
            Some(Start::Sha256(iv)) => Inner::Sha256(Stream::new(self.sha256.clone(), iv)),
            Some(Start::Sha512(iv)) => Inner::Sha512(Stream::new(self.sha512.clone(), iv)),
            None => Inner::Plain(Hasher::new(alg)),
        };
        LaneHasher { alg, inner }
    }

    /// Writers of this engine, over all families.
    pub(crate) fn writers(&self) -> usize {
        self.writers.load(Ordering::Relaxed)
    }

    /// The size of a half shared by `streams` streams now (the same in every family's pool).
    pub(crate) fn shared_half(&self, streams: usize) -> usize {
        self.md5.shared_half(streams)
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
    Md5(Stream<Md5>),
    Sha1(Stream<Sha1>),
    Sha256(Stream<Sha256>),
    Sha512(Stream<Sha512>),
    Plain(Hasher),
}

/// `$stream` with `$s` bound to the stream of whichever family `$inner` holds, or
/// `$plain` with `$h` bound to its plain hasher.
macro_rules! dispatch {
    ($inner:expr, $s:ident => $stream:expr, $h:pat => $plain:expr) => {
        match $inner {
            Inner::Md5($s) => $stream,
            Inner::Sha1($s) => $stream,
            Inner::Sha256($s) => $stream,
            Inner::Sha512($s) => $stream,
            Inner::Plain($h) => $plain,
        }
    };
}

impl LaneHasher {
    /// A hasher on the process-wide engine.
    pub fn new(alg: Algorithm) -> LaneHasher {
        Engine::global().hasher(alg)
    }

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
    /// stream holds at most 256 KiB of slices of its chunks (which keep their buffers
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
    pub fn update_bytes(&mut self, chunk: Bytes) -> &mut Self {
        dispatch!(&mut self.inner, s => s.update_bytes(chunk), h => {
            h.update(&chunk);
        });
        self
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Digest {
        let len = self.alg.digest_len();
        dispatch!(self.inner, s => s.finalize(len), h => h.finalize())
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

#[cfg(test)]
mod tests;
