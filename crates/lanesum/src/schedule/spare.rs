//! Buffers the scheduler keeps between batches on each thread, so that a batch does not
//! allocate and zero them again.

use std::cell::Cell;

use crate::family::MAX_BLOCK;

thread_local! {
    /// The balanced tail's padded job ends, kept between plans on this thread (zeroing
    /// 264 bytes a job took ~0.3 us of a plan of 48 jobs).
    pub(super) static SPARE_PADS: Cell<Vec<([u8; 2 * MAX_BLOCK], usize)>> = const { Cell::new(Vec::new()) };
    /// Per-lane padding buffers kept between batches on this thread: allocating and
    /// zeroing 256 bytes a lane per batch took ~5% of a batch of 64 x 1 KiB messages.
    static SPARE_TAILS: Cell<Vec<[u8; 2 * MAX_BLOCK]>> = const { Cell::new(Vec::new()) };
}

/// This thread's spare per-lane padding buffers (see `SPARE_TAILS`), at least `n` of
/// them; hand them back with [`keep_tails`].
pub(crate) fn take_tails(n: usize) -> Vec<[u8; 2 * MAX_BLOCK]> {
    let mut tails = SPARE_TAILS.take();
    if tails.len() < n {
        // Only `pad_final` writes them before they are read.
        tails.resize(n, [0; 2 * MAX_BLOCK]);
    }
    tails
}

/// Keeps `tails` for the next batch on this thread, unless a larger set is kept already.
pub(crate) fn keep_tails(tails: Vec<[u8; 2 * MAX_BLOCK]>) {
    SPARE_TAILS.with(|spare| {
        let kept = spare.take();
        spare.set(if tails.len() > kept.len() {
            tails
        } else {
            kept
        });
    });
}
