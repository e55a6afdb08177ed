//! The contract between multi-lane compression kernels and whatever schedules them.
//!
//! A kernel compresses the same number of whole blocks for each of `lanes` independent
//! messages. It knows nothing of messages, padding or scheduling; the batch and engine
//! layers know nothing of instructions. Chaining state is kept word-major ("structure of
//! arrays"): word `w` of lane `l` is `state[w * lanes + l]`, so a SIMD kernel loads one
//! vector per word with no transpose, and the state stays in that layout between calls.

use crate::isa::Features;
use crate::merkle_damgard::Family;

/// Signature of a kernel body: `(state, per-lane block data, nblocks)`.
///
/// `blocks[l]` holds at least `nblocks * BLOCK` bytes for lane `l`; lanes with nothing
/// to do may repeat another lane's slice (their state is then garbage and ignored).
pub(crate) type CompressFn<W> = fn(state: &mut [W], blocks: &[&[u8]], nblocks: usize);

/// A compression kernel for `lanes` independent messages.
///
/// Values are only built by a family's `kernels(features)` after checking that the CPU
/// has what the kernel needs, which is what makes calling `compress` sound.
#[derive(Clone, Copy)]
pub(crate) struct LaneKernel<W: 'static> {
    /// Short path name shown by `lanesum speed`, e.g. `avx512x4` or `shani-x2`.
    pub name: &'static str,
    /// Number of independent messages per call.
    pub lanes: usize,
    /// Rough full-lanes throughput in GB/s per core on this CPU's [`Uarch`](crate::isa::Uarch)
    /// (see [`est`](crate::isa::est)), used only to choose between kernels for a given
    /// number of busy lanes.
    pub est_gbps: f32,
    compress: CompressFn<W>,
}

impl<W: Copy + 'static> LaneKernel<W> {
    /// `compress` must only be reachable through this value when the CPU supports it.
    pub(crate) const fn new(
        name: &'static str,
        lanes: usize,
        est_gbps: f32,
        compress: CompressFn<W>,
    ) -> Self {
        LaneKernel {
            name,
            lanes,
            est_gbps,
            compress,
        }
    }

    /// Compress `nblocks` blocks of `block_len` bytes in every lane.
    ///
    /// # Panics
    /// If the state or block slices are too short (a scheduler bug, never input-driven).
    #[inline]
    pub(crate) fn compress(
        &self,
        state: &mut [W],
        words: usize,
        block_len: usize,
        blocks: &[&[u8]],
        nblocks: usize,
    ) {
        assert_eq!(state.len(), words * self.lanes);
        assert_eq!(blocks.len(), self.lanes);
        let need = nblocks * block_len;
        assert!(blocks.iter().all(|b| b.len() >= need));
        (self.compress)(state, blocks, nblocks)
    }

    /// Throughput this kernel offers for `n` similar messages: they run in
    /// `ceil(n / lanes)` rounds, the last one partly empty. (With 17 messages a 16-lane
    /// kernel would run the 17th almost alone, so a 32-lane one is better.)
    pub(crate) fn rate_with(&self, n: usize) -> f32 {
        let n = n.max(1);
        let slots = n.div_ceil(self.lanes) * self.lanes;
        self.est_gbps * n as f32 / slots as f32
    }

    /// The same for `n` messages of `bytes` each, long enough for the scheduler's
    /// balanced tail (see `schedule`): no lane runs empty, but with more messages than
    /// lanes (and not a multiple) the tail splits a message at nearly every lane, and
    /// each split costs a kernel call ([`SPLIT_NS`]).
    pub(crate) fn rate_balanced(&self, n: usize, bytes: usize) -> f32 {
        let (n, l) = (n.max(1), self.lanes);
        if n <= l || n.is_multiple_of(l) {
            return self.rate_with(n);
        }
        // GB/s is bytes per nanosecond.
        let work_ns = (n * bytes) as f32 / self.est_gbps;
        self.est_gbps * work_ns / (work_ns + SPLIT_NS * (l - 1) as f32)
    }
}

