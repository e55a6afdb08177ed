//! SHA-256 with the SHA extensions (SHA-NI): one stream, and 2/3/4/6 independent
//! streams whose 4-round groups are interleaved.
//!
//! One stream is bound by the latency of `sha256rnds2` (each pair of rounds waits for the
//! previous pair): ~2.0 GB/s here, the same as the sha2 crate. Interleaving independent
//! messages hides that latency, but the SHA unit's throughput caps them all at ~2.4 GB/s
//! on an Intel Xeon (2.6 with the message schedule removed, so msg1/msg2 share the unit):
//! x2 already reaches it, x3/x4/x6 exist so that 3-6 remaining messages share one call
//! instead of leaving a straggler for x1 (the scheduler only narrows to kernels with at
//! least as many lanes as busy messages). Register layout follows the Intel SHA
//! extensions paper: `ABEF` = (A, B, E, F) from high dword to low, `CDGH` likewise;
//! message words in natural order (W0 in the low dword). The lane state is word-major
//! (`state[w * lanes + l]`), converted to and from that layout on entry and exit of each
//! call only.
#![allow(unsafe_code)]

use crate::family::SingleBody;
use crate::isa::ShaNi;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use core::arch::x86_64::*;

use super::{Sha256, K};

/// Bytes ahead of the current block that each stream prefetches. Without it, one stream
/// reading from memory (a big mapped file) ran at 1.14 GB/s on an Intel Xeon, against
/// 2.0 from cache: the hardware prefetchers fell behind its few loads per block, so blocks
/// waited on memory. 256 bytes ahead gave 1.70, 1 KiB 1.97, 2 KiB 2.01 GB/s.
const PREFETCH: usize = 2048;

/// Byte shuffle turning each big-endian dword of a block into a native one.
const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];

/// The multi-stream kernels under `features` (none without SHA-NI).
///
/// The single-stream path is the family's own `compress` (the "x1" kernel), which uses
/// [`single`] when SHA-NI is active. `est_gbps`: measured full-lane 16 KiB rates, equal
/// within noise on a Xeon (2.36-2.42; Zen 5 keeps gaining: x2 2.96, x6 3.78; so does Zen
/// 4: 3.24 to 3.78, above its AVX-512 x1's 3.59); nudged upward with the lane count so
/// that, for a batch that fits, the wider kernel wins the tie and no message is left to
/// run alone.
pub(crate) fn kernels(t: ShaNi) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<2>>(t, "shani-x2", 2, est(2.40, 3.24, 2.96)),
        LaneKernel::new::<Sets<3>>(t, "shani-x3", 3, est(2.42, 3.47, 3.22)),
        LaneKernel::new::<Sets<4>>(t, "shani-x4", 4, est(2.44, 3.71, 3.44)),
        // Six streams' state and message words are more than the 16 XMM registers
        // hold, so each call spills them on entry and exit: fitted on Zen 3 (SHA-256: 44.7 ns a message beyond the blocks at 64 and 512 bytes, against 28.6 on x4).
        LaneKernel::new::<Sets<6>>(t, "shani-x6", 6, est(2.45, 3.78, 3.78)).with_call_ns(68.0),
    ]
}

/// One stream: the family's single-stream compression with SHA-NI (and so its "x1"
/// kernel).
pub(crate) struct One;

impl SingleBody<Sha256> for One {
    type Token = ShaNi;

    unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
        // SAFETY: the caller holds a `ShaNi` token (the trait's contract): the CPU has
        // SHA-NI, SSSE3 and SSE4.1; one lane of word-major state is the plain state, and
        // the block slice holds `len / 64` whole blocks (`SingleBody` callers pass whole
        // blocks).
        unsafe { compress_n::<1>(state, &[blocks], blocks.len() / 64) }
    }
}

lane_sets!(Plain, u32, ShaNi, 8, 1, 64, compress_n);

