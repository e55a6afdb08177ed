//! The buffers a stream's whole blocks wait in for a round: a half.
//!
//! A half is the stream's own buffer (copies of its writes), a buffer shared by the
//! several streams of a `MultiHasher` (copied once for all its algorithms), or slices of
//! the caller's owned chunks (`update_bytes`), hashed where they are.

use std::sync::Arc;

#[cfg(feature = "bytes")]
use bytes::Bytes;

use crate::schedule::{segs, SEGS};

/// Bounds of a half: what a round hashes of each claimed stream. With more writer threads
/// than cores every half costs a thread switch or two, so halves are large, but the
/// halves of all the engine's streams should stay in the last-level cache, so they
/// shrink as streams are added (see [`Pool::half`]). In tests, small enough that every
/// test's streams fill halves often (the logic does not depend on the size).
pub(crate) const MAX_HALF: usize = if cfg!(miri) {
    4096
} else if cfg!(test) {
    8 * 1024
} else {
    256 * 1024
};
pub(crate) const MIN_HALF: usize = if cfg!(any(test, miri)) {
    MAX_HALF / 8
} else {
    16 * 1024
};

/// Bytes of halves the engine's streams should hold between them (each holds two).
/// Measured with 32 threads of 32 KiB writes: MD5 alone reached 0.57 of `hash_many_par`
/// with 32 KiB halves and 0.70 with 128 KiB (fewer switches), while md5+sha1+sha256+sha512
/// (4 streams per thread) ran 1.95 GiB/s with 32 KiB halves and 1.55 with 128 KiB (cache
/// misses). Since rounds count every CPU's halves (see `Pool::gather`), 256 KiB halves
/// for 32 streams against 128 KiB (same process, alternating, 2 cores): 32 MD5 threads
/// 0.95x through `update` and 1.18x through `update_bytes`, SHA-256 1.23x and 1.10x.
pub(crate) const HALVES_BUDGET: usize = if cfg!(test) { 64 << 10 } else { 8 << 20 };

/// Bytes of owned chunks a half holds. `HALVES_BUDGET` keeps the engine's copies in the
/// last-level cache, but chunks are no copies (and a `MultiHasher`'s streams share them),
/// so they fill the largest half: fewer rounds, and with more writer threads than cores,
/// fewer thread switches. 32 MultiHashers of 32 KiB chunks, noisy neighbour: 3.75x the
/// sequential reference with halves of the budget's size, 4.18x with 128 KiB; 32 MD5
/// streams on a thread each 1.18x faster with 256 KiB than with 128 KiB.
pub(crate) const CHUNKS_HALF: usize = MAX_HALF;

/// Whole blocks of one message, handed to the several streams that hash it (a
/// `MultiHasher`'s, one per algorithm) so that none needs a copy of its own.
pub(crate) type SharedHalf = Arc<Vec<u8>>;

/// A half's bytes: the stream's own buffer, a shared one (never appended to: it counts as
/// full), or slices of a caller's owned chunks, hashed where they are.
// Chunks are inline, not boxed: halves live in slots and move one at a time, and boxing
// would allocate for every chunk.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Half {
    Own(Vec<u8>),
    Shared(SharedHalf),
    /// In order, the non-empty ones first: at most a lane job's segments. One may be the
    /// stream's staged bytes completed to whole blocks with a chunk's first bytes, the
    /// only bytes of a chunk that are copied.
    #[cfg(feature = "bytes")]
    Chunks([Bytes; SEGS]),
}

impl Default for Half {
    fn default() -> Self {
        Half::Own(Vec::new())
    }
}

impl Half {
    /// The bytes, in order, as a job's segments.
    pub(crate) fn segs(&self) -> [&[u8]; SEGS] {
        match self {
            Half::Own(v) => segs([&v[..]]),
            Half::Shared(s) => segs([&s[..]]),
            #[cfg(feature = "bytes")]
            Half::Chunks(c) => c.each_ref().map(|b| &b[..]),
        }
    }

    /// Its non-empty segments.
    pub(crate) fn parts(&self) -> usize {
        self.segs().iter().filter(|s| !s.is_empty()).count()
    }

    /// Its bytes.
    pub(crate) fn len(&self) -> usize {
        self.segs().iter().map(|s| s.len()).sum()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Chunks with room for more: fewer slices than a job has, under `CHUNKS_HALF` bytes.
    pub(crate) fn takes_chunks(&self) -> bool {
        #[cfg(feature = "bytes")]
        if let Half::Chunks(_) = self {
            return self.parts() < SEGS && self.len() < CHUNKS_HALF;
        }
        false
    }

    /// Append `more` (chunks) to these chunks, or put it in place of nothing; gives it
    /// back if that would make more than `CHUNKS_HALF` bytes or `SEGS` slices.
    pub(crate) fn join(&mut self, more: Half) -> Option<Half> {
        if self.is_empty() {
            *self = more;
            return None;
        }
        let n = self.parts();
        // Only chunks join chunks.
        #[cfg_attr(not(feature = "bytes"), allow(unused_variables))]
        let fits = n + more.parts() <= SEGS && self.len() + more.len() <= CHUNKS_HALF;
        match (self, more) {
            #[cfg(feature = "bytes")]
            (Half::Chunks(have), Half::Chunks(new)) if fits => {
                for (to, from) in have[n..].iter_mut().zip(new) {
                    *to = from;
                }
                None
            }
            (_, more) => Some(more),
        }
    }

    /// Empty it, keeping an own buffer's allocation and letting go of any other.
    pub(crate) fn clear(&mut self) {
        match self {
            Half::Own(v) => v.clear(),
            Half::Shared(_) => *self = Half::default(),
            #[cfg(feature = "bytes")]
            Half::Chunks(_) => *self = Half::default(),
        }
    }

    /// Make chunks one segment, by copying them.
    pub(crate) fn flatten(&mut self) {
        #[cfg(feature = "bytes")]
        if let Half::Chunks(_) = self {
            *self = Half::Own(self.segs().concat());
        }
    }
}
