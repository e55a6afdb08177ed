//! AVX-512 SHA-1: 16 lanes per set (one u32 lane of a zmm per message), `S` sets
//! interleaved.
//!
//! Each block is loaded and transposed with shuffles (no gathers) by the shared
//! `load_transpose_u32`, then byte-swapped with `vpshufb` into W[0..16]. The 80 rounds
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

use crate::isa::{est, Features};
use crate::lanes::LaneKernel;
use crate::x86_opaque::opaque_zmm as opaque;
use crate::x86_transpose::avx512::{bswap_u32 as bswap, load_transpose_u32 as load_transpose};
use core::arch::x86_64::*;

pub(crate) fn kernels(features: Features) -> Vec<LaneKernel<u32>> {
    if !features.avx512 {
        return Vec::new();
    }
    vec![
        LaneKernel::new("avx512x1", 16, est(8.2, 11.5), run::<1>),
        LaneKernel::new("avx512x2", 32, est(7.5, 10.5), run::<2>),
    ]
}

fn run<const S: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    assert_eq!(state.len(), 5 * 16 * S);
    assert_eq!(blocks.len(), 16 * S);
    assert!(blocks.iter().all(|b| b.len() >= nblocks * 64));
    // SAFETY: this fn is only stored in a LaneKernel built after `features.avx512`
    // (F+BW+VL) was detected; the slice lengths the kernel reads were asserted above.
    unsafe { compress::<S>(state, blocks, nblocks) }
}

/// Bytes ahead of the current block to prefetch in each lane.
const PREFETCH: usize = 512;

#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress<const S: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let lanes = 16 * S;
    let zero = _mm512_setzero_si512();
    let sp = state.as_mut_ptr();
    let mut st = [[zero; S]; 5];
    for (w, sw) in st.iter_mut().enumerate() {
        for (s, v) in sw.iter_mut().enumerate() {
            // SAFETY: state holds 5 * lanes words (asserted by the caller).
            *v = unsafe { _mm512_loadu_si512(sp.add(w * lanes + s * 16).cast()) };
        }
    }
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

    // Block `$blk` of every lane, byte-swapped and transposed: W[0..16] for each set.
    macro_rules! load {
        ($blk:expr) => {{
            let mut w = [[zero; S]; 16];
            for (s, p) in ptrs.iter().enumerate() {
                for q in p {
                    // A hint only: prefetching past the end of a slice cannot fault.
                    _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add($blk * 64 + PREFETCH).cast());
                }
                // SAFETY: every lane slice holds at least nblocks * 64 bytes (asserted
                // by the caller) and $blk < nblocks.
                unsafe { load_transpose(p, $blk * 64, |i, v| w[i][s] = bswap(v)) };
            }
            w
        }};
    }

    for blk in 0..nblocks {
        let mut w = load!(blk);
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

    for (w, sw) in st.iter().enumerate() {
        for (s, v) in sw.iter().enumerate() {
            // SAFETY: as for the loads above.
            unsafe { _mm512_storeu_si512(sp.add(w * lanes + s * 16).cast(), *v) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::testing::check_kernel;
    use crate::sha1::Sha1;

    #[test]
    fn avx512_kernels_match_reference() {
        for k in kernels(crate::isa::Features::detect()) {
            check_kernel::<Sha1>(&k);
        }
    }
}
