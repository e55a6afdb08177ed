//! What MD5, SHA-1 and SHA-2 share: block buffering, the length-padding rule and the
//! digest serialisation. Written once here so the streaming hasher, the batch path and the
//! lane engine cannot disagree on a byte.

use crate::isa::Features;
use crate::lanes::LaneKernel;
use crate::{md5, sha1, sha256, sha512, Algorithm, Digest};

/// A word of chaining state (`u32` or `u64`).
pub(crate) trait Word:
    Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static
{
    const BYTES: usize;
    /// Truncating conversion, for tests that want random words.
    #[cfg_attr(not(test), allow(dead_code))]
    fn from_u64(x: u64) -> Self;
    fn write_be(self, out: &mut [u8]);
    fn write_le(self, out: &mut [u8]);
}

impl Word for u32 {
    const BYTES: usize = 4;
    fn from_u64(x: u64) -> Self {
        x as u32
    }
    fn write_be(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_be_bytes()[..out.len()]);
    }
    fn write_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes()[..out.len()]);
    }
}

impl Word for u64 {
    const BYTES: usize = 8;
    fn from_u64(x: u64) -> Self {
        x
    }
    fn write_be(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_be_bytes()[..out.len()]);
    }
    fn write_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes()[..out.len()]);
    }
}

/// Largest block of any family (SHA-512).
pub(crate) const MAX_BLOCK: usize = 128;

/// One Merkle–Damgård hash family: its block shape and its compression functions.
pub(crate) trait Family: 'static {
    type Word: Word;
    /// The chaining state, `[Word; N]`.
    type State: Copy + Default + Send + Sync + AsRef<[Self::Word]> + AsMut<[Self::Word]>;
    /// Words of chaining state.
    const WORDS: usize;
    /// Block size in bytes.
    const BLOCK: usize;
    /// Size of the trailing message-length field in bytes (8, or 16 for SHA-512).
    const LEN_BYTES: usize;
    /// Length field and digest words are big-endian (SHA) rather than little-endian (MD5).
    const BIG_ENDIAN: bool;

    /// The plain scalar compression function: the reference every fast kernel is tested
    /// against. `blocks.len()` is a multiple of `BLOCK`.
    fn compress_portable(state: &mut Self::State, blocks: &[u8]);

    /// The fastest single-stream compression the active instruction set allows.
    fn compress(state: &mut Self::State, blocks: &[u8]) {
        Self::compress_portable(state, blocks)
    }

    /// Rough single-stream GB/s per core under `features` (see `LaneKernel::est_gbps`).
    fn single_gbps(features: Features) -> f32;

    /// Multi-lane kernels usable under `features`, besides the single-stream one.
    fn lane_kernels(_features: Features) -> Vec<LaneKernel<Self::Word>> {
        Vec::new()
    }
}

/// Every kernel of `F` usable under `features`, the single-stream one first.
pub(crate) fn kernels<F: Family>(features: Features) -> Vec<LaneKernel<F::Word>> {
    let mut v = vec![crate::lanes::single_stream::<F>(features)];
    v.extend(F::lane_kernels(features));
    v
}

/// Bytes of the padded final block(s) for a message ending in `tail_len < BLOCK` bytes:
/// one block, or two when the 0x80 byte and the length field do not fit after the tail.
pub(crate) fn padded_len<F: Family>(tail_len: usize) -> usize {
    if tail_len + 1 + F::LEN_BYTES <= F::BLOCK {
        F::BLOCK
    } else {
        2 * F::BLOCK
    }
}

