//! A stream's front end: the bytes it stages until whole blocks reach its slot in the
//! pool, and the message's end.

use std::sync::atomic::Ordering;
use std::sync::Arc;

#[cfg(feature = "bytes")]
use bytes::Bytes;

use super::half::{Half, SharedHalf, CHUNKS_HALF, MAX_HALF, MIN_HALF};
use super::pool::{Pool, Slot};
use crate::family::{Family, MAX_BLOCK, MD_BLOCKS};
use crate::merkle_damgard::digest_of;
use crate::schedule::{segs, Job};
use crate::Digest;

/// Writes smaller than this are gathered in the stream itself before they reach the slot,
/// so tiny writes cost a copy, not a lock (a sponge's stage is the whole blocks of it:
/// see [`Stream::STAGE`]).
pub(crate) const STAGE: usize = 1024;

/// A stream of one Merkle–Damgård family whose blocks go through a [`Pool`].
///
/// Small, so that a hasher is cheap to make and move: the stage and the slot are made
/// when first needed, and a message shorter than the stage never touches the pool.
pub(crate) struct Stream<F: Family> {
    pool: Arc<Pool<F>>,
    /// Made when whole blocks first reach the pool; until then the state is `iv`.
    slot: Option<Slot<F>>,
    iv: F::State,
    /// Bytes not yet handed to the slot: fewer than `STAGE`.
    part: Vec<u8>,
    total: u64,
    /// Counted in `pool.writers`.
    writing: bool,
}

impl<F: Family> Stream<F> {
    /// This family's stage: [`STAGE`], or for a sponge the whole blocks of it (so that
    /// whatever is staged, a write that fills the stage completes a block).
    const STAGE: usize = STAGE / F::BLOCK * F::BLOCK;

    pub(crate) fn new(pool: Arc<Pool<F>>, iv: F::State) -> Self {
        Stream {
            pool,
            slot: None,
            iv,
            part: Vec::new(),
            total: 0,
            writing: false,
        }
    }

    fn slot(&mut self) -> Slot<F> {
        self.join();
        let iv = self.iv;
        Arc::clone(self.slot.get_or_insert_with(|| Pool::new_slot(iv)))
    }

    /// Append to the stage, which is allocated once at its full size.
    fn stage(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        if self.part.capacity() < STAGE {
            self.part.reserve_exact(STAGE - self.part.len());
        }
        self.part.extend_from_slice(data);
    }

    /// Bytes that complete the staged ones to a whole block.
    fn to_block(&self) -> usize {
        self.part.len().next_multiple_of(F::BLOCK) - self.part.len()
    }

    /// Count this stream among the writers (from its first whole blocks for the pool, or
    /// earlier when a `MultiHasher` asks): a message that fits the stage never does.
    pub(crate) fn join(&mut self) {
        if !self.writing {
            self.writing = true;
            self.pool.writers.fetch_add(1, Ordering::Relaxed);
            self.pool.crew.join();
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.part.len() + data.len() < Self::STAGE {
            self.stage(data);
            return;
        }
        // Complete the staged bytes to a whole block: `Self::STAGE` is a multiple of the
        // block size and `part.len() + data.len() >= Self::STAGE`, so `data` has enough.
        let fill = self.to_block();
        self.stage(&data[..fill]);
        let data = &data[fill..];
        let whole = data.len() - data.len() % F::BLOCK;
        let slot = self.slot();
        self.pool.absorb(&slot, &self.part, &data[..whole], None);
        self.part.clear();
        self.stage(&data[whole..]);
    }

    /// As `update(half)`, but without copying `half` when the stream is at a block
    /// boundary (`half` is whole blocks of every family).
    pub(crate) fn update_shared(&mut self, half: &SharedHalf) {
        if !self.part.is_empty() || half.is_empty() || !half.len().is_multiple_of(F::BLOCK) {
            return self.update(half);
        }
        self.total = self.total.wrapping_add(half.len() as u64);
        let slot = self.slot();
        self.pool
            .absorb(&slot, &[], &[], Some(Half::Shared(Arc::clone(half))));
    }

    /// As `update(&chunk)`, but the chunk's whole blocks wait for lanes in place: only the
    /// bytes that complete the staged ones to a block are copied. A chunk larger than
    /// `CHUNKS_HALF` goes as several slices of it.
    #[cfg(feature = "bytes")]
    pub(crate) fn update_bytes(&mut self, chunk: Bytes) {
        let stitch = self.to_block();
        if chunk.len() < stitch + Self::STAGE {
            return self.update(&chunk);
        }
        self.total = self.total.wrapping_add(chunk.len() as u64);
        // `Self::STAGE` is a multiple of the block size, so this stays within the stage.
        self.stage(&chunk[..stitch]);
        let whole = (chunk.len() - stitch) / F::BLOCK * F::BLOCK;
        let mut body = chunk.slice(stitch..stitch + whole);
        let slot = self.slot();
        // The stage goes first, as a slice of its own, if it holds blocks.
        let mut head = if self.part.is_empty() {
            Bytes::new()
        } else {
            Bytes::from(std::mem::take(&mut self.part))
        };
        while !body.is_empty() {
            // Whole blocks, and `head` (at most `STAGE`) plus one block fits.
            let room = (CHUNKS_HALF.saturating_sub(head.len()) / F::BLOCK * F::BLOCK).max(F::BLOCK);
            let piece = body.split_to(body.len().min(room));
            let half = Half::Chunks(segs([std::mem::take(&mut head), piece]));
            self.pool.absorb(&slot, &[], &[], Some(half));
        }
        self.stage(&chunk[stitch + whole..]);
    }

    /// Bytes held unhashed in the slot (not counting the stage).
    #[cfg(test)]
    pub(crate) fn buffered(&self) -> usize {
        self.slot.as_ref().map_or(0, |slot| {
            let d = slot.data.lock();
            d.ready.len() + d.fill.len()
        })
    }

    pub(crate) fn finalize(mut self, len: usize) -> Digest {
        let whole = self.part.len() - self.part.len() % F::BLOCK;
        let (body, tail) = self.part.split_at(whole);
        let Some(slot) = self.slot.take() else {
            // Nothing reached the pool: a short message, hashed here.
            let state = Job::<F> {
                state: self.iv,
                segs: segs([body]),
                fin: Some((tail, self.total)),
            }
            .run_single(self.pool.single());
            return digest_of::<F>(&state, len);
        };
        let mut me = slot.data.lock();
        self.pool.finish(&slot, &mut me, body, (tail, self.total));
        let state = me.state;
        drop(me);
        self.slot = Some(slot);
        digest_of::<F>(&state, len)
    }
}

impl<F: Family> Drop for Stream<F> {
    fn drop(&mut self) {
        if self.writing {
            self.pool.writers.fetch_sub(1, Ordering::Relaxed);
            self.pool.crew.leave();
        }
        // Free the halves now (a round holding one gives it back to the slot, which goes
        // with the last reference), and take the slot off the waiting list.
        if let Some(slot) = &self.slot {
            let mut d = slot.data.lock();
            d.fill = Half::default();
            if !d.busy {
                d.ready = Half::default();
            }
            self.pool.forget(slot, &mut d);
        }
    }
}

const _: () = assert!(
    STAGE.is_multiple_of(MD_BLOCKS)
        && MIN_HALF.is_multiple_of(MD_BLOCKS)
        && MIN_HALF >= MAX_BLOCK
        && MIN_HALF > 0
        && STAGE + MAX_BLOCK <= CHUNKS_HALF
        && CHUNKS_HALF <= MAX_HALF
);
