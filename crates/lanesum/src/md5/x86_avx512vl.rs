//! AVX-512VL MD5 at 256 bits: 8 lanes per ymm set, `N` independent sets interleaved.
//!
//! The AVX2 kernel's layout and transpose with AVX-512's rotate (`vprold`) and
//! three-input logic (`vpternlogd`) on ymm registers, of which AVX-512VL gives 32: 6 uops
//! a step instead of ~10. Zen 4 runs a 512-bit op as two 256-bit halves, so there a ymm
//! set costs half a zmm set: 8-lane steps at the zmm kernel's rate per lane, which fills
//! batches of 8 k messages without a half-empty 16-lane set.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::x86_avx2::load_block;
use super::x86_avx512::{TL_F, TL_G, TL_H, TL_I};
use super::{word_index, K, S};
use crate::isa::Avx512;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use crate::x86_opaque::opaque_ymm as opaque;
use crate::x86_transpose::avx2::{lane_ptrs, load_sets, store_sets};

/// The set counts kept, with `est_gbps` from the raw kernel speed test (16 KiB lanes, one
/// core; `md5_kernel_speed`). Zen 4: x1 4.8-4.9 (AVX2 x1: 5.0; one set is latency-bound
/// either way), x2 8.4 (AVX-512 x1, same 16 lanes: 7.8), x3 10.8 (AVX2 x3: 9.5), x4
/// 11.1-12.4 (AVX-512 x2: 11.6), x5 12.1, x6 11.9 (AVX-512 x3: 13.0), x8 9.6 GB/s: x2, x3
/// and x5 give 16, 24 and 40 lanes at better rates than anything else has there. Not
/// measured on other cores, so rated to be never chosen there (tests and `lanesum speed`
/// still run them).
pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<2>>(t, "vl256x2", 16, est(0.1, 8.37, 0.1)),
        LaneKernel::new::<Sets<3>>(t, "vl256x3", 24, est(0.1, 10.8, 0.1)),
        LaneKernel::new::<Sets<5>>(t, "vl256x5", 40, est(0.1, 12.1, 0.1)),
    ]
}

lane_sets!(Plain, u32, Avx512, 4, 8, 64, compress);

/// Compress `nblocks` blocks in each of `8 N` lanes.
///
/// # Safety
/// `state.len() == 32 N`, `blocks.len() == 8 N`, every block slice holds at least
/// `64 nblocks` bytes; the CPU must have AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn compress<const N: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let sp = state.as_mut_ptr().cast::<u8>();
    let z = _mm256_setzero_si256();
    // SAFETY: `state` holds 4 words of 8 N lanes, 128 N bytes.
    let [mut a, mut b, mut c, mut d] = unsafe { load_sets::<N, 4>(sp) };
    let ptrs = lane_ptrs::<N>(blocks);
    let mut msg = [[z; 16]; N];

    // As in the AVX-512 kernel: `t[j]` enters a step holding `a + K[i] + M[i]`, and the
    // step forms the next one's from `d` before the ternlog overwrites it.
    let mut t = [z; N];
    macro_rules! step {
        ($tl:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $s:expr) => {{
            for j in 0..N {
                let next = if $i < 63 {
                    let u = _mm256_add_epi32($d[j], _mm256_set1_epi32(K[($i + 1) % 64] as i32));
                    opaque(_mm256_add_epi32(
                        u,
                        msg[j][const { word_index(($i + 1) % 64) }],
                    ))
                } else {
                    z
                };
                let f = _mm256_ternarylogic_epi32::<{ $tl }>($b[j], $c[j], $d[j]);
                let u = _mm256_add_epi32(t[j], f);
                $a[j] = _mm256_add_epi32($b[j], _mm256_rol_epi32::<{ $s as i32 }>(u));
                t[j] = next;
            }
        }};
    }
    macro_rules! quad {
        ($tl:expr, $r:expr, $i:expr) => {
            if $i % 16 == 0 {
                // Re-read the message words from memory each round (see the AVX-512
                // kernel): else they live in registers and spill with extra copies.
                core::hint::black_box(&mut msg);
            }
            step!($tl, a, b, c, d, $i, S[$r][0]);
            step!($tl, d, a, b, c, $i + 1, S[$r][1]);
            step!($tl, c, d, a, b, $i + 2, S[$r][2]);
            step!($tl, b, c, d, a, $i + 3, S[$r][3]);
        };
    }

    for blk in 0..nblocks {
        for j in 0..N {
            // SAFETY: block `blk` of every lane lies inside its slice (64 nblocks bytes);
            // AVX2 is on.
            unsafe { load_block(&ptrs[j], blk, &mut msg[j]) };
        }
        for j in 0..N {
            let u = _mm256_add_epi32(a[j], _mm256_set1_epi32(K[0] as i32));
            t[j] = opaque(_mm256_add_epi32(u, msg[j][0]));
        }
        let (aa, bb, cc, dd) = (a, b, c, d);
        md5_quads!(quad, TL_F, TL_G, TL_H, TL_I);
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
    fn avx512vl_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Md5>(&k);
        }
    }
}
