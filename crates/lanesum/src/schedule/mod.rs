//! The lane scheduler shared by `hash_many` and the lane engine.
//!
//! A [`Job`] is one message's share of work: whole blocks in up to three segments (an
//! engine stream's buffered blocks, a block completed from its partial buffer, and the
//! caller's slice, all hashed without copying), then optionally the final padding. The
//! scheduler keeps every lane busy: a lane whose job ends takes the next one at once,
//! padding is done in-lane from a small per-lane tail buffer, and once no job is waiting
//! it moves the remaining ones to whichever kernel is fastest for that many (down to
//! SHA-NI or scalar single-stream).
//!
//! The end of a batch is balanced: once no more than one kernel's worth of jobs waits,
//! the rest is laid out with McNaughton's wrap-around rule (the optimal preemptive
//! schedule on identical machines): with `T = max(longest, total / lanes)` blocks,
//! lanes are filled in turn up to `T`, and a job that crosses `T` runs its first part at
//! the start of the next lane and its last part at the end of this one. So 9 equal
//! messages on an 8-lane kernel finish together in ~9/8 of the time of 8, instead of
//! the 9th running alone afterwards at a fraction of the speed. The whole plan runs as
//! one kernel call whose lanes switch jobs (chaining state and data) between blocks
//! (see `lanes::Switches`): the AVX-512 kernels do that inside the call for a few loads
//! and stores, the others split the call there. On the latter no piece is cut shorter
//! than `tail::MIN_PIECE` blocks: a lane with less room at its end idles there, and `T` may
//! grow by up to 1/8, to fit or to cut fewer pieces, whichever length is estimated to
//! finish soonest (see `plan_length`). Where refilling the lanes as they free up would
//! finish about as soon (equal jobs, a multiple of the lanes), no plan is built: it
//! costs ~0.5 us and ~45 ns a job (see `lanes::plan_ns`).

mod choose;
mod driver;
mod job;
mod spare;
mod tail;

pub(crate) use choose::{best, best_for, plan_min_blocks};
pub(crate) use driver::{run, run_best, run_chunks};
#[cfg(test)]
pub(crate) use driver::{NARROWED, STAGGERED};
pub(crate) use job::{segs, Job, SEGS};
pub(crate) use spare::{keep_tails, take_tails};

#[cfg(test)]
mod tests;
