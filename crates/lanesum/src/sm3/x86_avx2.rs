//! AVX2 SM3: 8 lanes per set (one u32 lane of a ymm per message), `S` sets interleaved.
//!
//! The shape of the SHA-256 AVX2 kernel: each lane's block is loaded, byte-swapped and
//! transposed into W[0..16] (`x86_transpose`); the rounds run four at a time with the
//! words renamed rather than moved, each step first expanding the four words of W the
//! next one needs (as the scalar reference does). AVX2 has no rotate, so each is two
//! shifts and an OR; SM3 has 8 of them per round and 3 per expanded word.
#![allow(unsafe_code)]

use super::T;
use crate::isa::Avx2;
use crate::lanes::{lane_sets, LaneKernel};
use crate::x86_transpose::avx2::{lane_ptrs, load_block_be, load_sets, store_sets};
use core::arch::x86_64::*;

/// One set and two: 1.0-1.25 GB/s at 1 KiB, 1.1-1.3 at 16 KiB, either (Zen 3, alternating
/// `lanesum speed` runs; the `sm3` crate's one stream 0.22-0.27), so the one set, which
/// needs fewer messages to fill, is estimated a little faster.
pub(crate) fn kernels(t: Avx2) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<1>>(t, "avx2x1", 8, 1.2),
        LaneKernel::new::<Sets<2>>(t, "avx2x2", 16, 1.15),
    ]
}

lane_sets!(Plain, u32, Avx2, 8, 8, 64, compress);

/// Bytes ahead of the current block to prefetch in each lane.
const PREFETCH: usize = 512;

#[target_feature(enable = "avx2")]
unsafe fn compress<const S: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let sp = state.as_mut_ptr().cast::<u8>();
    // SAFETY: `state` holds 8 words of 8 S lanes, 32 x 8 S bytes (asserted by the
    // caller).
    let mut st = unsafe { load_sets::<S, 8>(sp) };
    let ptrs = lane_ptrs::<S>(blocks);

    // W[j] for every set, from the words before it.
    macro_rules! expand {
        ($w:ident, $j:expr) => {
            let j = $j;
            for s in 0..S {
                let x = xor3($w[j - 16][s], $w[j - 9][s], rol::<15, 17>($w[j - 3][s]));
                let p1 = xor3(x, rol::<15, 17>(x), rol::<23, 9>(x));
                $w[j][s] = xor3(p1, rol::<7, 25>($w[j - 13][s]), $w[j - 6][s]);
            }
        };
    }
    // Round `j` for every set, in place (the new A lands in `$d`, the new E in `$h`), with
    // boolean functions `$ff` and `$gg`.
    macro_rules! round {
        ($w:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident,
         $h:ident, $j:expr, $ff:ident, $gg:ident) => {
            let j = $j;
            let t = _mm256_set1_epi32(T[j] as i32);
            for s in 0..S {
                let a12 = rol::<12, 20>($a[s]);
                let ss1 = rol::<7, 25>(add3(a12, $e[s], t));
                let ss2 = _mm256_xor_si256(ss1, a12);
                let wj = $w[j][s];
                let w1 = _mm256_xor_si256(wj, $w[j + 4][s]);
                $d[s] = add3($ff($a[s], $b[s], $c[s]), $d[s], _mm256_add_epi32(ss2, w1));
                let tt2 = add3($gg($e[s], $f[s], $g[s]), $h[s], _mm256_add_epi32(ss1, wj));
                $b[s] = rol::<9, 23>($b[s]);
                $f[s] = rol::<19, 13>($f[s]);
                $h[s] = xor3(tt2, rol::<9, 23>(tt2), rol::<17, 15>(tt2));
            }
        };
    }

    for blk in 0..nblocks {
        let mut w = [[_mm256_setzero_si256(); S]; 68];
        // SAFETY: every lane slice holds at least nblocks * 64 bytes (asserted by the
        // caller) and blk < nblocks.
        let first = unsafe { load_block_be::<S, PREFETCH>(&ptrs, blk) };
        w[..16].copy_from_slice(&first);
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        // Four rounds, words renamed rather than moved; the expanded words they need
        // next are made first, where they overlap the rounds' dependency chains.
        macro_rules! four {
            ($j:expr, $ff:ident, $gg:ident) => {
                if $j >= 12 {
                    for k in $j + 4..$j + 8 {
                        expand!(w, k);
                    }
                }
                round!(w, a, b, c, d, e, f, g, h, $j, $ff, $gg);
                round!(w, d, a, b, c, h, e, f, g, $j + 1, $ff, $gg);
                round!(w, c, d, a, b, g, h, e, f, $j + 2, $ff, $gg);
                round!(w, b, c, d, a, f, g, h, e, $j + 3, $ff, $gg);
            };
        }
        for j in (0..16).step_by(4) {
            four!(j, xor3, xor3);
        }
        for j in (16..64).step_by(4) {
            four!(j, majority, choice);
        }
        for (sw, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            for s in 0..S {
                sw[s] = _mm256_xor_si256(sw[s], v[s]);
            }
        }
    }

    // SAFETY: as for the load above.
    unsafe { store_sets(sp, &st) };
}

/// `x` rotated left by `L` bits (`R = 32 - L`): AVX2 has no rotate.
#[target_feature(enable = "avx2")]
#[inline]
fn rol<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi32::<L>(x), _mm256_srli_epi32::<R>(x))
}

#[target_feature(enable = "avx2")]
#[inline]
fn add3(x: __m256i, y: __m256i, z: __m256i) -> __m256i {
    _mm256_add_epi32(_mm256_add_epi32(x, y), z)
}

/// Also FF and GG of rounds 0-15.
#[target_feature(enable = "avx2")]
#[inline]
fn xor3(x: __m256i, y: __m256i, z: __m256i) -> __m256i {
    _mm256_xor_si256(_mm256_xor_si256(x, y), z)
}

/// FF of rounds 16-63: `(x & y) | (x & z) | (y & z)`.
#[target_feature(enable = "avx2")]
#[inline]
fn majority(x: __m256i, y: __m256i, z: __m256i) -> __m256i {
    _mm256_or_si256(
        _mm256_and_si256(x, y),
        _mm256_and_si256(z, _mm256_or_si256(x, y)),
    )
}

/// GG of rounds 16-63: `(x & y) | (!x & z)`.
#[target_feature(enable = "avx2")]
#[inline]
fn choice(x: __m256i, y: __m256i, z: __m256i) -> __m256i {
    _mm256_xor_si256(z, _mm256_and_si256(x, _mm256_xor_si256(y, z)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm3::Sm3;
    use crate::testing::check_kernel;

    #[test]
    fn avx2_kernels_match_reference() {
        for k in Avx2::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sm3>(&k);
        }
    }
}
