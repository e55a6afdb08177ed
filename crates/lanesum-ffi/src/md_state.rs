//! Saving a plain hasher's place in its message and going on from it later (a resumable
//! upload's hash state): the C form of `lanesum::MdState`, which Go's binding turns into
//! the format of Go's own `encoding.BinaryMarshaler` for its hashes.

use lanesum::{Hasher, MdState};

use crate::algorithms::{self, LanesumAlgorithm};
use crate::hashers::{new_stream, LanesumHasher};
use crate::ptrs;
use crate::registry;
use crate::status::{run, Error, LanesumStatus, Result};
use crate::stream::Stream;

/// Where a hash of MD5, SHA-1, the SHA-2 family or SM3 stands part way through a message.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LanesumMdState {
    /// The chaining words, `nwords` of them: 4 for MD5, 5 for SHA-1, 8 for the others
    /// (32-bit words in the low half).
    pub words: [u64; 8],
    /// Words used in `words`.
    pub nwords: usize,
    /// The bytes of the block not compressed yet, `npending` of them.
    pub pending: [u8; 128],
    /// Bytes used in `pending`: `total` modulo the block size.
    pub npending: usize,
    /// Bytes absorbed in all (modulo 2^64).
    pub total: u64,
}

fn unsupported(what: &str) -> Error {
    Error::new(LanesumStatus::LANESUM_ERR_UNSUPPORTED, what.to_string())
}

/// The error of an algorithm without a saved state.
fn no_state_for_algorithm() -> Error {
    unsupported("only MD5, SHA-1, SHA-2 and SM3 hashers have a saved state")
}

/// Store in `*out` where a plain hasher (`lanesum_hasher_new`) of MD5, SHA-1, the SHA-2
/// family or SM3 stands; the hasher goes on unchanged. `LANESUM_ERR_UNSUPPORTED` for
/// other algorithms and engine hashers, `LANESUM_ERR_STATE` once finalized.
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_md_state(
    hasher: LanesumHasher,
    out: *mut LanesumMdState,
) -> LanesumStatus {
    run(|| {
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let state = registry::with_stream(hasher.id, |s| match s {
            Stream::Plain(_, Some(h)) => h.md_state().ok_or_else(no_state_for_algorithm),
            Stream::Plain(_, None) => Err(Stream::finalized()),
            _ => Err(unsupported(
                "only plain hashers (lanesum_hasher_new) have a saved state",
            )),
        })?;
        let mut c = LanesumMdState {
            words: [0; 8],
            nwords: state.words.len(),
            pending: [0; 128],
            npending: state.pending.len(),
            total: state.total,
        };
        c.words[..state.words.len()].copy_from_slice(&state.words);
        c.pending[..state.pending.len()].copy_from_slice(&state.pending);
        // SAFETY: the caller's contract.
        unsafe { ptrs::put(out, c, "out") }
    })
}

/// A new plain hasher of `alg` going on from `*state` (from `lanesum_hasher_md_state` of
/// the same algorithm, or another program's save). `LANESUM_ERR_UNSUPPORTED` unless `alg`
/// is MD5, SHA-1, SHA-2 or SM3; `LANESUM_ERR_ARGUMENT` if `*state` is not shaped as one
/// of its states (its word count, a word too wide, `npending` not `total` modulo the
/// block size).
///
/// # Safety
/// `state` must be null or point to a `LanesumMdState`; `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_from_md_state(
    alg: LanesumAlgorithm,
    state: *const LanesumMdState,
    out: *mut LanesumHasher,
) -> LanesumStatus {
    run(|| {
        let a = algorithms::get(alg)?;
        // SAFETY: the caller's contract: null or one readable LanesumMdState.
        let c = &unsafe { ptrs::array(state, 1, "state") }?[0];
        // Refused: an algorithm without states, else a state not shaped as its.
        let refused = || {
            if Hasher::new(a).md_state().is_none() {
                no_state_for_algorithm()
            } else {
                Error::argument(format!("not a saved state of {a}"))
            }
        };
        if c.nwords > c.words.len() || c.npending > c.pending.len() {
            return Err(refused());
        }
        let saved = MdState {
            words: c.words[..c.nwords].to_vec(),
            pending: c.pending[..c.npending].to_vec(),
            total: c.total,
        };
        let h: Result<Hasher> = Hasher::from_md_state(a, &saved).ok_or_else(refused);
        // SAFETY: the caller's contract.
        unsafe { new_stream(Stream::Plain(a, Some(h?)), out) }
    })
}
