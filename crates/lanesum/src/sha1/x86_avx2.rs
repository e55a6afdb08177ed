//! AVX2 SHA-1: 8 lanes per set (one u32 lane of a ymm per message), `S` sets
//! interleaved.
//!
//! Same shape as the AVX-512 kernel: per block, each lane's 64 bytes are loaded as two
//! ymm, byte-swapped with `vpshufb` and transposed with unpack/`vperm2i128` shuffles into
//! W[0..16]; the 80 rounds are fully unrolled with the schedule computed on the fly in a
//! rolling 16-word window. AVX2 has no rotate or ternary-logic instruction: a rotate is
//! two shifts and an OR, and the round functions are 2-3 plain logic ops.
//!
//! Measured 3.5-3.8 GB/s at 16 KiB for one set, slightly less for two.
#![allow(unsafe_code)]

use crate::isa::Avx2;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use core::arch::x86_64::*;

pub(crate) fn kernels(t: Avx2) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<1>>(t, "avx2x1", 8, est(3.6, 4.2, 3.9)),
        LaneKernel::new::<Sets<2>>(t, "avx2x2", 16, est(3.4, 4.2, 4.4)),
    ]
}

lane_sets!(Plain, u32, Avx2, 5, 8, 64, compress);

/// Bytes ahead of the current block to prefetch in each lane.
pub(super) const PREFETCH: usize = 512;

/// The kernel body for sets of 8 lanes in ymm registers, also built by the AVX-512VL
/// kernels (`x86_avx512vl.rs`) with their rotate and three-input logic: `$rol!(x, n)`,
/// `$xor3!(x, y, z)`, and the round functions `$ch!(b, c, d)` and `$maj!(b, c, d)`.
macro_rules! ymm_kernel {
    ($feature:literal, $rol:ident, $xor3:ident, $ch:ident, $maj:ident) => {
        #[target_feature(enable = $feature)]
        unsafe fn compress<const S: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
            let sp = state.as_mut_ptr().cast::<u8>();
            // SAFETY: `state` holds 5 words of 8 S lanes, 32 x 5 S bytes (asserted
            // by the caller).
            let mut st = unsafe { crate::x86_transpose::avx2::load_sets::<S, 5>(sp) };
            let ptrs = crate::x86_transpose::avx2::lane_ptrs::<S>(blocks);
            let k = [
                _mm256_set1_epi32(0x5a82_7999),
                _mm256_set1_epi32(0x6ed9_eba1),
                _mm256_set1_epi32(0x8f1b_bcdcu32 as i32),
                _mm256_set1_epi32(0xca62_c1d6u32 as i32),
            ];

            macro_rules! add {
                ($x:expr, $y:expr) => {
                    _mm256_add_epi32($x, $y)
                };
            }
            macro_rules! xor {
                ($x:expr, $y:expr) => {
                    _mm256_xor_si256($x, $y)
                };
            }
            // Round t for every set: e += rol5(a) + f(b, c, d) + K + W[t]; b = rol30(b).
            // From round 16 on, W[t] (slot t mod 16) is first computed from the window.
            macro_rules! round {
                ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $w:ident, $t:expr) => {
                    let i = $t & 15;
                    for s in 0..S {
                        if $t >= 16 {
                            let x = $xor3!($w[(i + 13) & 15][s], $w[(i + 8) & 15][s], $w[(i + 2) & 15][s]);
                            $w[i][s] = $rol!(xor!(x, $w[i][s]), 1);
                        }
                        let (b, c, d) = ($b[s], $c[s], $d[s]);
                        let f = match $t / 20 {
                            0 => $ch!(b, c, d),
                            2 => $maj!(b, c, d),
                            _ => $xor3!(b, c, d),
                        };
                        let ekw = add!($e[s], add!($w[i][s], k[$t / 20]));
                        $e[s] = add!(add!($rol!($a[s], 5), f), ekw);
                        $b[s] = $rol!(b, 30);
                    }
                };
            }
            macro_rules! five {
                ($w:ident, $g:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
                    round!($a, $b, $c, $d, $e, $w, 5 * $g);
                    round!($e, $a, $b, $c, $d, $w, 5 * $g + 1);
                    round!($d, $e, $a, $b, $c, $w, 5 * $g + 2);
                    round!($c, $d, $e, $a, $b, $w, 5 * $g + 3);
                    round!($b, $c, $d, $e, $a, $w, 5 * $g + 4);
                };
            }

            for blk in 0..nblocks {
                // SAFETY: every lane slice holds at least nblocks * 64 bytes (asserted by the
                // caller) and blk < nblocks.
                let mut w = unsafe { crate::x86_transpose::avx2::load_block_be::<S, PREFETCH>(&ptrs, blk) };
                let [mut a, mut b, mut c, mut d, mut e] = st;
                five!(w, 0, a, b, c, d, e);
                five!(w, 1, a, b, c, d, e);
                five!(w, 2, a, b, c, d, e);
                five!(w, 3, a, b, c, d, e);
                five!(w, 4, a, b, c, d, e);
                five!(w, 5, a, b, c, d, e);
                five!(w, 6, a, b, c, d, e);
                five!(w, 7, a, b, c, d, e);
                five!(w, 8, a, b, c, d, e);
                five!(w, 9, a, b, c, d, e);
                five!(w, 10, a, b, c, d, e);
                five!(w, 11, a, b, c, d, e);
                five!(w, 12, a, b, c, d, e);
                five!(w, 13, a, b, c, d, e);
                five!(w, 14, a, b, c, d, e);
                five!(w, 15, a, b, c, d, e);
                for (sw, v) in st.iter_mut().zip([a, b, c, d, e]) {
                    for s in 0..S {
                        sw[s] = add!(sw[s], v[s]);
                    }
                }
            }

            // SAFETY: as for the load above.
            unsafe { crate::x86_transpose::avx2::store_sets(sp, &st) };
        }
    };
}
pub(super) use ymm_kernel;

macro_rules! rol_avx2 {
    ($x:expr, $n:literal) => {
        _mm256_or_si256(
            _mm256_slli_epi32::<$n>($x),
            _mm256_srli_epi32::<{ 32 - $n }>($x),
        )
    };
}
macro_rules! xor3_avx2 {
    ($x:expr, $y:expr, $z:expr) => {
        _mm256_xor_si256(_mm256_xor_si256($x, $y), $z)
    };
}
// d ^ (b & (c ^ d))
macro_rules! ch_avx2 {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_xor_si256($d, _mm256_and_si256($b, _mm256_xor_si256($c, $d)))
    };
}
// c ^ ((b ^ c) & (c ^ d))
macro_rules! maj_avx2 {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_xor_si256(
            $c,
            _mm256_and_si256(_mm256_xor_si256($b, $c), _mm256_xor_si256($c, $d)),
        )
    };
}
ymm_kernel!("avx2", rol_avx2, xor3_avx2, ch_avx2, maj_avx2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha1::Sha1;
    use crate::testing::check_kernel;

    #[test]
    fn avx2_kernels_match_reference() {
        for k in Avx2::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha1>(&k);
        }
    }
}
