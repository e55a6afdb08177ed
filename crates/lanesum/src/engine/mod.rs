//! The lane engine: concurrent streams share SIMD lanes.
//!
//! Servers rarely have whole messages up front: they have many uploads arriving at once,
//! each a stream of writes. A [`LaneHasher`] is a streaming hasher (`update`, `finalize`,
//! [`std::io::Write`], `Send`) whose whole blocks go through an [`Engine`]: when several
//! streams are writing, each write is buffered (at most 512 KiB per stream, in two halves)
//! and a thread that has filled both halves hashes its first together with every other
//! stream's waiting half in one multi-lane kernel call. There is no engine thread: the
//! thread that brings data does the hashing, a lone stream hashes at once on the
//! single-stream path, and a writer that outruns the engine hashes (its own and others'
//! blocks) or waits for the round that holds its blocks, instead of buffering more; while
//! it waits, it hashes other streams' waiting blocks, so its core does not go idle.
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
//! MD5, SHA-1, the SHA-2 family, SM3 and the SHA-3 and SHAKE sponges have lane kernels (each
//! function's streams share lanes with the same function's only); a `LaneHasher` of any
//! other algorithm is a plain [`Hasher`](crate::Hasher). [`MultiHasher`] computes several
//! algorithms of one stream in one pass.

#[cfg(feature = "rayon")]
mod background;
mod crew;
mod half;
mod lane_hasher;
mod multi;
mod pool;
mod stream;

pub use lane_hasher::{Engine, LaneHasher};
pub use multi::MultiHasher;

#[cfg(test)]
mod tests;