/// Writes the final padded block(s) of a message whose unhashed tail is `tail`
/// (`tail.len() < F::BLOCK`) and whose total length is `total` bytes; returns how many
/// bytes of `out` were used (one or two blocks).
pub(crate) fn pad_final<F: Family>(
    tail: &[u8],
    total: u64,
    out: &mut [u8; 2 * MAX_BLOCK],
) -> usize {
    debug_assert!(tail.len() < F::BLOCK);
    let used = padded_len::<F>(tail.len());
    // Zero whole blocks with constant sizes (inline stores, not a memset call per lane),
    // then lay the tail over them.
    if used == F::BLOCK {
        out[..F::BLOCK].fill(0);
    } else {
        out[..2 * F::BLOCK].fill(0);
    }
    out[..tail.len()].copy_from_slice(tail);
    out[tail.len()] = 0x80;
    // Lengths are in bits; 64-bit fields wrap modulo 2^64 bits as the standards say.
    let bits = (total as u128) << 3;
    let field = &mut out[used - F::LEN_BYTES..used];
    if F::BIG_ENDIAN {
        field.copy_from_slice(&bits.to_be_bytes()[16 - F::LEN_BYTES..]);
    } else {
        field.copy_from_slice(&bits.to_le_bytes()[..F::LEN_BYTES]);
    }
    used
}

/// The digest: the state's words in the family's byte order, truncated to `len` bytes.
pub(crate) fn digest_of<F: Family>(state: &F::State, len: usize) -> Digest {
    let w = <F::Word as Word>::BYTES;
    let mut out = [0u8; 64];
    for (chunk, &word) in out.chunks_exact_mut(w).zip(state.as_ref()) {
        if F::BIG_ENDIAN {
            word.write_be(chunk);
        } else {
            word.write_le(chunk);
        }
    }
    Digest::from_array(out, len)
}

/// A streaming Merkle–Damgård hasher: state plus a partial block.
pub(crate) struct MdHasher<F: Family> {
    state: F::State,
    buf: [u8; MAX_BLOCK],
    buf_len: usize,
    total: u64,
}

// Manual impl: a derive would demand `F: Clone` of the marker type.
impl<F: Family> Clone for MdHasher<F> {
    fn clone(&self) -> Self {
        MdHasher { ..*self }
    }
}

impl<F: Family> MdHasher<F> {
    pub(crate) fn new(iv: F::State) -> Self {
        MdHasher {
            state: iv,
            buf: [0; MAX_BLOCK],
            buf_len: 0,
            total: 0,
        }
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.buf_len > 0 {
            let take = (F::BLOCK - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < F::BLOCK {
                return;
            }
            F::compress(&mut self.state, &self.buf[..F::BLOCK]);
            self.buf_len = 0;
        }
        let whole = data.len() - data.len() % F::BLOCK;
        if whole > 0 {
            F::compress(&mut self.state, &data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Pads, compresses the final block(s) and returns the first `len` digest bytes.
    pub(crate) fn finalize(mut self, len: usize) -> Digest {
        let mut last = [0u8; 2 * MAX_BLOCK];
        let used = pad_final::<F>(&self.buf[..self.buf_len], self.total, &mut last);
        F::compress(&mut self.state, &last[..used]);
        digest_of::<F>(&self.state, len)
    }
}

/// A lane algorithm's family, with the algorithm's initial chaining state: the one place
/// that maps algorithms onto the four compression families.
pub(crate) enum Start {
    Md5([u32; 4]),
    Sha1([u32; 5]),
    Sha256([u32; 8]),
    Sha512([u64; 8]),
}

/// `None` for algorithms without lane kernels (BLAKE2, BLAKE3, the modes).
pub(crate) fn start(alg: Algorithm) -> Option<Start> {
    Some(match alg {
        Algorithm::Md5 => Start::Md5(md5::IV),
        Algorithm::Sha1 => Start::Sha1(sha1::IV),
        Algorithm::Sha224 => Start::Sha256(sha256::IV_224),
        Algorithm::Sha256 => Start::Sha256(sha256::IV_256),
        Algorithm::Sha384 => Start::Sha512(sha512::IV_384),
        Algorithm::Sha512 => Start::Sha512(sha512::IV_512),
        Algorithm::Sha512_224 => Start::Sha512(sha512::IV_512_224),
        Algorithm::Sha512_256 => Start::Sha512(sha512::IV_512_256),
        _ => return None,
    })
}
