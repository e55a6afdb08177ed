//! A job: one message's share of work for the lanes.

use std::ops::Deref;

use crate::family::{Compress, Family};
use crate::merkle_damgard::{compress_final, padded_len};

/// Segments a job's whole blocks may come in: the lane engine's halves of owned chunks
/// are this many slices of them.
pub(crate) const SEGS: usize = 8;

/// The non-empty ones of `parts`, in order, as a job's segments (slices, or the owned
/// chunks they will be taken from).
///
/// # Panics
/// With more than [`SEGS`] non-empty parts (dropping one would be a wrong digest).
pub(crate) fn segs<T>(parts: impl IntoIterator<Item = T>) -> [T; SEGS]
where
    T: Default + Deref<Target = [u8]>,
{
    let mut segs: [T; SEGS] = std::array::from_fn(|_| T::default());
    let mut parts = parts.into_iter().filter(|p| !p.is_empty());
    for (seg, part) in segs.iter_mut().zip(&mut parts) {
        *seg = part;
    }
    assert!(parts.next().is_none(), "more than SEGS segments");
    segs
}

/// One message's work for the lanes.
pub(crate) struct Job<'a, F: Family> {
    /// Chaining state to start from.
    pub state: F::State,
    /// Whole blocks, hashed in this order; any may be empty.
    pub segs: [&'a [u8]; SEGS],
    /// `(tail, total)`: pad and hash the message's last `tail.len() < BLOCK` bytes for a
    /// message of `total` bytes. `None` leaves the state mid-message.
    pub fin: Option<(&'a [u8], u64)>,
}

impl<'a, F: Family> Job<'a, F> {
    /// A whole message from its initial state.
    pub(crate) fn message(iv: F::State, msg: &'a [u8]) -> Self {
        let body = msg.len() - msg.len() % F::BLOCK;
        Job {
            state: iv,
            segs: segs([&msg[..body]]),
            fin: Some((&msg[body..], msg.len() as u64)),
        }
    }

    /// Whole blocks only, leaving the state mid-message.
    pub(crate) fn blocks(state: F::State, segs: [&'a [u8]; SEGS]) -> Self {
        Job {
            state,
            segs,
            fin: None,
        }
    }

    /// Blocks the job hashes, its padded end included.
    pub(crate) fn block_count(&self) -> usize {
        blocks_of::<F>(self.segs.iter().map(|s| s.len()).sum(), self.fin)
    }

    /// Hash the job on the single-stream path, `compress`; returns the final state.
    pub(crate) fn run_single(self, compress: Compress<F>) -> F::State {
        let mut state = self.state;
        for seg in self.segs {
            if !seg.is_empty() {
                compress.run(&mut state, seg);
            }
        }
        if let Some((tail, total)) = self.fin {
            compress_final::<F>(compress, &mut state, tail, total);
        }
        state
    }
}

/// Blocks of `body` bytes of whole blocks, then the padded end `fin` if there is one.
pub(crate) fn blocks_of<F: Family>(body: usize, fin: Option<(&[u8], u64)>) -> usize {
    (body + fin.map_or(0, |(t, _)| padded_len::<F>(t.len()))) / F::BLOCK
}
