//! The streaming single-message hasher and the one-shot `hash`.

use std::fmt;
use std::io;

use crate::families::{self, each, map, Each, OneOf};
use crate::family::{Family, Kernels};
use crate::isa::{self, Features};
use crate::merkle_damgard::{self, MdHasher, MdState};
use crate::schedule;
use crate::{Algorithm, Digest};

/// BLAKE3 hands updates at least this large to rayon (with the `rayon` feature): below it, thread hand-off costs more
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

/// A streaming hasher of each Merkle-Damgård family.
struct Streaming;

impl Each for Streaming {
    type Of<F: Family> = MdHasher<F>;
}

// The Merkle-Damgård hashers stay inline: boxing them would cost an allocation for every
// `hash()` of a short message; the rest are boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Inner {
    /// MD5, SHA-1, the SHA-2 family and SM3.
    Md(OneOf<Streaming>),
    Blake2b(Box<blake2b_simd::State>),
    Blake2s(Box<blake2s_simd::State>),
    Blake3(Box<blake3::Hasher>),
    Md5p8(Box<crate::modes::md5p8::State>),
    Blake2bp(Box<blake2b_simd::blake2bp::State>),
    Blake2sp(Box<blake2s_simd::blake2sp::State>),
    Btv2(Box<crate::modes::btv2::Btv2State>),
    Checksum(Box<crate::checksums::Checksum>),
    Sha3(Box<crate::sha3::Sha3State>),
}

impl Hasher {
    /// # Panics
    /// If `alg` is a hand-built variable-length algorithm with an impossible length
    /// (`Blake2b(0)`, `Blake2b(65)`, `Blake2s(33)`); names parsed with
    /// `FromStr` or built with [`Algorithm::with_bits`] are always valid.
    pub fn new(alg: Algorithm) -> Hasher {
        Self::at(alg, isa::active())
    }

    /// A hasher whose compression is the fastest `level` allows.
    pub(crate) fn at(alg: Algorithm, level: Features) -> Hasher {
        assert!(alg.is_valid(), "invalid output length for {alg:?}");
        let inner = match families::lookup(alg) {
            Some(iv) => Inner::Md(map!(iv, |F, iv| MdHasher::new(
                iv,
                F::single(level).compress
            ))),
            None => Self::other(alg, level),
        };
        Hasher { alg, inner }
    }

