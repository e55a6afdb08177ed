//! AVX2 SHA-256: 8 lanes per set (one u32 lane of a ymm per message), `S` sets
//! interleaved.
//!
//! Same shape as the AVX-512 kernel: per block, each lane's 64 bytes are loaded as two
//! ymm, byte-swapped with `vpshufb` and transposed with unpack/`vperm2i128` shuffles into
//! W[0..16]; the schedule runs on the fly in a rolling 16-word window on the stack; the
//! rounds are a loop of 16 unrolled steps. AVX2 has no rotate or ternary-logic
//! instruction, so each rotate is two shifts and an OR, and Maj reuses the previous
//! round's `a ^ b`.
//!
//! Measured 1.65-1.75 GB/s at 16 KiB for one or two sets (about 50 ops per round on
//! three 256-bit ports), on par with single-stream SHA-NI: this is the path for AVX2
//! machines without SHA-NI.
#![allow(unsafe_code)]

use super::K;
use crate::isa::Avx2;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;
use crate::x86_transpose::avx2::{lane_ptrs, load_block_be, load_sets, store_sets};
use core::arch::x86_64::*;

pub(crate) fn kernels(t: Avx2) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<1>>(t, "avx2x1", 8, est(1.65, 1.88, 2.0)),
        LaneKernel::new::<Sets<2>>(t, "avx2x2", 16, est(1.65, 1.94, 2.15)),
    ]
}

lane_sets!(Plain, u32, Avx2, 8, 8, 64, compress);

/// Bytes ahead of the current block to prefetch in each lane.
const PREFETCH: usize = 512;