/// What one split of the balanced tail costs, in nanoseconds: measured on Zen 5, MD5 x2
/// (32 lanes) ran 33 x 16 KiB messages at 0.74 of its 32-message speed.
pub(crate) const SPLIT_NS: f32 = 450.0;

/// The one-lane kernel over a family's single-stream compression (scalar, or SHA-NI
/// through the family's own dispatch).
pub(crate) fn single_stream<F: Family>(features: Features) -> LaneKernel<F::Word> {
    fn run<F: Family>(state: &mut [F::Word], blocks: &[&[u8]], nblocks: usize) {
        let mut s = F::State::default();
        s.as_mut().copy_from_slice(state);
        F::compress(&mut s, &blocks[0][..nblocks * F::BLOCK]);
        state.copy_from_slice(s.as_ref());
    }
    LaneKernel::new("x1", 1, F::single_gbps(features), run::<F>)
}

/// Test support shared by every kernel's tests: compare a kernel with the scalar
/// reference on random states and blocks, every lane count position, several block counts.
#[cfg(test)]
pub(crate) mod testing {
    use super::LaneKernel;
    use crate::merkle_damgard::{Family, Word};
    use rand::{Rng, SeedableRng};

    /// A `lanes`-wide kernel that runs the scalar reference lane by lane: no faster, but
    /// it lets scheduler tests use wide kernels on any CPU.
    pub(crate) fn portable_lanes<F: Family>(
        name: &'static str,
        lanes: usize,
        est_gbps: f32,
    ) -> LaneKernel<F::Word> {
        fn run<F: Family>(state: &mut [F::Word], blocks: &[&[u8]], nblocks: usize) {
            let lanes = blocks.len();
            for (l, b) in blocks.iter().enumerate() {
                let mut s = F::State::default();
                for (w, v) in s.as_mut().iter_mut().enumerate() {
                    *v = state[w * lanes + l];
                }
                F::compress_portable(&mut s, &b[..nblocks * F::BLOCK]);
                for (w, v) in s.as_ref().iter().enumerate() {
                    state[w * lanes + l] = *v;
                }
            }
        }
        LaneKernel::new(name, lanes, est_gbps, run::<F>)
    }

    #[test]
    fn portable_lanes_match_reference() {
        check_kernel::<crate::md5::Md5>(&portable_lanes::<crate::md5::Md5>("p16", 16, 1.0));
        check_kernel::<crate::sha512::Sha512>(&portable_lanes::<crate::sha512::Sha512>(
            "p8", 8, 1.0,
        ));
    }

    /// Random state words and blocks, each lane with its own (unaligned) buffer.
    pub(crate) fn check_kernel<F: Family>(kernel: &LaneKernel<F::Word>) {
        let words = F::WORDS;
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x1a2e5_u64 ^ kernel.lanes as u64);
        for nblocks in [1usize, 2, 3, 5, 17] {
            let lanes = kernel.lanes;
            let mut state: Vec<F::Word> = (0..words * lanes)
                .map(|_| F::Word::from_u64(rng.random()))
                .collect();
            // Offset each lane's buffer by a different amount to catch alignment assumptions.
            let bufs: Vec<Vec<u8>> = (0..lanes)
                .map(|l| {
                    (0..nblocks * F::BLOCK + l % 7)
                        .map(|_| rng.random())
                        .collect()
                })
                .collect();
            let slices: Vec<&[u8]> = bufs.iter().enumerate().map(|(l, b)| &b[l % 7..]).collect();
            let mut want = Vec::new();
            for l in 0..lanes {
                let mut s = F::State::default();
                for (w, v) in s.as_mut().iter_mut().enumerate() {
                    *v = state[w * lanes + l];
                }
                F::compress_portable(&mut s, &slices[l][..nblocks * F::BLOCK]);
                want.push(s);
            }
            kernel.compress(&mut state, words, F::BLOCK, &slices, nblocks);
            for (l, w) in want.iter().enumerate() {
                let got: Vec<F::Word> = (0..words).map(|i| state[i * lanes + l]).collect();
                assert_eq!(
                    &got[..],
                    w.as_ref(),
                    "{} lane {l} of {lanes}, {nblocks} blocks",
                    kernel.name
                );
            }
        }
    }
}
