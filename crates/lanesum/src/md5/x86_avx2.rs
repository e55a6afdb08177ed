//! AVX2 MD5: 8 lanes per ymm set, `N` independent sets interleaved per call.
//!
//! Same design as the AVX-512 kernels at half width. Set `s` owns lanes `8 s .. 8 s + 8`;
//! state word `w` of the set is one ymm at `state[w * lanes + 8 s ..]`. Each block, every
//! set's 8 lane buffers are transposed in-kernel: vector `r` of word group `h` holds words
//! `4h..4h+4` of lane `r` (low 128 bits) and lane `r + 4` (high, via `vinserti128` from
//! memory), then a 4x4 `vpunpck` transpose per 128-bit half gives the 8 message-word
//! vectors directly (24 shuffle uops per 8 lanes, no gathers).
//!
//! AVX2 has neither rotates nor three-input logic: a step is ~10 uops (shift, shift, or
//! for the rotate; two or three for the round function), and the parts of the round
//! function that do not depend on `b` are computed off the dependent chain.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::{word_index, K, S};
use crate::isa::Avx2;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use crate::x86_opaque::opaque_ymm as opaque;
use crate::x86_transpose::avx2::{lane_ptrs, load_sets, store_sets};

/// The set counts kept, with `est_gbps` from the raw kernel speed test (16 KiB lanes, one
/// core of an Intel Xeon; Zen 5: x1 2.9, x2 5.5, x3 6.6): x1 5.1-5.3, x2 7.6-8.2, x3 8.4-9.6, x4 7.7-7.9, x5 7.2-7.5, x6 7.0-7.4
/// GB/s. Three sets (12 state registers of 16) is the most that the ymm register file
/// holds without heavy spilling; x1 and x2 serve 8 and 16 busy lanes.
pub(crate) fn kernels(t: Avx2) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<1>>(t, "avx2x1", 8, est(5.1, 4.93, 2.9)),
        LaneKernel::new::<Sets<2>>(t, "avx2x2", 16, est(7.8, 7.79, 5.5)),
        LaneKernel::new::<Sets<3>>(t, "avx2x3", 24, est(8.5, 9.06, 6.6)),
    ]
}

lane_sets!(Plain, u32, Avx2, 4, 8, 64, compress);

/// Transpose block `blk` (64 bytes) of 8 lanes (lane `l` starting at `p[l]`) into
/// `m[w]` = word `w` of every lane.
///
/// # Safety
/// Each `p[l]` must be readable for `(blk + 1) * 64` bytes; the CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn load_block(p: &[*const u8; 8], blk: usize, m: &mut [__m256i; 16]) {
    for h in 0..4 {
        let at = 64 * blk + 16 * h;
        let mut v = [_mm256_setzero_si256(); 4];
        for (r, v) in v.iter_mut().enumerate() {
            // SAFETY: words 4h..4h+4 of block `blk` lie inside each lane's readable bytes.
            unsafe {
                let lo = _mm_loadu_si128(p[r].add(at).cast());
                let hi = _mm_loadu_si128(p[r + 4].add(at).cast());
                *v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            }
        }
        let t0 = _mm256_unpacklo_epi32(v[0], v[1]);
        let t1 = _mm256_unpackhi_epi32(v[0], v[1]);
        let t2 = _mm256_unpacklo_epi32(v[2], v[3]);
        let t3 = _mm256_unpackhi_epi32(v[2], v[3]);
        m[4 * h] = _mm256_unpacklo_epi64(t0, t2);
        m[4 * h + 1] = _mm256_unpackhi_epi64(t0, t2);
        m[4 * h + 2] = _mm256_unpacklo_epi64(t1, t3);
        m[4 * h + 3] = _mm256_unpackhi_epi64(t1, t3);
    }
}

