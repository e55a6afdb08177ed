//! AVX-512 BLAKE3 lanes: 16 independent compressions per step, one per zmm lane.
//!
//! Each lane has its own chaining value, counter, flags and block length (word-major
//! vectors), so the lanes can hold chunks of different messages at different positions.
//! A lane's 64-byte block is exactly one zmm load; the 16 loads are transposed to 16
//! word vectors in-register (unpack 32/64, then two rounds of 128-bit lane shuffles:
//! 64 shuffles per step, cheaper than gathers). The kernel is written for `S` interleaved
//! sets of 16 lanes, but one is built: on Zen 5 two sets (32 lanes) ran slower, 8.0 vs 8.8
//! GB/s per core on 64 x 1 KiB, as 32 state vectors leave no registers for the message;
//! the four independent G functions of each half-round already overlap the 2-cycle
//! latency of the vector ops.
#![allow(unsafe_code)]

use crate::x86_transpose::avx512::{load_transpose_u32, transpose_u32};
use core::arch::x86_64::*;

use super::lanes::{LaneState, LanesBody, LanesKernel, SCHEDULE};
use super::{BLOCK_LEN, IV};
use crate::isa::Avx512;

/// Lanes per set: one u32 per zmm lane.
const N: usize = 16;

/// The 16-lane kernel, which `t` proves this CPU can run.
pub(crate) fn kernel(t: Avx512) -> LanesKernel<N> {
    LanesKernel::new::<Sets<1>>(t)
}

/// The code of [`kernel`]: `S` interleaved sets of 16 lanes (one is built, see above).
struct Sets<const S: usize>;

impl<const L: usize, const S: usize> LanesBody<L> for Sets<S> {
    type Token = Avx512;

    unsafe fn compress(st: &mut LaneState<'_, L>, steps: usize, out: &mut [[u32; 16]; L]) {
        assert_eq!(L, 16 * S);
        // SAFETY: the caller holds an `Avx512` token (AVX-512 F/BW/VL) and checked the
        // shapes (the trait's contract); `L == 16 * S`, so every row holds S sets.
        unsafe { compress_lanes_avx512::<L, S>(st, steps, out) }
    }
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

/// Set `s`'s 16 lanes of a word-major row.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_row<const L: usize>(row: &[u32; L], s: usize) -> __m512i {
    let set: &[u32; N] = row[N * s..N * s + N].try_into().expect("16 words");
    // SAFETY: `set` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(set.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store_row<const L: usize>(row: &mut [u32; L], s: usize, x: __m512i) {
    let set: &mut [u32; N] = (&mut row[N * s..N * s + N]).try_into().expect("16 words");
    // SAFETY: `set` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(set.as_mut_ptr().cast(), x) }
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

/// # Safety
/// AVX-512 F/BW/VL must be present, `st.check(steps)` must hold and `L == 16 * S`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn compress_lanes_avx512<const L: usize, const S: usize>(
    st: &mut LaneState<'_, L>,
    steps: usize,
    out: &mut [[u32; 16]; L],
) {
    let zero = _mm512_setzero_si512();
    let mut h = [[zero; 8]; S];
    let mut hi = [[zero; 8]; S];
    let mut counter_lo = [zero; S];
    let mut counter_hi = [zero; S];
    let mut flags = [zero; S];
    let mut start_flags = [zero; S];
    let mut ends = [0u16; S];
    let mut end_flags = [zero; S];
    let mut last_len = [zero; S];
    for s in 0..S {
        h[s] = core::array::from_fn(|w| load_row(&st.cv[w], s));
        counter_lo[s] = load_row(&st.counter_lo, s);
        counter_hi[s] = load_row(&st.counter_hi, s);
        flags[s] = load_row(&st.flags, s);
        start_flags[s] = load_row(&st.start_flags, s);
        ends[s] = _mm512_cmpeq_epi32_mask(load_row(&st.left, s), splat(steps as u32));
        end_flags[s] = _mm512_maskz_mov_epi32(ends[s], load_row(&st.end_flags, s));
        last_len[s] =
            _mm512_mask_blend_epi32(ends[s], splat(BLOCK_LEN as u32), load_row(&st.last_len, s));
    }
    let full_len = splat(BLOCK_LEN as u32);
    let bases: [*const u8; L] = core::array::from_fn(|l| st.blocks[l].as_ptr());
    for step in 0..steps {
        let last = step + 1 == steps;
        let mut v = [[zero; 16]; S];
        let mut m = [[zero; 16]; S];
        for s in 0..S {
            let ptrs: [*const u8; N] = core::array::from_fn(|i| {
                let l = N * s + i;
                if last && ends[s] >> i & 1 != 0 {
                    st.last_block(l).as_ptr()
                } else {
                    // SAFETY: a lane that does not end in this call has 64 * steps bytes,
                    // one that does has 64 * (steps - 1) and is read here only before its
                    // last step (`check`).
                    unsafe { bases[l].add(BLOCK_LEN * step) }
                }
            });
            // Messages past L2 stream from memory: ask for each lane's block 4 steps ahead.
            for &base in &bases[N * s..N * s + N] {
                // A hint only: it never faults, whatever the address.
                _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(BLOCK_LEN * (step + 4)).cast());
            }
            let ms = &mut m[s];
            // SAFETY: each pointer has 64 readable bytes: final blocks are arrays of 64, and
            // `check` showed each lane's data holds the blocks of the steps it reads there.
            unsafe { load_transpose_u32(&ptrs, 0, |w, v| ms[w] = v) };
            let mut step_flags = flags[s];
            if step == 0 {
                step_flags = _mm512_or_si512(step_flags, start_flags[s]);
            }
            if last {
                step_flags = _mm512_or_si512(step_flags, end_flags[s]);
            }
            let hs = h[s];
            v[s] = [
                hs[0],
                hs[1],
                hs[2],
                hs[3],
                hs[4],
                hs[5],
                hs[6],
                hs[7],
                splat(IV[0]),
                splat(IV[1]),
                splat(IV[2]),
                splat(IV[3]),
                counter_lo[s],
                counter_hi[s],
                if last { last_len[s] } else { full_len },
                step_flags,
            ];
        }
        // Round by round over the sets, so S independent G chains are in flight.
        macro_rules! all_sets {
            ($r:literal) => {
                for s in 0..S {
                    let (vs, ms) = (&mut v[s], &m[s]);
                    round!(vs, ms, $r);
                }
            };
        }
        all_sets!(0);
        all_sets!(1);
        all_sets!(2);
        all_sets!(3);
        all_sets!(4);
        all_sets!(5);
        all_sets!(6);
        for s in 0..S {
            if last {
                for w in 0..8 {
                    hi[s][w] = xor(v[s][w + 8], h[s][w]);
                }
            }
            for w in 0..8 {
                h[s][w] = xor(v[s][w], v[s][w + 8]);
            }
        }
    }
    for s in 0..S {
        let rows = transpose_u32(core::array::from_fn(|w| {
            if w < 8 {
                h[s][w]
            } else {
                hi[s][w - 8]
            }
        }));
        for (row, x) in out[N * s..N * s + N].iter_mut().zip(rows) {
            // SAFETY: `row` is 64 writable bytes; the store is unaligned.
            unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), x) }
        }
        for w in 0..8 {
            store_row(
                &mut st.cv[w],
                s,
                _mm512_mask_blend_epi32(ends[s], h[s][w], splat(IV[w])),
            );
        }
    }
}
