//! The contract between BLAKE3 lanes kernels and the driver in `many`: a kernel runs a
//! number of compressions in each of `N` lanes, every lane on its own job (a chunk of some
//! message, or a parent node), with per-lane chaining values, counters, flags and block
//! lengths; it knows nothing of messages or trees.
//!
//! A kernel's code is a type implementing [`LanesBody`], whose `Token` says what it needs
//! of the CPU; a [`LanesKernel`] is made from a value of that token, which only detection
//! makes, so safe code holding a kernel may run it.
#![allow(unsafe_code)]

use super::{BLOCK_LEN, MSG_PERMUTATION};

/// Message word order of each of the 7 rounds (round 0 is the identity).
pub(crate) const SCHEDULE: [[usize; 16]; 7] = {
    let mut s = [[0usize; 16]; 7];
    let mut i = 0;
    while i < 16 {
        s[0][i] = i;
        i += 1;
    }
    let mut r = 1;
    while r < 7 {
        let mut i = 0;
        while i < 16 {
            s[r][i] = s[r - 1][MSG_PERMUTATION[i]];
            i += 1;
        }
        r += 1;
    }
    s
};

/// `left` of a lane with no job: never the minimum while any lane is busy.
pub(crate) const IDLE: u32 = u32::MAX;

/// The lanes between kernel calls, word-major (`x[l]` is lane `l`'s value).
///
/// A kernel call runs `steps` compressions in every lane. A lane *ends* in the call when
/// `left[l] == steps`: its last step compresses [`LaneState::last_block`] with `last_len`
/// and `flags | end_flags`. Every other block is full and read from `blocks[l]` (block `s`
/// at `64 * s`). Step 0 adds `start_flags`.
pub(crate) struct LaneState<'a, const N: usize> {
    /// Chaining values, `cv[w][l]`.
    pub(crate) cv: [[u32; N]; 8],
    /// Lane data from the next block on.
    pub(crate) blocks: [&'a [u8]; N],
    /// The job's final block, or `None` when it is partial and zero-padded in `pads[l]`.
    pub(crate) last: [Option<&'a [u8; BLOCK_LEN]>; N],
    pub(crate) pads: [[u8; BLOCK_LEN]; N],
    /// Blocks left in the lane's job ([`IDLE`] when it has none).
    pub(crate) left: [u32; N],
    pub(crate) counter_lo: [u32; N],
    pub(crate) counter_hi: [u32; N],
    /// Flags of every step.
    pub(crate) flags: [u32; N],
    /// Flags added in step 0 (`CHUNK_START` for a job that begins there).
    pub(crate) start_flags: [u32; N],
    /// Flags added in the final block (`CHUNK_END`, `ROOT`).
    pub(crate) end_flags: [u32; N],
    /// `block_len` of the final block.
    pub(crate) last_len: [u32; N],
}

impl<const N: usize> LaneState<'_, N> {
    /// The bounds a kernel relies on for a call of `steps`; checked once per call.
    pub(crate) fn check(&self, steps: usize) {
        assert!(steps >= 1);
        for (b, &left) in self.blocks.iter().zip(&self.left) {
            let ends = left as usize == steps;
            assert!(b.len() >= BLOCK_LEN * (steps - ends as usize));
        }
    }

    /// Lane `l`'s final block.
    #[inline]
    pub(crate) fn last_block(&self, l: usize) -> &[u8; BLOCK_LEN] {
        self.last[l].unwrap_or(&self.pads[l])
    }
}

/// A lanes kernel's code: `steps` compressions per lane (see [`LaneState`]). Afterwards
/// `out[l]` holds the 16 output words of lane `l`'s last compression (the first 8 are its
/// chaining value; all 16 are root output when `ROOT` was set), and `cv` holds the new
/// chaining values of lanes that go on and `IV` for lanes that ended, ready for their
/// next job.
pub(crate) trait LanesBody<const N: usize>: 'static {
    /// What the code needs of the CPU: an `isa` token, or `()` for portable code.
    type Token: Copy;

    /// # Safety
    /// The caller holds a `Self::Token` (the CPU runs the code's instructions), and
    /// `st.check(steps)` holds (every slice the code reads is long enough).
    unsafe fn compress(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]);
}

/// [`LanesBody::compress`] of `K` behind a safe signature; only ever stored by
/// [`LanesKernel::new`], which took a `K::Token`.
fn body<const N: usize, K: LanesBody<N>>(
    st: &mut LaneState<'_, N>,
    steps: usize,
    out: &mut [[u32; 16]; N],
) {
    st.check(steps);
    // SAFETY: this instance is only reachable through a `LanesKernel` made by
    // `LanesKernel::new::<K>`, which took a `K::Token`; the shapes were checked above.
    unsafe { K::compress(st, steps, out) }
}

/// A lanes kernel of `N` lanes, which this CPU can run.
#[derive(Clone, Copy)]
pub(crate) struct LanesKernel<const N: usize>(
    fn(&mut LaneState<'_, N>, usize, &mut [[u32; 16]; N]),
);

impl<const N: usize> LanesKernel<N> {
    /// The kernel `K`, which `token` proves this CPU can run.
    pub(crate) fn new<K: LanesBody<N>>(token: K::Token) -> Self {
        let _ = token;
        LanesKernel(body::<N, K>)
    }

    /// `steps` compressions in every lane (see [`LanesBody`]).
    #[inline]
    pub(crate) fn run(self, st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
        (self.0)(st, steps, out)
    }
}
