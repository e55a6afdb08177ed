//! lanesum: fast, correct checksums — MD5, SHA-1, SHA-2, BLAKE2, BLAKE3, SHA-3, SM3,
//! CRC-32/32C/64, xxHash and the `sum` checksums.
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
//! Many messages at once go through the SIMD lanes with [`hash_many`]; concurrent
//! streams share them through the [`Engine`] ([`LaneHasher`], [`MultiHasher`]) or, on one
//! thread, [`StreamBatch`]; [`modes`] has the published schemes built from many hashes of
//! one input (S3 ETags, BitTorrent, rsync's MD5P8, BLAKE2bp/sp).
//!
//! Instruction sets are detected once per process ([`isa`]); `LANESUM_ISA` forces a level
//! and [`isa::with_level`] one thread's. [`diagnostics`] lists the kernels.
//!
//! Features: `rayon` (default) spreads work over cores ([`hash_many_par`], BLAKE3 of
//! large inputs, [`MultiHasher`] alone, the modes); `bytes` (default) takes owned chunks
//! without a copy ([`LaneHasher::update_bytes`]); `digest` implements the RustCrypto
//! `digest` traits for `Md5`, `Sha256` and the other fixed-length algorithms
//! (`rustcrypto`).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs, missing_debug_implementations)]

// Names, digests, the streaming hasher: what every layer above uses.
mod algorithm;
mod digest;
mod hasher;

// Instruction sets and the kernels' contracts.
mod family;
pub mod isa;
mod lanes;
mod merkle_damgard;
mod sys;
mod uarch;

// The Merkle-Damgård families (one folder each) and the one place that dispatches on them.
mod families;
mod md5;
mod sha1;
mod sha256;
mod sha512;
mod sm3;
#[cfg(target_arch = "x86_64")]
mod x86_opaque;
#[cfg(target_arch = "x86_64")]
mod x86_transpose;

mod blake2;
mod blake3;
mod checksums;
mod sha3;

// Schedulers: whole messages, streams on one thread, streams on any thread.
mod batch;
mod engine;
mod schedule;
mod stream_batch;
mod waves;

pub mod diagnostics;
pub mod modes;

#[cfg(feature = "digest")]
pub mod rustcrypto;
#[cfg(test)]
mod testing;

pub use algorithm::{Algorithm, ParseAlgorithmError};
#[cfg(feature = "rayon")]
pub use batch::hash_many_par;
pub use batch::{hash_many, hash_many_into};
/// The owned chunks [`LaneHasher::update_bytes`] and [`MultiHasher::update_bytes`] take.
#[cfg(feature = "bytes")]
pub use bytes::Bytes;
pub use digest::{hex_lower, hex_lower_into, Digest};
pub use engine::{Engine, LaneHasher, MultiHasher};
pub use hasher::{hash, Hasher};
pub use merkle_damgard::MdState;
#[cfg(feature = "digest")]
pub use rustcrypto::{Md5, Sha1, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
pub use stream_batch::StreamBatch;
