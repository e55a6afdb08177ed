//! AVX2 BLAKE3 lanes: 8 independent compressions per step, one per 32-bit ymm lane.
//!
//! Same layout as the AVX-512 kernel: per-lane chaining value, counter, flags and block
//! length as word-major vectors. A lane's block is two ymm loads (words 0-7, 8-15); each
//! half of the 8 lanes is transposed with unpack 32/64 and a 128-bit permute (48 shuffles
//! per step). Rotations by 16 and 8 are byte shuffles, by 12 and 7 shift pairs. With only 16
//! ymm registers the state fills the register file and the message words live on the stack
//! as memory operands.
#![allow(unsafe_code)]

use crate::x86_transpose::avx2::transpose_u32;
use core::arch::x86_64::*;

use super::lanes::{LaneState, LanesBody, LanesKernel, SCHEDULE};
use super::{BLOCK_LEN, IV};
use crate::isa::Avx2;

/// Lanes per call.
const N: usize = 8;

/// The 8-lane kernel, which `t` proves this CPU can run.
pub(crate) fn kernel(t: Avx2) -> LanesKernel<N> {
    LanesKernel::new::<Lanes>(t)
}

/// The code of [`kernel`].
struct Lanes;

impl LanesBody<N> for Lanes {
    type Token = Avx2;

    unsafe fn compress(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
        // SAFETY: the caller holds an `Avx2` token and checked the shapes (the trait's
        // contract).
        unsafe { compress_lanes_avx2(st, steps, out) }
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn add(a: __m256i, b: __m256i) -> __m256i {
    _mm256_add_epi32(a, b)
}

#[inline]
#[target_feature(enable = "avx2")]
fn xor(a: __m256i, b: __m256i) -> __m256i {
    _mm256_xor_si256(a, b)
}

#[inline]
#[target_feature(enable = "avx2")]
fn splat(x: u32) -> __m256i {
    _mm256_set1_epi32(x as i32)
}

#[inline]
#[target_feature(enable = "avx2")]
fn ror16(x: __m256i) -> __m256i {
    let idx = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    _mm256_shuffle_epi8(x, idx)
}

#[inline]
#[target_feature(enable = "avx2")]
fn ror8(x: __m256i) -> __m256i {
    let idx = _mm256_setr_epi8(
        1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8,
        13, 14, 15, 12,
    );
    _mm256_shuffle_epi8(x, idx)
}

#[inline]
#[target_feature(enable = "avx2")]
fn ror12(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_srli_epi32::<12>(x), _mm256_slli_epi32::<20>(x))
}

#[inline]
#[target_feature(enable = "avx2")]
fn ror7(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_srli_epi32::<7>(x), _mm256_slli_epi32::<25>(x))
}

#[inline]
#[target_feature(enable = "avx2")]
fn load_row(row: &[u32; N]) -> __m256i {
    // SAFETY: `row` is 32 readable bytes; the load is unaligned.
    unsafe { _mm256_loadu_si256(row.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn store_row(row: &mut [u32; N], x: __m256i) {
    // SAFETY: `row` is 32 writable bytes; the store is unaligned.
    unsafe { _mm256_storeu_si256(row.as_mut_ptr().cast(), x) }
}

/// One G function on state words `a, b, c, d` with message words `x, y`.
macro_rules! g {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal, $x:expr, $y:expr) => {
        $v[$a] = add(add($v[$a], $x), $v[$b]);
        $v[$d] = ror16(xor($v[$d], $v[$a]));
        $v[$c] = add($v[$c], $v[$d]);
        $v[$b] = ror12(xor($v[$b], $v[$c]));
        $v[$a] = add(add($v[$a], $y), $v[$b]);
        $v[$d] = ror8(xor($v[$d], $v[$a]));
        $v[$c] = add($v[$c], $v[$d]);
        $v[$b] = ror7(xor($v[$b], $v[$c]));
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
#[target_feature(enable = "avx2")]
unsafe fn load_transpose(ptrs: &[*const u8; N]) -> [__m256i; 16] {
    // SAFETY: the caller guarantees 64 readable bytes at each pointer; unaligned loads.
    let lo: [__m256i; 8] = core::array::from_fn(|l| unsafe { _mm256_loadu_si256(ptrs[l].cast()) });
    // SAFETY: as above, bytes 32..64.
    let hi: [__m256i; 8] =
        core::array::from_fn(|l| unsafe { _mm256_loadu_si256(ptrs[l].add(32).cast()) });
    let (a, b) = (transpose_u32(lo), transpose_u32(hi));
    core::array::from_fn(|w| if w < 8 { a[w] } else { b[w - 8] })
}

/// # Safety
/// AVX2 must be present and `st.check(steps)` must hold.
#[target_feature(enable = "avx2")]
unsafe fn compress_lanes_avx2(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
    let mut h: [__m256i; 8] = core::array::from_fn(|w| load_row(&st.cv[w]));
    let counter_lo = load_row(&st.counter_lo);
    let counter_hi = load_row(&st.counter_hi);
    let flags = load_row(&st.flags);
    let start_flags = load_row(&st.start_flags);
    let ends = _mm256_cmpeq_epi32(load_row(&st.left), splat(steps as u32));
    let end_bits = _mm256_movemask_ps(_mm256_castsi256_ps(ends)) as u32;
    let end_flags = _mm256_and_si256(ends, load_row(&st.end_flags));
    let full_len = splat(BLOCK_LEN as u32);
    let last_len = _mm256_blendv_epi8(full_len, load_row(&st.last_len), ends);
    let bases: [*const u8; N] = core::array::from_fn(|l| st.blocks[l].as_ptr());
    let mut hi = [_mm256_setzero_si256(); 8];
    for s in 0..steps {
        let last = s + 1 == steps;
        let ptrs: [*const u8; N] = if last {
            core::array::from_fn(|l| {
                if end_bits >> l & 1 != 0 {
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
            step_flags = _mm256_or_si256(step_flags, start_flags);
        }
        if last {
            step_flags = _mm256_or_si256(step_flags, end_flags);
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
    let (lo_rows, hi_rows) = (transpose_u32(h), transpose_u32(hi));
    for (row, (a, b)) in out.iter_mut().zip(lo_rows.into_iter().zip(hi_rows)) {
        // SAFETY: `row` is 64 writable bytes; the stores are unaligned.
        unsafe {
            _mm256_storeu_si256(row.as_mut_ptr().cast(), a);
            _mm256_storeu_si256(row.as_mut_ptr().add(8).cast(), b);
        }
    }
    for w in 0..8 {
        store_row(&mut st.cv[w], _mm256_blendv_epi8(h[w], splat(IV[w]), ends));
    }
}
