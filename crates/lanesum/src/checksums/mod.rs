//! The non-cryptographic checksums, one stream at a time: the CRCs (through `crc-fast`,
//! the engine of the AWS SDK for Rust), the BSD and System V `sum`, and xxHash (through
//! `xxhash-rust`). Each is serialised big-endian, the order S3, `xxhsum` and `cksum`
//! print them in.

mod crc;
pub(crate) mod crc_combine;
mod sum;
mod xxh;

use crate::{Algorithm, Digest};

/// The streaming state of one checksum (boxed behind `Hasher` as a whole, so the
/// variants' sizes matter little).
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum Checksum {
    Crc(crc::Crc),
    Sum(sum::Sum),
    Xxh(xxh::Xxh),
}

impl Checksum {
    /// The state of `alg`, or `None` if `alg` is not one of these checksums.
    pub(crate) fn new(alg: Algorithm) -> Option<Checksum> {
        crc::Crc::new(alg)
            .map(Checksum::Crc)
            .or_else(|| sum::Sum::new(alg).map(Checksum::Sum))
            .or_else(|| xxh::Xxh::new(alg).map(Checksum::Xxh))
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Checksum::Crc(c) => c.update(data),
            Checksum::Sum(s) => s.update(data),
            Checksum::Xxh(x) => x.update(data),
        }
    }

    /// Whether `update` of `len` bytes may run on rayon's threads (a large CRC).
    pub(crate) fn update_may_spread(&self, len: usize) -> bool {
        matches!(self, Checksum::Crc(_)) && crc::Crc::update_may_spread(len)
    }

    pub(crate) fn finalize(&self) -> Digest {
        match self {
            Checksum::Crc(c) => c.finalize(),
            Checksum::Sum(s) => s.finalize(),
            Checksum::Xxh(x) => x.finalize(),
        }
    }
}