/// Compress `nblocks` blocks in each of `8 N` lanes.
///
/// # Safety
/// `state.len() == 32 N`, `blocks.len() == 8 N`, every block slice holds at least
/// `64 nblocks` bytes; the CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn compress<const N: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let sp = state.as_mut_ptr().cast::<u8>();
    let z = _mm256_setzero_si256();
    let ones = _mm256_set1_epi32(-1);
    // SAFETY: `state` holds 4 words of 8 N lanes, 128 N bytes.
    let [mut a, mut b, mut c, mut d] = unsafe { load_sets::<N, 4>(sp) };
    let ptrs = lane_ptrs::<N>(blocks);
    let mut msg = [[z; 16]; N];

    // `a + K + M`, then `$fun` adds the round function, computing the parts that do not
    // depend on `b` off the dependent chain. (Tried and dropped, both ~8% slower here:
    // double-buffered transposes as in the AVX-512 kernel, whose extra live values spill
    // with only 16 ymm registers; and round I as `t - 1 - (c ^ (!b & d))`.)
    macro_rules! step {
        ($fun:ident, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $s:expr) => {{
            for j in 0..N {
                let t = _mm256_add_epi32($a[j], _mm256_set1_epi32(K[$i] as i32));
                let t = opaque(_mm256_add_epi32(t, msg[j][const { word_index($i) }]));
                let t = $fun!(t, $b[j], $c[j], $d[j]);
                let r = _mm256_or_si256(
                    _mm256_slli_epi32::<{ $s as i32 }>(t),
                    _mm256_srli_epi32::<{ 32 - $s as i32 }>(t),
                );
                $a[j] = _mm256_add_epi32($b[j], r);
            }
        }};
    }
    // t + (d ^ (b & (c ^ d)))
    macro_rules! f {
        ($t:expr, $b:expr, $c:expr, $d:expr) => {
            _mm256_add_epi32(
                $t,
                _mm256_xor_si256($d, _mm256_and_si256($b, _mm256_xor_si256($c, $d))),
            )
        };
    }
    // t + (c & !d) + (b & d): the two terms are disjoint, so `|` is `+`.
    macro_rules! g {
        ($t:expr, $b:expr, $c:expr, $d:expr) => {
            _mm256_add_epi32(
                opaque(_mm256_add_epi32($t, _mm256_andnot_si256($d, $c))),
                _mm256_and_si256($b, $d),
            )
        };
    }
    // t + (b ^ c ^ d)
    macro_rules! h {
        ($t:expr, $b:expr, $c:expr, $d:expr) => {
            _mm256_add_epi32($t, _mm256_xor_si256($b, _mm256_xor_si256($c, $d)))
        };
    }
    // t + (c ^ (b | !d))
    macro_rules! i {
        ($t:expr, $b:expr, $c:expr, $d:expr) => {
            _mm256_add_epi32(
                $t,
                _mm256_xor_si256($c, _mm256_or_si256($b, _mm256_xor_si256($d, ones))),
            )
        };
    }
    macro_rules! quad {
        ($fun:ident, $r:expr, $i:expr) => {
            if $i % 16 == 0 {
                // Re-read the message words from memory each round (see the AVX-512
                // kernel): else they live in registers and spill with extra copies.
                core::hint::black_box(&mut msg);
            }
            step!($fun, a, b, c, d, $i, S[$r][0]);
            step!($fun, d, a, b, c, $i + 1, S[$r][1]);
            step!($fun, c, d, a, b, $i + 2, S[$r][2]);
            step!($fun, b, c, d, a, $i + 3, S[$r][3]);
        };
    }

    for blk in 0..nblocks {
        for j in 0..N {
            // SAFETY: block `blk` of every lane lies inside its slice (64 nblocks bytes);
            // AVX2 is on.
            unsafe { load_block(&ptrs[j], blk, &mut msg[j]) };
        }
        let (aa, bb, cc, dd) = (a, b, c, d);
        md5_quads!(quad, f, g, h, i);
        for j in 0..N {
            a[j] = _mm256_add_epi32(a[j], aa[j]);
            b[j] = _mm256_add_epi32(b[j], bb[j]);
            c[j] = _mm256_add_epi32(c[j], cc[j]);
            d[j] = _mm256_add_epi32(d[j], dd[j]);
        }
    }
    // SAFETY: as for the load above.
    unsafe { store_sets(sp, &[a, b, c, d]) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::md5::Md5;
    use crate::testing::check_kernel;

    #[test]
    fn avx2_kernels_match_reference() {
        for k in Avx2::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Md5>(&k);
        }
    }
}