#[target_feature(enable = "avx2")]
unsafe fn compress<const S: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let zero = _mm256_setzero_si256();
    let sp = state.as_mut_ptr().cast::<u8>();
    // SAFETY: `state` holds 8 words of 8 S lanes, 32 x 8 S bytes (asserted
    // by the caller).
    let mut st = unsafe { load_sets::<S, 8>(sp) };
    let ptrs = lane_ptrs::<S>(blocks);

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
    macro_rules! ror {
        ($x:expr, $n:literal) => {
            _mm256_or_si256(
                _mm256_srli_epi32::<$n>($x),
                _mm256_slli_epi32::<{ 32 - $n }>($x),
            )
        };
    }
    // One round for every set; `$d` and `$h` are the words that change. `$ab` holds
    // a ^ b of this round on exit (it is b ^ c of the next).
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
         $bc:ident, $w:ident, $i:expr, $t:expr) => {
            let k = _mm256_set1_epi32(K[$t & 63] as i32);
            for s in 0..S {
                let e = $e[s];
                let a = $a[s];
                let s1 = xor!(xor!(ror!(e, 6), ror!(e, 11)), ror!(e, 25));
                let g = $g[s];
                let ch = xor!(g, _mm256_and_si256(e, xor!($f[s], g)));
                let s0 = xor!(xor!(ror!(a, 2), ror!(a, 13)), ror!(a, 22));
                let ab = xor!(a, $b[s]);
                let maj = xor!($b[s], _mm256_and_si256(ab, $bc[s]));
                $bc[s] = ab;
                let hkw = add!($h[s], add!($w[$i][s], k));
                let t1 = add!(add!(s1, ch), hkw);
                $d[s] = add!($d[s], t1);
                $h[s] = add!(t1, add!(s0, maj));
            }
        };
    }
    // W[i] += s0(W[i+1]) + W[i+9] + s1(W[i+14]) (indices mod 16) for every set.
    macro_rules! sched {
        ($w:ident, $i:expr) => {
            for s in 0..S {
                let x = $w[($i + 1) & 15][s];
                let y = $w[($i + 14) & 15][s];
                let s0 = xor!(xor!(ror!(x, 7), ror!(x, 18)), _mm256_srli_epi32::<3>(x));
                let s1 = xor!(xor!(ror!(y, 17), ror!(y, 19)), _mm256_srli_epi32::<10>(y));
                $w[$i][s] = add!(add!($w[$i][s], $w[($i + 9) & 15][s]), add!(s0, s1));
            }
        };
    }
    macro_rules! rounds16 {
        ($w:ident, $t0:expr, $sched:tt, $bc:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
         $f:ident, $g:ident, $h:ident) => {
            rounds16!(@r $w, $t0, $sched, $bc, $a, $b, $c, $d, $e, $f, $g, $h, 0);
            rounds16!(@r $w, $t0, $sched, $bc, $h, $a, $b, $c, $d, $e, $f, $g, 1);
            rounds16!(@r $w, $t0, $sched, $bc, $g, $h, $a, $b, $c, $d, $e, $f, 2);
            rounds16!(@r $w, $t0, $sched, $bc, $f, $g, $h, $a, $b, $c, $d, $e, 3);
            rounds16!(@r $w, $t0, $sched, $bc, $e, $f, $g, $h, $a, $b, $c, $d, 4);
            rounds16!(@r $w, $t0, $sched, $bc, $d, $e, $f, $g, $h, $a, $b, $c, 5);
            rounds16!(@r $w, $t0, $sched, $bc, $c, $d, $e, $f, $g, $h, $a, $b, 6);
            rounds16!(@r $w, $t0, $sched, $bc, $b, $c, $d, $e, $f, $g, $h, $a, 7);
            rounds16!(@r $w, $t0, $sched, $bc, $a, $b, $c, $d, $e, $f, $g, $h, 8);
            rounds16!(@r $w, $t0, $sched, $bc, $h, $a, $b, $c, $d, $e, $f, $g, 9);
            rounds16!(@r $w, $t0, $sched, $bc, $g, $h, $a, $b, $c, $d, $e, $f, 10);
            rounds16!(@r $w, $t0, $sched, $bc, $f, $g, $h, $a, $b, $c, $d, $e, 11);
            rounds16!(@r $w, $t0, $sched, $bc, $e, $f, $g, $h, $a, $b, $c, $d, 12);
            rounds16!(@r $w, $t0, $sched, $bc, $d, $e, $f, $g, $h, $a, $b, $c, 13);
            rounds16!(@r $w, $t0, $sched, $bc, $c, $d, $e, $f, $g, $h, $a, $b, 14);
            rounds16!(@r $w, $t0, $sched, $bc, $b, $c, $d, $e, $f, $g, $h, $a, 15);
        };
        (@r $w:ident, $t0:expr, true, $bc:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
         $f:ident, $g:ident, $h:ident, $i:expr) => {
            sched!($w, $i);
            round!($a, $b, $c, $d, $e, $f, $g, $h, $bc, $w, $i, $t0 + $i);
        };
        (@r $w:ident, $t0:expr, false, $bc:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
         $f:ident, $g:ident, $h:ident, $i:expr) => {
            round!($a, $b, $c, $d, $e, $f, $g, $h, $bc, $w, $i, $t0 + $i);
        };
    }

    for blk in 0..nblocks {
        // SAFETY: every lane slice holds at least nblocks * 64 bytes (asserted by the
        // caller) and blk < nblocks.
        let mut w = unsafe { load_block_be::<S, PREFETCH>(&ptrs, blk) };
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        let mut bc = [zero; S];
        for s in 0..S {
            bc[s] = xor!(b[s], c[s]);
        }
        rounds16!(w, 0, false, bc, a, b, c, d, e, f, g, h);
        for t0 in [16, 32, 48] {
            rounds16!(w, t0, true, bc, a, b, c, d, e, f, g, h);
        }
        for (sw, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            for s in 0..S {
                sw[s] = add!(sw[s], v[s]);
            }
        }
    }

    // SAFETY: as for the load above.
    unsafe { store_sets(sp, &st) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha256::Sha256;
    use crate::testing::check_kernel;

    #[test]
    fn avx2_kernels_match_reference() {
        for k in Avx2::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha256>(&k);
        }
    }
}
