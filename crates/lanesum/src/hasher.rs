//! The streaming single-message hasher and the one-shot `hash`.

use std::io;

use crate::md5::Md5;
use crate::merkle_damgard::{self, MdHasher, Start};
use crate::sha1::Sha1;
use crate::sha256::Sha256;
use crate::sha512::Sha512;
use crate::{Algorithm, Digest};

/// BLAKE3 hands updates at least this large to rayon: below it, thread hand-off costs more
/// than the extra core gains.
const BLAKE3_RAYON_MIN: usize = 256 * 1024;

/// Streaming hasher for one message with any [`Algorithm`].
///
/// ```
/// use std::io::Write;
/// use lanesum::{Algorithm, Hasher};
///
/// let mut h = Hasher::new(Algorithm::Sha256);
/// h.update(b"hello ");
/// write!(h, "world").unwrap();
/// assert_eq!(
///     h.finalize().to_hex(),
///     "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
/// );
/// ```
#[derive(Clone)]
pub struct Hasher {
    alg: Algorithm,
    inner: Inner,
}

#[derive(Clone)]
enum Inner {
    Md5(MdHasher<Md5>),
    Sha1(MdHasher<Sha1>),
    Sha256(MdHasher<Sha256>),
    Sha512(MdHasher<Sha512>),
    Blake2b(Box<blake2b_simd::State>),
    Blake2s(Box<blake2s_simd::State>),
    Blake3(Box<blake3::Hasher>),
    Md5p8(Box<crate::modes::md5p8::State>),
    Blake2bp(Box<blake2b_simd::blake2bp::State>),
    Blake2sp(Box<blake2s_simd::blake2sp::State>),
    Btv2(Box<crate::modes::torrent::Btv2State>),
}

impl Hasher {
    /// # Panics
    /// If `alg` is a hand-built variable-length algorithm with an impossible length
    /// (`Blake2b(0)`, `Blake2b(65)`, `Blake2s(33)`); names parsed with
    /// `FromStr` or built with [`Algorithm::with_bits`] are always valid.
    pub fn new(alg: Algorithm) -> Hasher {
        assert!(alg.is_valid(), "invalid output length for {alg:?}");
        let inner = match merkle_damgard::start(alg) {
            Some(Start::Md5(iv)) => Inner::Md5(MdHasher::new(iv)),
            Some(Start::Sha1(iv)) => Inner::Sha1(MdHasher::new(iv)),
            Some(Start::Sha256(iv)) => Inner::Sha256(MdHasher::new(iv)),
            Some(Start::Sha512(iv)) => Inner::Sha512(MdHasher::new(iv)),
            None => Self::other(alg),
        };
        Hasher { alg, inner }
    }

    /// The algorithms without a Merkle-Damgard family.
    fn other(alg: Algorithm) -> Inner {
        match alg {
            Algorithm::Blake2b(n) => Inner::Blake2b(Box::new(
                blake2b_simd::Params::new()
                    .hash_length(n as usize)
                    .to_state(),
            )),
            Algorithm::Blake2s(n) => Inner::Blake2s(Box::new(
                blake2s_simd::Params::new()
                    .hash_length(n as usize)
                    .to_state(),
            )),
            Algorithm::Blake3(_) => Inner::Blake3(Box::default()),
            Algorithm::Md5p8 => Inner::Md5p8(Box::new(crate::modes::md5p8::State::new())),
            Algorithm::Blake2bp(n) => Inner::Blake2bp(Box::new(
                blake2b_simd::blake2bp::Params::new()
                    .hash_length(n as usize)
                    .to_state(),
            )),
            Algorithm::Blake2sp(n) => Inner::Blake2sp(Box::new(
                blake2s_simd::blake2sp::Params::new()
                    .hash_length(n as usize)
                    .to_state(),
            )),
            Algorithm::Btv2 => Inner::Btv2(Box::default()),
            _ => unreachable!("{alg} has a Merkle-Damgard family"),
        }
    }

    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// Absorb more of the message.
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        match &mut self.inner {
            Inner::Md5(h) => h.update(data),
            Inner::Sha1(h) => h.update(data),
            Inner::Sha256(h) => h.update(data),
            Inner::Sha512(h) => h.update(data),
            Inner::Blake2b(h) => {
                h.update(data);
            }
            Inner::Blake2s(h) => {
                h.update(data);
            }
            Inner::Blake3(h) => {
                if data.len() >= BLAKE3_RAYON_MIN {
                    h.update_rayon(data);
                } else {
                    h.update(data);
                }
            }
            Inner::Md5p8(h) => h.update(data),
            Inner::Blake2bp(h) => {
                h.update(data);
            }
            Inner::Blake2sp(h) => {
                h.update(data);
            }
            Inner::Btv2(h) => h.update(data),
        }
        self
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Digest {
        let len = self.alg.digest_len();
        match self.inner {
            Inner::Md5(h) => h.finalize(len),
            Inner::Sha1(h) => h.finalize(len),
            Inner::Sha256(h) => h.finalize(len),
            Inner::Sha512(h) => h.finalize(len),
            Inner::Blake2b(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Blake2s(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Blake3(h) => Digest::with_len(len, |out| h.finalize_xof().fill(out)),
            Inner::Md5p8(h) => h.finalize(),
            Inner::Blake2bp(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Blake2sp(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Btv2(h) => h.finalize(),
        }
    }
}

impl io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The digest of `data` under `alg`.
///
/// ```
/// use lanesum::{hash, Algorithm};
/// assert_eq!(hash(Algorithm::Sha1, b"abc").to_hex(), "a9993e364706816aba3e25717850c26c9cd0d89d");
/// assert_eq!(hash(Algorithm::Blake3(32), b"").to_hex(),
///            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
/// ```
pub fn hash(alg: Algorithm, data: &[u8]) -> Digest {
    let mut h = Hasher::new(alg);
    h.update(data);
    h.finalize()
}