    /// The algorithms without a Merkle-Damgard family.
    fn other(alg: Algorithm, level: Features) -> Inner {
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
            Algorithm::Md5p8 => Inner::Md5p8(Box::new(crate::modes::md5p8::State::at(level))),
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
            Algorithm::Btv2 => Inner::Btv2(Box::new(crate::modes::btv2::Btv2State::at(level))),
            _ => {
                if let Some(c) = crate::checksums::Checksum::new(alg) {
                    Inner::Checksum(Box::new(c))
                } else if let Some(s) = crate::sha3::Sha3State::new(alg) {
                    Inner::Sha3(Box::new(s))
                } else {
                    unreachable!("{alg} has a Merkle-Damgard family")
                }
            }
        }
    }

    /// The algorithm this hasher computes.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// The state part way through the message, for MD5, SHA-1, the SHA-2 family and SM3
    /// (`None` for the others): to save it and go on later with
    /// [`from_md_state`](Hasher::from_md_state).
    pub fn md_state(&self) -> Option<MdState> {
        match &self.inner {
            Inner::Md(h) => Some(each!(h, |_F, h| h.state())),
            _ => None,
        }
    }

    /// A hasher of `alg` going on from `state` (from [`md_state`](Hasher::md_state) of the
    /// same algorithm, or decoded from another program's save). `None` if `alg` is not
    /// MD5, SHA-1, SHA-2 or SM3, or `state` is not shaped as one of its states (see
    /// [`MdState`]). Words are not checked further: any are a state some message reaches
    /// as far as anyone can tell.
    pub fn from_md_state(alg: Algorithm, state: &MdState) -> Option<Hasher> {
        families::lookup(alg)?;
        let mut h = Hasher::new(alg);
        match &mut h.inner {
            Inner::Md(m) => each!(m, |_F, m| m.resume(state)).then_some(h),
            _ => None,
        }
    }

    /// Start over: forget everything absorbed, as a new hasher of the same algorithm
    /// (on the same instruction-set level).
    ///
    /// ```
    /// use lanesum::{hash, Algorithm, Hasher};
    /// let mut h = Hasher::new(Algorithm::Md5);
    /// h.update(b"junk");
    /// h.reset();
    /// h.update(b"abc");
    /// assert_eq!(h.finalize(), hash(Algorithm::Md5, b"abc"));
    /// ```
    pub fn reset(&mut self) {
        match &mut self.inner {
            // Same compression, same level: only the state starts over.
            Inner::Md(h) => each!(h, |_F, h| h.reset()),
            Inner::Md5p8(s) => s.reset(),
            // The others have no level of ours.
            _ => self.inner = Self::other(self.alg, Features::PORTABLE),
        }
    }

    /// Absorb `chunks[i]` into `hashers[i]` for every `i`: the streams of MD5, SHA-1, the
    /// SHA-2 family, SM3, BLAKE2b and BLAKE2s side by side in lanes (one pass per family,
    /// each chunk read in place), any other algorithm one after another.
    ///
    /// For a caller that schedules many streams itself and hands over one write of each
    /// at a time (a Go server gathering its writers' requests, through the C ABI): `update`
    /// on each would run them one at a time on the single-stream path, and the
    /// [`Engine`](crate::Engine) would copy them and coordinate their threads.
    ///
    /// ```
    /// use lanesum::{hash, Algorithm, Hasher};
    /// let mut a = Hasher::new(Algorithm::Md5);
    /// let mut b = Hasher::new(Algorithm::Md5);
    /// Hasher::update_many(&mut [&mut a, &mut b], &[b"abc", b"de"]);
    /// assert_eq!(a.finalize(), hash(Algorithm::Md5, b"abc"));
    /// assert_eq!(b.finalize(), hash(Algorithm::Md5, b"de"));
    /// ```
    ///
    /// # Panics
    /// If `chunks` does not have one entry per hasher.
    pub fn update_many(hashers: &mut [&mut Hasher], chunks: &[&[u8]]) {
        assert_eq!(hashers.len(), chunks.len(), "one chunk per hasher");
        let (mut md5, mut sha1, mut sha256, mut sha512, mut sm3) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut b2b, mut b2s) = (Vec::new(), Vec::new());
        for (h, &c) in hashers.iter_mut().zip(chunks) {
            if !matches!(
                h.inner,
                Inner::Md(_) | Inner::Blake2b(_) | Inner::Blake2s(_)
            ) {
                h.update(c);
                continue;
            }
            let md = match &mut h.inner {
                Inner::Md(md) => md,
                Inner::Blake2b(s) => {
                    b2b.push((&mut **s, c));
                    continue;
                }
                Inner::Blake2s(s) => {
                    b2s.push((&mut **s, c));
                    continue;
                }
                _ => unreachable!("checked above"),
            };
            match md {
                OneOf::Md5(m) => md5.push((m, c)),
                OneOf::Sha1(m) => sha1.push((m, c)),
                OneOf::Sha256(m) => sha256.push((m, c)),
                OneOf::Sha512(m) => sha512.push((m, c)),
                OneOf::Sm3(m) => sm3.push((m, c)),
            }
        }
        let level = isa::active();
        update_lanes(md5, level);
        update_lanes(sha1, level);
        update_lanes(sha256, level);
        update_lanes(sha512, level);
        update_lanes(sm3, level);
        // The crates' own side-by-side code (AVX2: 4 BLAKE2b or 8 BLAKE2s at once), as
        // `hash_many` uses for whole messages.
        blake2b_simd::many::update_many(b2b);
        blake2s_simd::many::update_many(b2s);
    }

    /// Whether [`update`](Hasher::update) of `len` bytes, from where this hasher stands,
    /// may run on rayon's threads (BLAKE3, the CRCs and BitTorrent v2 spread large inputs
    /// over them): for a caller that must run such calls in a pool of its own, as a forked
    /// child must (the parent's pool has no threads there; see the Python package). Small
    /// writes still spread once they fill BitTorrent v2's batch of leaves, which the
    /// write's length alone can't tell.
    ///
    /// ```
    /// use lanesum::{Algorithm, Hasher};
    /// assert!(!Hasher::new(Algorithm::Md5).update_may_spread(1 << 30));
    /// let mut h = Hasher::new(Algorithm::Btv2);
    /// let mut spreading = 0;
    /// for _ in 0..128 {
    ///     spreading += usize::from(h.update_may_spread(64 << 10));
    ///     h.update(&[7; 64 << 10]);
    /// }
    /// // 8 MiB in 64 KiB writes: 4 MiB batches of leaves, hashed on every core (with
    /// // the default `rayon` feature).
    /// assert!(spreading >= 1);
    /// ```
    pub fn update_may_spread(&self, len: usize) -> bool {
        match &self.inner {
            Inner::Blake3(_) => cfg!(feature = "rayon") && len >= BLAKE3_RAYON_MIN,
            Inner::Btv2(h) => h.update_may_spread(len),
            Inner::Checksum(h) => h.update_may_spread(len),
            _ => false,
        }
    }

    /// Absorb more of the message.
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        match &mut self.inner {
            Inner::Md(h) => each!(h, |_F, h| h.update(data)),
            Inner::Blake2b(h) => {
                h.update(data);
            }
            Inner::Blake2s(h) => {
                h.update(data);
            }
            Inner::Blake3(h) => {
                #[cfg(feature = "rayon")]
                if data.len() >= BLAKE3_RAYON_MIN {
                    h.update_rayon(data);
                    return self;
                }
                h.update(data);
            }
            Inner::Md5p8(h) => h.update(data),
            Inner::Blake2bp(h) => {
                h.update(data);
            }
            Inner::Blake2sp(h) => {
                h.update(data);
            }
            Inner::Btv2(h) => h.update(data),
            Inner::Checksum(h) => h.update(data),
            Inner::Sha3(h) => h.update(data),
        }
        self
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Digest {
        let len = self.alg.digest_len();
        match self.inner {
            Inner::Md(h) => each!(h, |_F, h| h.finalize(len)),
            Inner::Blake2b(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Blake2s(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Blake3(h) => Digest::with_len(len, |out| h.finalize_xof().fill(out)),
            Inner::Md5p8(h) => h.finalize(),
            Inner::Blake2bp(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Blake2sp(h) => Digest::from_bytes(h.finalize().as_bytes()),
            Inner::Btv2(h) => h.finalize(),
            Inner::Checksum(h) => h.finalize(),
            Inner::Sha3(h) => h.finalize(),
        }
    }
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hasher")
            .field("algorithm", &self.alg)
            .finish_non_exhaustive()
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
    hash_at(alg, data, isa::active())
}

/// [`hash`] at `level`.
pub(crate) fn hash_at(alg: Algorithm, data: &[u8], level: Features) -> Digest {
    if let Some(iv) = families::lookup(alg) {
        return each!(iv, |F, iv| merkle_damgard::digest_once::<F>(
            iv,
            F::single(level).compress,
            data,
            alg.digest_len()
        ));
    }
    let mut h = Hasher::at(alg, level);
    h.update(data);
    h.finalize()
}

/// Each hasher's chunk, whole blocks side by side in lanes at `level` (see
/// [`Hasher::update_many`]).
fn update_lanes<F: Family>(mut work: Vec<(&mut MdHasher<F>, &[u8])>, level: Features) {
    if work.is_empty() {
        return;
    }
    let mut chunks = Vec::with_capacity(work.len());
    for (i, (h, c)) in work.iter_mut().enumerate() {
        if let Some(split) = h.split_for_lanes(c) {
            chunks.push((i, *h.state_mut(), split));
        }
    }
    schedule::run_chunks(&Kernels::<F>::new(level), chunks, |i, s| {
        *work[i].0.state_mut() = *s
    });
}
