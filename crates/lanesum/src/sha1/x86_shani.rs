//! SHA-1 with the SHA extensions (SHA-NI): one stream, and 2/3/4/6 independent streams
//! whose 4-round groups are interleaved.
//!
//! One stream waits on the latency of `sha1rnds4`; interleaving independent messages
//! hides it, and then the SHA unit's throughput is the limit: with sha1msg1/sha1msg2 for
//! the whole schedule, x2 reached only 2.5 GB/s (4.0 with no schedule at all). So from
//! group 8 on the schedule uses the dependency-free recurrence in plain SSE (below):
//! x1 2.4 GB/s (sha1 crate 2.2), x2 3.0, x3 3.1, x4 3.2, x6 3.2 (16 KiB - 1 MiB, this
//! machine). Tried and dropped: the plain-SSE recurrence for groups 4-7 too (slower: its
//! fix-up for the in-group dependency sits on the critical path), and computing a whole
//! block's schedule before the rounds (stack round trips, x2 1.9-2.3). Register layout
//! follows the Intel SHA extensions paper: `ABCD` = (A, B, C, D) from high dword to low,
//! E alone in the high dword of its register, message words with W0 in the high dword.
//! The lane state is word-major (`state[w * lanes + l]`), converted to and from that
//! layout on entry and exit of each call only.
#![allow(unsafe_code)]

use super::Sha1;
use crate::family::SingleBody;
use crate::isa::ShaNi;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use core::arch::x86_64::*;

/// Bytes ahead of the current block that each stream prefetches. Without it, one stream
/// reading from memory (a big mapped file) ran at 1.14 GB/s on an Intel Xeon, against
/// 2.4 from cache: the hardware prefetchers fell behind its few loads per block, so blocks
/// waited on memory. 256 bytes ahead gave 1.81, 1 KiB 2.39, 2 KiB 2.42 GB/s.
const PREFETCH: usize = 2048;

/// Byte shuffle reversing a 16-byte row: four big-endian words become native dwords with
/// the first word in the high lane.
const REV128: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// The multi-stream kernels under `features` (none without SHA-NI).
///
/// The single-stream path is the family's own `compress` (the "x1" kernel), which uses
/// [`single`] when SHA-NI is active. `est_gbps`: measured full-lane 16 KiB rates (x4 and
/// x6 equal within noise; x6 nudged up so 5-6 remaining messages share one call).
pub(crate) fn kernels(t: ShaNi) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<2>>(t, "shani-x2", 2, est(3.0, 3.25, 3.65)),
        LaneKernel::new::<Sets<3>>(t, "shani-x3", 3, est(3.1, 3.61, 3.96)),
        LaneKernel::new::<Sets<4>>(t, "shani-x4", 4, est(3.2, 3.74, 4.4)),
        // Six streams' state and message words are more than the 16 XMM registers
        // hold, so each call spills them on entry and exit: fitted on Zen 3 (SHA-1: 78 ns a 64-byte message, against 68 on x4).
        LaneKernel::new::<Sets<6>>(t, "shani-x6", 6, est(3.25, 3.86, 4.57)).with_call_ns(50.0),
    ]
}

/// One stream: the family's single-stream compression with SHA-NI (and so its "x1"
/// kernel).
pub(crate) struct One;

impl SingleBody<Sha1> for One {
    type Token = ShaNi;

    unsafe fn compress(state: &mut [u32; 5], blocks: &[u8]) {
        // SAFETY: the caller holds a `ShaNi` token (the trait's contract): the CPU has
        // SHA-NI, SSSE3 and SSE4.1; one lane of word-major state is the plain state, and
        // the block slice holds `len / 64` whole blocks (`SingleBody` callers pass whole
        // blocks).
        unsafe { compress_n::<1>(state, &[blocks], blocks.len() / 64) }
    }
}

lane_sets!(Plain, u32, ShaNi, 5, 1, 64, compress_n);

