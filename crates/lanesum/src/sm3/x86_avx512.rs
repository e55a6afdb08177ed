//! AVX-512 SM3: 16 lanes per set (one u32 lane of a zmm per message), `S` sets
//! interleaved.
//!
//! The AVX2 kernel's rounds and expansion (see `x86_avx2`) with AVX-512's instructions:
//! each rotate is one `vprold` (AVX2 takes three instructions), each three-way XOR, FF
//! and GG one `vpternlogd`. Blocks are loaded, transposed and byte-swapped by the
//! shared `next_blocks_be`, as SHA-1's are.
//!
//! Unlike the AVX2 kernels these take lane switches inside a call (`Switching`), as
//! SHA-256's AVX-512 ones do, so a batch a little over the lanes (33 messages on 32)
//! wraps its messages around the lanes: at 16 KiB on Zen 5, 33 messages ran 0.67 of 32's
//! rate without switches, 0.9-0.95 with them.
#![allow(unsafe_code)]

use super::T;
use crate::isa::Avx512;
use crate::lanes::{lane_sets, Cursor, LaneKernel};
use crate::uarch::est;
use crate::x86_transpose::avx512::{enter_sets, leave_sets, next_blocks_be, switch_sets};
use core::arch::x86_64::*;

/// Zen 5, 16 KiB, 64 messages (`lanesum speed`): x1 3.6-3.9 GB/s, x2 3.7-4.0, the AVX2
/// kernels 1.5-1.7 there. Zen 4 splits each zmm op in two and Intel runs zmm on two
/// ports: estimated at half there, still above AVX2's 1.2.
pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::switched::<Sets<1>>(t, "avx512x1", 16, est(3.8, 3.3, 4.3)),
        LaneKernel::switched::<Sets<2>>(t, "avx512x2", 32, est(3.6, 3.2, 6.1)),
    ]
}

lane_sets!(Switching, u32, Avx512, 8, 16, 64, compress);

/// Bytes ahead of the current block to prefetch in each lane.
const PREFETCH: usize = 512;

/// Compress `nblocks` blocks in each of `16 S` lanes, switching lanes as `cur` says.
///
/// # Safety
/// `state.len() == 128 S`, `blocks.len() == 16 S`; every lane's slice, and every data
/// switch's, holds 64 bytes per block up to the lane's next data switch or `nblocks`;
/// the CPU must have AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress<const S: usize>(
    state: &mut [u32],
    blocks: &[&[u8]],
    nblocks: usize,
    cur: &mut Cursor<'_, '_, u32>,
) {
    // SAFETY: (this and the other `_sets` calls) the caller checked that `state` holds 8
    // words of 16 S lanes, i.e. 64 x 8 S bytes; AVX-512F is on.
    let mut st: [[__m512i; S]; 8] = unsafe { enter_sets(state, cur) };
    // Each lane's next block.
    let mut ptrs: [[*const u8; 16]; S] =
        core::array::from_fn(|s| core::array::from_fn(|l| blocks[s * 16 + l].as_ptr()));

    // W[j] for every set, from the words before it.
    macro_rules! expand {
        ($w:ident, $j:expr) => {
            let j = $j;
            for s in 0..S {
                let x = xor3(
                    $w[j - 16][s],
                    $w[j - 9][s],
                    _mm512_rol_epi32::<15>($w[j - 3][s]),
                );
                let p1 = xor3(x, _mm512_rol_epi32::<15>(x), _mm512_rol_epi32::<23>(x));
                $w[j][s] = xor3(p1, _mm512_rol_epi32::<7>($w[j - 13][s]), $w[j - 6][s]);
            }
        };
    }
    // Round `j` for every set, in place (the new A lands in `$d`, the new E in `$h`), FF
    // and GG the ternary-logic tables `$ff` and `$gg`.
    macro_rules! round {
        ($w:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident,
         $h:ident, $j:expr, $ff:expr, $gg:expr) => {
            let j = $j;
            let t = _mm512_set1_epi32(T[j] as i32);
            for s in 0..S {
                let a12 = _mm512_rol_epi32::<12>($a[s]);
                let ss1 = _mm512_rol_epi32::<7>(add3(a12, $e[s], t));
                let ss2 = _mm512_xor_si512(ss1, a12);
                let wj = $w[j][s];
                let w1 = _mm512_xor_si512(wj, $w[j + 4][s]);
                let ff = _mm512_ternarylogic_epi32::<$ff>($a[s], $b[s], $c[s]);
                let gg = _mm512_ternarylogic_epi32::<$gg>($e[s], $f[s], $g[s]);
                $d[s] = add3(ff, $d[s], _mm512_add_epi32(ss2, w1));
                let tt2 = add3(gg, $h[s], _mm512_add_epi32(ss1, wj));
                $b[s] = _mm512_rol_epi32::<9>($b[s]);
                $f[s] = _mm512_rol_epi32::<19>($f[s]);
                $h[s] = xor3(tt2, _mm512_rol_epi32::<9>(tt2), _mm512_rol_epi32::<17>(tt2));
            }
        };
    }

    for blk in 0..nblocks {
        while let Some((l, p)) = cur.next_data(blk) {
            ptrs[l / 16][l % 16] = p.as_ptr();
        }
        let mut w = [[_mm512_setzero_si512(); S]; 68];
        // SAFETY: every lane's block `blk` lies in the slice it reads then (see the
        // safety contract).
        unsafe { next_blocks_be(&mut ptrs, PREFETCH, |s, i, v| w[i][s] = v) };
        // SAFETY: as `enter_sets` above.
        unsafe { switch_sets(state, cur, blk, &mut st) };
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        // Four rounds, words renamed rather than moved; the expanded words they need
        // next are made first, where they overlap the rounds' dependency chains.
        macro_rules! four {
            ($j:expr, $ff:expr, $gg:expr) => {
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
        // FF and GG: XOR of three for rounds 0-15; then majority and choice.
        for j in (0..16).step_by(4) {
            four!(j, 0x96, 0x96);
        }
        for j in (16..64).step_by(4) {
            four!(j, 0xe8, 0xca);
        }
        for (sw, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            for s in 0..S {
                sw[s] = _mm512_xor_si512(sw[s], v[s]);
            }
        }
    }

    // SAFETY: as `enter_sets` above.
    unsafe { leave_sets(state, cur, nblocks, &st) };
}

#[target_feature(enable = "avx512f")]
#[inline]
fn add3(x: __m512i, y: __m512i, z: __m512i) -> __m512i {
    _mm512_add_epi32(_mm512_add_epi32(x, y), z)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn xor3(x: __m512i, y: __m512i, z: __m512i) -> __m512i {
    _mm512_ternarylogic_epi32::<0x96>(x, y, z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm3::Sm3;
    use crate::testing::{check_kernel, check_switched};

    #[test]
    fn avx512_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sm3>(&k);
            check_switched::<Sm3>(&k);
        }
    }
}
