//! AVX-512VL SHA-512 at 256 bits: the AVX2 kernel's 4-lane ymm sets (`ymm_kernel!`) with
//! `vprorq` rotates and `vpternlogq` for the three-way XORs, Ch and Maj: ~30 ops a round
//! and schedule step instead of ~54. Zen 4 runs a 512-bit op as two 256-bit halves, so
//! there a ymm set costs half a zmm set and batches of 4 k messages fill their lanes.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::x86_avx2::{rounds16, transpose4, ymm_kernel, BLOCK, BSWAP64, PREFETCH, ROR8};
use super::K;
use crate::isa::Avx512;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;

/// The set counts kept, with `est_gbps` from `lanesum speed` (96 x 16 KiB). Zen 4: x1
/// 2.40 GB/s on 4 lanes (AVX2 x1 1.41), x2 2.79 on 8 (AVX-512 x1 2.81, not kept), x3
/// 2.79 on 12 (a 16-lane kernel would run them 3/4 full). Not measured on other cores, so
/// rated to be never chosen there (tests and `lanesum speed` still run them).
pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u64>> {
    vec![
        LaneKernel::new::<Sets<1>>(t, "vl256x1", 4, est(0.1, 2.40, 0.1)),
        LaneKernel::new::<Sets<3>>(t, "vl256x3", 12, est(0.1, 2.79, 0.1)),
    ]
}

lane_sets!(Plain, u64, Avx512, 8, 4, BLOCK, compress);

macro_rules! big_sigma_vl {
    ($x:expr, $a:literal, $b:literal, $c:literal) => {{
        let x = $x;
        _mm256_ternarylogic_epi64::<0x96>(
            _mm256_ror_epi64::<$a>(x),
            _mm256_ror_epi64::<$b>(x),
            _mm256_ror_epi64::<$c>(x),
        )
    }};
}
// e ? f : g
macro_rules! ch_vl {
    ($e:expr, $f:expr, $g:expr) => {
        _mm256_ternarylogic_epi64::<0xca>($e, $f, $g)
    };
}
// b ^ (ab & bc)
macro_rules! maj_vl {
    ($b:expr, $ab:expr, $bc:expr) => {
        _mm256_ternarylogic_epi64::<0x78>($b, $ab, $bc)
    };
}
macro_rules! small_sigma0_vl {
    ($x:expr, $ror8:expr) => {{
        let x = $x;
        let _ = $ror8;
        _mm256_ternarylogic_epi64::<0x96>(
            _mm256_ror_epi64::<1>(x),
            _mm256_ror_epi64::<8>(x),
            _mm256_srli_epi64::<7>(x),
        )
    }};
}
macro_rules! small_sigma1_vl {
    ($x:expr) => {{
        let x = $x;
        _mm256_ternarylogic_epi64::<0x96>(
            _mm256_ror_epi64::<19>(x),
            _mm256_ror_epi64::<61>(x),
            _mm256_srli_epi64::<6>(x),
        )
    }};
}
ymm_kernel!(
    "avx2,avx512f,avx512vl",
    big_sigma_vl,
    ch_vl,
    maj_vl,
    small_sigma0_vl,
    small_sigma1_vl
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha512::Sha512;
    use crate::testing::check_kernel;

    #[test]
    fn avx512vl_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha512>(&k);
        }
    }
}