/// `N` interleaved streams: every 4-round group is done for each stream in turn.
///
/// # Safety
/// The CPU must support SHA, SSSE3 and SSE4.1; `state.len() == 5 * N`, `blocks.len() ==
/// N` and each `blocks[s]` holds at least `nblocks * 64` bytes.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn compress_n<const N: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let zero = _mm_setzero_si128();
    let mut abcd = [zero; N];
    let mut e = [zero; N];
    for s in 0..N {
        let w = |i: usize| state[i * N + s] as i32;
        abcd[s] = _mm_set_epi32(w(0), w(1), w(2), w(3));
        e[s] = _mm_set_epi32(w(4), 0, 0, 0);
    }
    // SAFETY: REV128 is 16 bytes; unaligned load.
    let rev = unsafe { _mm_loadu_si128(REV128.as_ptr().cast()) };
    for b in 0..nblocks {
        let (abcd0, e0) = (abcd, e);
        // The message schedule of the last eight groups: M[g] lives in m[s][g % 8].
        let mut m = [[zero; 8]; N];
        for s in 0..N {
            // A prefetch is only a hint: past the end of the slice it does nothing.
            let ahead = blocks[s].as_ptr().wrapping_add(b * 64 + PREFETCH);
            _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
            for (i, mi) in m[s][..4].iter_mut().enumerate() {
                let p = blocks[s][b * 64 + 16 * i..][..16].as_ptr();
                // SAFETY: `p` points at 16 in-bounds bytes (sliced above); unaligned load.
                *mi = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.cast()) }, rev);
            }
        }
        // `prev[s]`: ABCD before the previous group; its A, rotated, is E now.
        let mut prev = [zero; N];
        // Group `g` = rounds 4g..4g+3 with message words M[g] and boolean function g / 5.
        // M[4..8] come from sha1msg1/sha1msg2. From M[8] on, the equivalent recurrence
        // W[t] = rol2(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32]) (t >= 32) has no dependency
        // inside a group, so plain SSE computes it and leaves the SHA unit, the bottleneck
        // with several streams, to the rounds.
        macro_rules! group {
            ($g:literal) => {
                for s in 0..N {
                    let m = &mut m[s];
                    if $g >= 8 {
                        // W[4g-6..4g-2]: the low half of M[g-2], then the high half of M[g-1].
                        let v = _mm_alignr_epi8::<8>(m[($g + 6) % 8], m[($g + 7) % 8]);
                        let x = _mm_xor_si128(
                            _mm_xor_si128(v, m[($g + 4) % 8]),
                            _mm_xor_si128(m[($g + 1) % 8], m[$g % 8]),
                        );
                        m[$g % 8] = _mm_or_si128(_mm_slli_epi32::<2>(x), _mm_srli_epi32::<30>(x));
                    } else if $g >= 4 {
                        let t = _mm_sha1msg1_epu32(m[($g + 4) % 8], m[($g + 5) % 8]);
                        let t = _mm_xor_si128(t, m[($g + 6) % 8]);
                        m[$g % 8] = _mm_sha1msg2_epu32(t, m[($g + 7) % 8]);
                    }
                    let we = if $g == 0 {
                        _mm_add_epi32(e[s], m[0])
                    } else {
                        _mm_sha1nexte_epu32(prev[s], m[$g % 8])
                    };
                    prev[s] = abcd[s];
                    abcd[s] = _mm_sha1rnds4_epu32::<{ $g / 5 }>(abcd[s], we);
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
        group!(16);
        group!(17);
        group!(18);
        group!(19);
        for s in 0..N {
            // E after 80 rounds is A from before the last group, rotated; add the old E.
            e[s] = _mm_sha1nexte_epu32(prev[s], e0[s]);
            abcd[s] = _mm_add_epi32(abcd[s], abcd0[s]);
        }
    }
    for s in 0..N {
        let words = [
            _mm_extract_epi32::<3>(abcd[s]),
            _mm_extract_epi32::<2>(abcd[s]),
            _mm_extract_epi32::<1>(abcd[s]),
            _mm_extract_epi32::<0>(abcd[s]),
            _mm_extract_epi32::<3>(e[s]),
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
    use crate::sha1::Sha1;
    use crate::testing::check_kernel;

    #[test]
    fn kernels_match_reference() {
        for k in ShaNi::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha1>(&k);
        }
    }

    #[test]
    fn single_matches_reference() {
        if let Some(t) = ShaNi::detect() {
            check_kernel::<Sha1>(&Single::<Sha1>::new::<One>(t, 1.0).kernel);
        }
    }

    /// The crate we replaced as single-stream path, as an independent oracle.
    #[test]
    fn single_matches_crate() {
        let Some(t) = ShaNi::detect() else {
            return;
        };
        let single = Single::<Sha1>::new::<One>(t, 1.0).compress;
        let data: Vec<u8> = (0..64 * 9).map(|i| (i * 131 + i / 7) as u8).collect();
        for n in [1usize, 2, 9] {
            let mut ours: [u32; 5] = core::array::from_fn(|i| 0x0123_4567 * (i as u32 + 1));
            let mut theirs = ours;
            single.run(&mut ours, &data[..64 * n]);
            ::sha1::block_api::compress(&mut theirs, data[..64 * n].as_chunks::<64>().0);
            assert_eq!(ours, theirs, "{n} blocks");
        }
    }
}
