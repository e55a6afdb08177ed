//! AVX-512 SHA-1: 16 lanes per set (one u32 lane of a zmm per message), `S` sets
//! interleaved.
//!
//! Each block is loaded and transposed with shuffles (no gathers) by the shared
//! `next_blocks_be`, byte-swapped with `vpshufb` into W[0..16]. The 80 rounds
//! are fully unrolled (about 5 KB of code per set, well inside the instruction cache) so
//! the rolling 16-word schedule window, the round function (`vpternlogd`) and the K
//! constant are all fixed at compile time. A round is 2 rotates, 1 ternlog and 4 adds;
//! the schedule 1 ternlog, 1 xor and 1 rotate.
//!
//! The kernel is bound by the 512-bit ports (~10.7 ops per round with the transpose),
//! so every op counts. Three measured savings on Zen 5 (16 KiB, x1 / x2 GB/s, 9.2 / 10.1
//! before): adding rol5(a) last, so one round's `a` reaches the next through a rotate
//! and one add (the rest is ready a round early); letting the schedule's ternlog
//! overwrite the dying W[t-16] instead of a copy of a live word; and the cheaper
//! transpose (x1 11.2, x2 11.6 after all three). Loading the next block part-way through
//! the rounds, so its shuffles overlap them, won 8.0 -> 8.5 GB/s on a Xeon but now
//! costs spills (16 more live registers): loading at the top of each block is 3-10%
//! faster on Zen 5. x3 and x4 spill the 16-word windows (5.5 and 7.5 GB/s) and are not
//! built.
#![allow(unsafe_code)]

use crate::isa::Avx512;
use crate::lanes::{lane_sets, Cursor, LaneKernel};
use crate::uarch::est;
use crate::x86_opaque::opaque_zmm as opaque;
use crate::x86_transpose::avx512::{enter_sets, leave_sets, next_blocks_be, switch_sets};
use core::arch::x86_64::*;

pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::switched::<Sets<1>>(t, "avx512x1", 16, est(8.2, 7.31, 11.5)),
        LaneKernel::switched::<Sets<2>>(t, "avx512x2", 32, est(7.5, 6.5, 10.5)),
    ]
}

lane_sets!(Switching, u32, Avx512, 5, 16, 64, compress);

/// Bytes ahead of the current block to prefetch in each lane.
const PREFETCH: usize = 512;

/// Compress `nblocks` blocks in each of `16 S` lanes, switching lanes as `cur` says.
///
/// # Safety
/// `state.len() == 80 S`, `blocks.len() == 16 S`; every lane's slice, and every data
/// switch's, holds 64 bytes per block up to the lane's next data switch or `nblocks`;
/// the CPU must have AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress<const S: usize>(
    state: &mut [u32],
    blocks: &[&[u8]],
    nblocks: usize,
    cur: &mut Cursor<'_, '_, u32>,
) {
    let zero = _mm512_setzero_si512();
    // SAFETY: (this and the other `_sets` calls) the caller checked that `state` holds 5
    // words of 16 S lanes, i.e. 64 x 5 S bytes; AVX-512F is on.
    let mut st: [[__m512i; S]; 5] = unsafe { enter_sets(state, cur) };
    // Each lane's current block.
    let mut ptrs = [[core::ptr::null::<u8>(); 16]; S];
    for (s, p) in ptrs.iter_mut().enumerate() {
        for (l, p) in p.iter_mut().enumerate() {
            *p = blocks[s * 16 + l].as_ptr();
        }
    }
    let k = [
        _mm512_set1_epi32(0x5a82_7999),
        _mm512_set1_epi32(0x6ed9_eba1),
        _mm512_set1_epi32(0x8f1b_bcdcu32 as i32),
        _mm512_set1_epi32(0xca62_c1d6u32 as i32),
    ];

    macro_rules! add {
        ($x:expr, $y:expr) => {
            _mm512_add_epi32($x, $y)
        };
    }
    // Round t for every set: e += rol5(a) + f(b, c, d) + K + W[t]; b = rol30(b).
    // From round 16 on, W[t] (slot t mod 16) is first computed from the window.
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $w:ident, $t:expr) => {
            let i = $t & 15;
            for s in 0..S {
                if $t >= 16 {
                    // W[t-16] dies here, so the destructive ternlog can overwrite it
                    // instead of copying a live word first.
                    let x = _mm512_ternarylogic_epi32(
                        $w[i][s],
                        $w[(i + 2) & 15][s],
                        $w[(i + 8) & 15][s],
                        0x96,
                    );
                    $w[i][s] = _mm512_rol_epi32(_mm512_xor_si512(x, $w[(i + 13) & 15][s]), 1);
                }
                let (b, c, d) = ($b[s], $c[s], $d[s]);
                let f = match $t / 20 {
                    0 => _mm512_ternarylogic_epi32(b, c, d, 0xca),
                    2 => _mm512_ternarylogic_epi32(b, c, d, 0xe8),
                    _ => _mm512_ternarylogic_epi32(b, c, d, 0x96),
                };
                // Everything but rol5(a) is ready a round early; adding it last keeps
                // the chain from one round's `a` to the next at a rotate and one add.
                let rest = opaque(add!(f, add!($e[s], add!($w[i][s], k[$t / 20]))));
                $e[s] = add!(_mm512_rol_epi32($a[s], 5), rest);
                $b[s] = _mm512_rol_epi32(b, 30);
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

    // Every lane's current block, byte-swapped and transposed: W[0..16] for each set;
    // the lanes move on to their next block.
    macro_rules! load {
        () => {{
            let mut w = [[zero; S]; 16];
            // SAFETY: every lane's current block lies in the slice it reads then (see
            // the safety contract).
            unsafe { next_blocks_be(&mut ptrs, PREFETCH, |s, i, v| w[i][s] = v) };
            w
        }};
    }

    for blk in 0..nblocks {
        // SAFETY: as `enter_sets` above.
        unsafe { switch_sets(state, cur, blk, &mut st) };
        while let Some((l, p)) = cur.next_data(blk) {
            ptrs[l / 16][l % 16] = p.as_ptr();
        }
        let mut w = load!();
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

    // SAFETY: as `enter_sets` above.
    unsafe { leave_sets(state, cur, nblocks, &st) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha1::Sha1;
    use crate::testing::{check_kernel, check_switched};

    #[test]
    fn avx512_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha1>(&k);
            check_switched::<Sha1>(&k);
        }
    }
}
