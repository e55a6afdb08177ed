//! What MD5, SHA-1 and SHA-2 share: block buffering, the length-padding rule and the
//! digest serialisation. Written once here so the streaming hasher, the batch path and the
//! lane engine cannot disagree on a byte. The sponge families (SHA-3 and SHAKE in the
//! lane engine) end their own way: `padded_len`, `pad_final` and `digest_of` hand them to
//! `sha3::family`.

use crate::family::{Compress, Family, Word, MAX_BLOCK};
use crate::sha3::family as sponge;
use crate::Digest;

/// A Merkle–Damgård hash (MD5, SHA-1, the SHA-2 family, SM3) part way through a message:
/// all there is to save it and go on later, as a resumable upload does. It is what Go's
/// `crypto/md5`, `crypto/sha1`, `crypto/sha256` and `crypto/sha512` hashes marshal
/// (`encoding.BinaryMarshaler`), so the Go binding reads and writes their format.
///
/// ```
/// use lanesum::{hash, Algorithm, Hasher};
/// let mut h = Hasher::new(Algorithm::Sha256);
/// h.update(b"hello ");
/// let saved = h.md_state().unwrap();
/// let mut resumed = Hasher::from_md_state(Algorithm::Sha256, &saved).unwrap();
/// resumed.update(b"world");
/// assert_eq!(resumed.finalize(), hash(Algorithm::Sha256, b"hello world"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MdState {
    /// The chaining words (4 for MD5, 5 for SHA-1, 8 for the others), each widened to
    /// 64 bits: the 32-bit families' fit the low half.
    pub words: Vec<u64>,
    /// The bytes of the block not yet compressed: `total % block size` of them.
    pub pending: Vec<u8>,
    /// Bytes absorbed in all (modulo 2^64).
    pub total: u64,
}

