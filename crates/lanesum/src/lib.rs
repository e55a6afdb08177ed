//! lanesum: fast, correct checksums — MD5, SHA-1, SHA-2, BLAKE2, BLAKE3.
//!
//! Hash one message with [`hash`] or the streaming [`Hasher`]:
//!
//! ```
//! use lanesum::{hash, Algorithm};
//! let alg: Algorithm = "sha256".parse().unwrap();
//! assert_eq!(
//!     hash(alg, b"abc").to_hex(),
//!     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//! );
//! ```
//!
//! Instruction sets are detected once per process ([`isa`]); `LANESUM_ISA` forces a level.
#![deny(unsafe_op_in_unsafe_fn)]

mod algorithm;
mod batch;
mod digest;
mod engine;
mod hasher;
pub mod isa;
mod lanes;
mod merkle_damgard;
pub mod modes;
mod schedule;
mod stream_batch;
mod waves;

mod blake2;
mod blake3;
mod md5;
mod sha1;
mod sha256;
mod sha512;
#[cfg(target_arch = "x86_64")]
mod x86_opaque;
#[cfg(target_arch = "x86_64")]
mod x86_transpose;

pub use algorithm::{Algorithm, ParseAlgorithmError};
pub use batch::{hash_many, hash_many_par, hash_many_with, kernels, KernelInfo};
/// The owned chunks [`LaneHasher::update_bytes`] and [`MultiHasher::update_bytes`] take.
pub use bytes::Bytes;
pub use digest::{hex_lower, Digest};
pub use engine::{Engine, LaneHasher, MultiHasher};
pub use hasher::{hash, Hasher};
pub use stream_batch::StreamBatch;
