//! AVX-512VL SHA-1 at 256 bits: the AVX2 kernel's 8-lane ymm sets (`ymm_kernel!`) with
//! `vprold` rotates and `vpternlogd` round functions and schedule XORs. Zen 4 runs a
//! 512-bit op as two 256-bit halves, so there a ymm set costs half a zmm set and batches
//! of 8 k messages fill their lanes instead of leaving a 16-lane set half empty.
#![allow(unsafe_code)]

use super::x86_avx2::{ymm_kernel, PREFETCH};
use crate::isa::Avx512;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use core::arch::x86_64::*;

/// One set only, with `est_gbps` from `lanesum speed` (96 x 16 KiB). Zen 4: x1 6.25 GB/s
/// on 8 lanes (AVX2 x1 4.1, SHA-NI 3.6 on 4-6 streams), x2 6.26 and x3 5.64 (AVX-512 x1
/// 7.0 on 16 lanes). Not measured on other cores, so rated to be never chosen there
/// (tests and `lanesum speed` still run it).
pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u32>> {
    vec![LaneKernel::new::<Sets<1>>(
        t,
        "vl256x1",
        8,
        est(0.1, 6.25, 0.1),
    )]
}

lane_sets!(Plain, u32, Avx512, 5, 8, 64, compress);

macro_rules! rol_vl {
    ($x:expr, $n:literal) => {
        _mm256_rol_epi32::<$n>($x)
    };
}
macro_rules! xor3_vl {
    ($x:expr, $y:expr, $z:expr) => {
        _mm256_ternarylogic_epi32::<0x96>($x, $y, $z)
    };
}
// b ? c : d
macro_rules! ch_vl {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_ternarylogic_epi32::<0xca>($b, $c, $d)
    };
}
// majority of b, c, d
macro_rules! maj_vl {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_ternarylogic_epi32::<0xe8>($b, $c, $d)
    };
}
ymm_kernel!("avx2,avx512f,avx512vl", rol_vl, xor3_vl, ch_vl, maj_vl);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha1::Sha1;
    use crate::testing::check_kernel;

    #[test]
    fn avx512vl_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha1>(&k);
        }
    }
}