/// Bytes of the padded final block(s) for a message ending in `tail_len < BLOCK` bytes:
/// one block, or two when the 0x80 byte and the length field do not fit after the tail.
pub(crate) fn padded_len<F: Family>(tail_len: usize) -> usize {
    if F::SPONGE.is_some() || tail_len + 1 + F::LEN_BYTES <= F::BLOCK {
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
    if let Some(domain) = F::SPONGE {
        return sponge::pad::<F>(domain, tail, out);
    }
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

/// Pads the message whose unhashed tail is `tail` (short of a block) and whose length is
/// `total` bytes, and compresses the padded block(s) into `state` with `compress`: the end
/// of every single-stream message.
pub(crate) fn compress_final<F: Family>(
    compress: Compress<F>,
    state: &mut F::State,
    tail: &[u8],
    total: u64,
) {
    let mut last = [0u8; 2 * MAX_BLOCK];
    let used = pad_final::<F>(tail, total, &mut last);
    compress.run(state, &last[..used]);
}

/// The digest: the state's words in the family's byte order, truncated to `len` bytes.
#[inline]
pub(crate) fn digest_of<F: Family>(state: &F::State, len: usize) -> Digest {
    if F::SPONGE.is_some() {
        return sponge::squeeze::<F>(state, len);
    }
    Digest::from_array(state_bytes::<F>(state), len)
}

/// The digest (`len` bytes) of a whole message, from the initial state `iv`, on the
/// single-stream path `compress`: its whole blocks read in place, then the padded tail.
/// No block buffer is filled or moved, which is most of what a streaming hasher adds to
/// a message of a block or two.
pub(crate) fn digest_once<F: Family>(
    iv: &F::State,
    compress: Compress<F>,
    data: &[u8],
    len: usize,
) -> Digest {
    let whole = data.len() / F::BLOCK * F::BLOCK;
    let mut state = *iv;
    if whole > 0 {
        compress.run(&mut state, &data[..whole]);
    }
    compress_final::<F>(compress, &mut state, &data[whole..], data.len() as u64);
    digest_of::<F>(&state, len)
}

/// The state's words in the family's byte order (the digest before truncation), then
/// zeros.
#[inline]
pub(crate) fn state_bytes<F: Family>(state: &F::State) -> [u8; 64] {
    let w = <F::Word as Word>::BYTES;
    let mut out = [0u8; 64];
    for (chunk, &word) in out.chunks_exact_mut(w).zip(state.as_ref()) {
        if F::BIG_ENDIAN {
            word.write_be(chunk);
        } else {
            word.write_le(chunk);
        }
    }
    out
}

/// A stream's next chunk `c`, split for a pass in lanes that reads it in place: its
/// carried bytes (`carry[..*carry_len]`, short of a block) completed from the chunk's
/// start (the returned block, and its length: `F::BLOCK`, or 0 with nothing carried),
/// then the chunk's whole blocks after that; what is left over is carried. `None` (all
/// of `c` carried) while the carry stays short of a block.
pub(crate) fn split_chunk<'c, F: Family>(
    carry: &mut [u8; MAX_BLOCK],
    carry_len: &mut usize,
    c: &'c [u8],
) -> Option<([u8; MAX_BLOCK], usize, &'c [u8])> {
    let have = *carry_len;
    if have + c.len() < F::BLOCK {
        carry[have..have + c.len()].copy_from_slice(c);
        *carry_len += c.len();
        return None;
    }
    let fill = (F::BLOCK - have) % F::BLOCK;
    let mut head = *carry;
    head[have..have + fill].copy_from_slice(&c[..fill]);
    let head_len = if have == 0 { 0 } else { F::BLOCK };
    let rest = &c[fill..];
    let whole = rest.len() - rest.len() % F::BLOCK;
    let left = &rest[whole..];
    carry[..left.len()].copy_from_slice(left);
    *carry_len = left.len();
    Some((head, head_len, &rest[..whole]))
}

/// A streaming Merkle–Damgård hasher: state plus a partial block.
pub(crate) struct MdHasher<F: Family> {
    compress: Compress<F>,
    /// The initial state, for `reset` (one of the family's constants).
    iv: &'static F::State,
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
    /// A message from `iv`, compressed by `compress`.
    pub(crate) fn new(iv: &'static F::State, compress: Compress<F>) -> Self {
        MdHasher {
            compress,
            iv,
            state: *iv,
            buf: [0; MAX_BLOCK],
            buf_len: 0,
            total: 0,
        }
    }

    /// Back to the empty message.
    pub(crate) fn reset(&mut self) {
        (self.state, self.buf_len, self.total) = (*self.iv, 0, 0);
    }

    /// Where the message stands: chaining words, the bytes of an unfinished block, length.
    pub(crate) fn state(&self) -> MdState {
        MdState {
            words: self.state.as_ref().iter().map(|w| w.to_u64()).collect(),
            pending: self.buf[..self.buf_len].to_vec(),
            total: self.total,
        }
    }

    /// Go on from `s` (see [`MdState`]); `false`, changing nothing, unless it has this
    /// family's number of words, each fitting a word, and `total % BLOCK` pending bytes.
    pub(crate) fn resume(&mut self, s: &MdState) -> bool {
        let max = u64::MAX >> (64 - 8 * F::Word::BYTES);
        let fits = s.words.len() == F::WORDS
            && s.words.iter().all(|&w| w <= max)
            && s.total % F::BLOCK as u64 == s.pending.len() as u64;
        if fits {
            for (w, &v) in self.state.as_mut().iter_mut().zip(&s.words) {
                *w = F::Word::from_u64(v);
            }
            self.buf[..s.pending.len()].copy_from_slice(&s.pending);
            self.buf_len = s.pending.len();
            self.total = s.total;
        }
        fits
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
            self.compress.run(&mut self.state, &self.buf[..F::BLOCK]);
            self.buf_len = 0;
        }
        let whole = data.len() - data.len() % F::BLOCK;
        if whole > 0 {
            self.compress.run(&mut self.state, &data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// `c` split for a pass in lanes (see [`split_chunk`]), counted in the length; the
    /// caller then hashes the returned blocks from [`MdHasher::state_mut`].
    pub(crate) fn split_for_lanes<'c>(
        &mut self,
        c: &'c [u8],
    ) -> Option<([u8; MAX_BLOCK], usize, &'c [u8])> {
        self.total = self.total.wrapping_add(c.len() as u64);
        split_chunk::<F>(&mut self.buf, &mut self.buf_len, c)
    }

    pub(crate) fn state_mut(&mut self) -> &mut F::State {
        &mut self.state
    }

    /// Pads, compresses the final block(s) and returns the first `len` digest bytes.
    pub(crate) fn finalize(mut self, len: usize) -> Digest {
        let tail = &self.buf[..self.buf_len];
        compress_final::<F>(self.compress, &mut self.state, tail, self.total);
        digest_of::<F>(&self.state, len)
    }
}
