//! AVX-512 BLAKE3 lanes: 16 independent compressions per step, one per zmm lane.
//!
//! Each lane has its own chaining value, counter, flags and block length (word-major
//! vectors), so the lanes can hold chunks of different messages at different positions.
//! A lane's 64-byte block is exactly one zmm load; the 16 loads are transposed to 16
//! word vectors in-register (unpack 32/64, then two rounds of 128-bit lane shuffles:
//! 64 shuffles per step, cheaper than gathers). One set of 16 lanes is enough: the four
//! independent G functions of each half-round hide the 2-cycle latency of the vector ops.

use crate::x86_transpose::avx512::transpose_u32;
use core::arch::x86_64::*;

use super::many::{LaneState, LanesFn, SCHEDULE};
use super::{BLOCK_LEN, IV};
use crate::isa::Features;

/// Lanes per call.
const N: usize = 16;

/// The 16-lane kernel, if the CPU (as `features` says) has AVX-512 F/BW/VL.
pub(crate) fn kernel(features: Features) -> Option<LanesFn<N>> {
    features.avx512.then_some(compress_lanes as LanesFn<N>)
}

/// Only reachable through [`kernel`], which checked the CPU features.
fn compress_lanes(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
    st.check(steps);
    // SAFETY: `kernel` hands out this function only when `features.avx512` is set, which
    // `isa` sets only after CPUID showed AVX-512 F/BW/VL; `check` proved every slice the
    // kernel reads is long enough.
    unsafe { compress_lanes_avx512(st, steps, out) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn add(a: __m512i, b: __m512i) -> __m512i {
    _mm512_add_epi32(a, b)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn xor(a: __m512i, b: __m512i) -> __m512i {
    _mm512_xor_si512(a, b)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn splat(x: u32) -> __m512i {
    _mm512_set1_epi32(x as i32)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_row(row: &[u32; N]) -> __m512i {
    // SAFETY: `row` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(row.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store_row(row: &mut [u32; N], x: __m512i) {
    // SAFETY: `row` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), x) }
}

/// One G function on state words `a, b, c, d` with message words `x, y`.
macro_rules! g {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal, $x:expr, $y:expr) => {
        $v[$a] = add(add($v[$a], $x), $v[$b]);
        $v[$d] = _mm512_ror_epi32::<16>(xor($v[$d], $v[$a]));
        $v[$c] = add($v[$c], $v[$d]);
        $v[$b] = _mm512_ror_epi32::<12>(xor($v[$b], $v[$c]));
        $v[$a] = add(add($v[$a], $y), $v[$b]);
        $v[$d] = _mm512_ror_epi32::<8>(xor($v[$d], $v[$a]));
        $v[$c] = add($v[$c], $v[$d]);
        $v[$b] = _mm512_ror_epi32::<7>(xor($v[$b], $v[$c]));
    };
}

/// Round `r`: columns then diagonals, message words in `SCHEDULE[r]` order.
macro_rules! round {
    ($v:ident, $m:ident, $r:literal) => {
        g!($v, 0, 4, 8, 12, $m[SCHEDULE[$r][0]], $m[SCHEDULE[$r][1]]);
        g!($v, 1, 5, 9, 13, $m[SCHEDULE[$r][2]], $m[SCHEDULE[$r][3]]);
        g!($v, 2, 6, 10, 14, $m[SCHEDULE[$r][4]], $m[SCHEDULE[$r][5]]);
        g!($v, 3, 7, 11, 15, $m[SCHEDULE[$r][6]], $m[SCHEDULE[$r][7]]);
        g!($v, 0, 5, 10, 15, $m[SCHEDULE[$r][8]], $m[SCHEDULE[$r][9]]);
        g!($v, 1, 6, 11, 12, $m[SCHEDULE[$r][10]], $m[SCHEDULE[$r][11]]);
        g!($v, 2, 7, 8, 13, $m[SCHEDULE[$r][12]], $m[SCHEDULE[$r][13]]);
        g!($v, 3, 4, 9, 14, $m[SCHEDULE[$r][14]], $m[SCHEDULE[$r][15]]);
    };
}

/// Load lane `l`'s block from `ptrs[l]` and transpose: word `w` of every lane into `m[w]`.
///
/// # Safety
/// Every pointer must have 64 readable bytes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_transpose(ptrs: &[*const u8; N]) -> [__m512i; 16] {
    // SAFETY: the caller guarantees 64 readable bytes at each pointer; unaligned loads.
    transpose_u32(core::array::from_fn(|l| unsafe {
        _mm512_loadu_si512(ptrs[l].cast())
    }))
}

/// # Safety
/// AVX-512 F/BW/VL must be present and `st.check(steps)` must hold.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn compress_lanes_avx512(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
    let mut h: [__m512i; 8] = core::array::from_fn(|w| load_row(&st.cv[w]));
    let counter_lo = load_row(&st.counter_lo);
    let counter_hi = load_row(&st.counter_hi);
    let flags = load_row(&st.flags);
    let start_flags = load_row(&st.start_flags);
    let ends = _mm512_cmpeq_epi32_mask(load_row(&st.left), splat(steps as u32));
    let end_flags = _mm512_maskz_mov_epi32(ends, load_row(&st.end_flags));
    let last_len = _mm512_mask_blend_epi32(ends, splat(BLOCK_LEN as u32), load_row(&st.last_len));
    let full_len = splat(BLOCK_LEN as u32);
    let bases: [*const u8; N] = core::array::from_fn(|l| st.blocks[l].as_ptr());
    let mut hi = [_mm512_setzero_si512(); 8];
    for s in 0..steps {
        let last = s + 1 == steps;
        let ptrs: [*const u8; N] = if last {
            core::array::from_fn(|l| {
                if ends >> l & 1 != 0 {
                    st.last_block(l).as_ptr()
                } else {
                    // SAFETY: a lane that does not end has 64 * steps bytes (`check`).
                    unsafe { bases[l].add(BLOCK_LEN * s) }
                }
            })
        } else {
            // SAFETY: s < steps - 1 and each lane's data has 64 * (steps - 1) bytes.
            core::array::from_fn(|l| unsafe { bases[l].add(BLOCK_LEN * s) })
        };
        // Messages past L2 stream from memory: ask for each lane's block 4 steps ahead.
        for &base in &bases {
            // A hint only: it never faults, whatever the address.
            _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(BLOCK_LEN * (s + 4)).cast());
        }
        // SAFETY: each pointer has 64 readable bytes: final blocks are arrays of 64, and
        // `check` showed each lane's data holds the blocks of the steps it reads there.
        let m = unsafe { load_transpose(&ptrs) };
        let mut step_flags = flags;
        if s == 0 {
            step_flags = _mm512_or_si512(step_flags, start_flags);
        }
        if last {
            step_flags = _mm512_or_si512(step_flags, end_flags);
        }
        let mut v = [
            h[0],
            h[1],
            h[2],
            h[3],
            h[4],
            h[5],
            h[6],
            h[7],
            splat(IV[0]),
            splat(IV[1]),
            splat(IV[2]),
            splat(IV[3]),
            counter_lo,
            counter_hi,
            if last { last_len } else { full_len },
            step_flags,
        ];
        round!(v, m, 0);
        round!(v, m, 1);
        round!(v, m, 2);
        round!(v, m, 3);
        round!(v, m, 4);
        round!(v, m, 5);
        round!(v, m, 6);
        if last {
            for w in 0..8 {
                hi[w] = xor(v[w + 8], h[w]);
            }
        }
        for w in 0..8 {
            h[w] = xor(v[w], v[w + 8]);
        }
    }
    let rows = transpose_u32(core::array::from_fn(
        |w| if w < 8 { h[w] } else { hi[w - 8] },
    ));
    for (row, x) in out.iter_mut().zip(rows) {
        // SAFETY: `row` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), x) }
    }
    for w in 0..8 {
        store_row(
            &mut st.cv[w],
            _mm512_mask_blend_epi32(ends, h[w], splat(IV[w])),
        );
    }
}