/// `N` interleaved streams: every 4-round group is done for each stream in turn.
///
/// # Safety
/// The CPU must support SHA, SSSE3 and SSE4.1; `state.len() == 8 * N`, `blocks.len() ==
/// N` and each `blocks[s]` holds at least `nblocks * 64` bytes.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn compress_n<const N: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let zero = _mm_setzero_si128();
    let mut abef = [zero; N];
    let mut cdgh = [zero; N];
    for s in 0..N {
        let w = |i: usize| state[i * N + s] as i32;
        abef[s] = _mm_set_epi32(w(0), w(1), w(4), w(5));
        cdgh[s] = _mm_set_epi32(w(2), w(3), w(6), w(7));
    }
    // SAFETY: BSWAP32 is 16 bytes; unaligned load.
    let bswap = unsafe { _mm_loadu_si128(BSWAP32.as_ptr().cast()) };
    for b in 0..nblocks {
        let (abef0, cdgh0) = (abef, cdgh);
        let mut m = [[zero; 4]; N];
        for s in 0..N {
            // A prefetch is only a hint: past the end of the slice it does nothing.
            let ahead = blocks[s].as_ptr().wrapping_add(b * 64 + PREFETCH);
            _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
            for (i, mi) in m[s].iter_mut().enumerate() {
                let p = blocks[s][b * 64 + 16 * i..][..16].as_ptr();
                // SAFETY: `p` points at 16 in-bounds bytes (sliced above); unaligned load.
                *mi = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.cast()) }, bswap);
            }
        }
        // Group `g` = rounds 4g..4g+3, using message words M[g % 4] (computed in place
        // from the four previous groups for g >= 4).
        macro_rules! group {
            ($g:literal) => {
                for s in 0..N {
                    let m = &mut m[s];
                    if $g >= 4 {
                        let t = _mm_sha256msg1_epu32(m[$g % 4], m[($g + 1) % 4]);
                        let t = _mm_add_epi32(
                            t,
                            _mm_alignr_epi8::<4>(m[($g + 3) % 4], m[($g + 2) % 4]),
                        );
                        m[$g % 4] = _mm_sha256msg2_epu32(t, m[($g + 3) % 4]);
                    }
                    // SAFETY: K has 64 words, so K[4g..4g + 4] is in bounds.
                    let k = unsafe { _mm_loadu_si128(K.as_ptr().add(4 * $g).cast()) };
                    let wk = _mm_add_epi32(m[$g % 4], k);
                    cdgh[s] = _mm_sha256rnds2_epu32(cdgh[s], abef[s], wk);
                    abef[s] =
                        _mm_sha256rnds2_epu32(abef[s], cdgh[s], _mm_shuffle_epi32::<0x0e>(wk));
                }
            };
        }
        group!(0);
        group!(1);
        group!(2);
        group!(3);
        group!(4);
        group!(5);
        group!(6);
        group!(7);
        group!(8);
        group!(9);
        group!(10);
        group!(11);
        group!(12);
        group!(13);
        group!(14);
        group!(15);
        for s in 0..N {
            abef[s] = _mm_add_epi32(abef[s], abef0[s]);
            cdgh[s] = _mm_add_epi32(cdgh[s], cdgh0[s]);
        }
    }
    for s in 0..N {
        let words = [
            _mm_extract_epi32::<3>(abef[s]),
            _mm_extract_epi32::<2>(abef[s]),
            _mm_extract_epi32::<3>(cdgh[s]),
            _mm_extract_epi32::<2>(cdgh[s]),
            _mm_extract_epi32::<1>(abef[s]),
            _mm_extract_epi32::<0>(abef[s]),
            _mm_extract_epi32::<1>(cdgh[s]),
            _mm_extract_epi32::<0>(cdgh[s]),
        ];
        for (i, w) in words.into_iter().enumerate() {
            state[i * N + s] = w as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::Single;
    use crate::sha256::Sha256;
    use crate::testing::check_kernel;

    #[test]
    fn kernels_match_reference() {
        for k in ShaNi::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha256>(&k);
        }
    }

    #[test]
    fn single_matches_reference() {
        if let Some(t) = ShaNi::detect() {
            check_kernel::<Sha256>(&Single::<Sha256>::new::<One>(t, 1.0).kernel);
        }
    }

    /// The crate we replaced as single-stream path, as an independent oracle.
    #[test]
    fn single_matches_crate() {
        let Some(t) = ShaNi::detect() else {
            return;
        };
        let single = Single::<Sha256>::new::<One>(t, 1.0).compress;
        let data: Vec<u8> = (0..64 * 9).map(|i| (i * 131 + i / 7) as u8).collect();
        for n in [1usize, 2, 9] {
            let mut ours: [u32; 8] = core::array::from_fn(|i| 0x0123_4567 * (i as u32 + 1));
            let mut theirs = ours;
            single.run(&mut ours, &data[..64 * n]);
            ::sha2::block_api::compress256(&mut theirs, data[..64 * n].as_chunks::<64>().0);
            assert_eq!(ours, theirs, "{n} blocks");
        }
    }
}
