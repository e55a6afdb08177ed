//! XXH64, XXH3-64 and XXH3-128 with seed 0, through `xxhash-rust`; digests in the
//! canonical (big-endian) form `xxhsum` prints and S3 carries in base64.

use xxhash_rust::xxh3::Xxh3Default;
use xxhash_rust::xxh64::Xxh64;

use crate::{Algorithm, Digest};

/// One xxHash stream (XXH3's state is ~600 bytes: boxed).
#[derive(Clone)]
pub(crate) enum Xxh {
    X64(Xxh64),
    X3(Box<Xxh3Default>),
    X128(Box<Xxh3Default>),
}

impl Xxh {
    pub(crate) fn new(alg: Algorithm) -> Option<Xxh> {
        match alg {
            Algorithm::Xxh64 => Some(Xxh::X64(Xxh64::new(0))),
            Algorithm::Xxh3 => Some(Xxh::X3(Box::default())),
            Algorithm::Xxh128 => Some(Xxh::X128(Box::default())),
            _ => None,
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Xxh::X64(h) => h.update(data),
            Xxh::X3(h) | Xxh::X128(h) => h.update(data),
        }
    }

    pub(crate) fn finalize(&self) -> Digest {
        match self {
            Xxh::X64(h) => Digest::from_bytes(&h.digest().to_be_bytes()),
            Xxh::X3(h) => Digest::from_bytes(&h.digest().to_be_bytes()),
            Xxh::X128(h) => Digest::from_bytes(&h.digest128().to_be_bytes()),
        }
    }
}
