//! SHA-512 compression on AVX-512: 8 lanes per set (one u64 lane of a zmm per message),
//! `S` independent sets interleaved per call.
//!
//! Each block is loaded as two zmm per lane (16 big-endian words), byte-swapped with
//! `vpshufb` and transposed 8x8 with `vpunpck{l,h}qdq` + two `vpermt2q` stages, so word
//! `t` of all 8 lanes sits in one register. The message schedule is a rolling 16-word
//! window; rotates are `vprorq` (σ0's rotate by 8 is a `vpshufb`, on the other port),
//! Ch, Maj and the Σ/σ XORs are `vpternlogq`.
//!
//! A round plus its schedule step is 28 vector ops per set (12 shifts/rotates, 6
//! ternlogs, 10 adds), all on the two 512-bit ports, against a dependency chain of only
//! four ops: one set is already throughput-bound (~1080 cycles per 1 KiB of input, i.e.
//! ~3.8 GB/s at 4 GHz). Extra sets add no parallelism the core can use, only spills (W
//! for two sets no longer fits in 32 registers). Measured (GB/s per core, 64 x 16 KiB,
//! shared machine, x1 = 0.7 in the same run): one set 3.4, two 3.2, three 2.8, four 2.5,
//! five 2.2, six 1.8. Kept: `avx512x1` and `avx512x2`. Also tried and dropped: a 9th
//! lane in general-purpose registers alongside one set (2.2: its ops steal the vector
//! ports), `vpmultishiftqb` rotates on port 5 and full 80-round unrolling (no change).
//! All that was on an Intel Xeon; on Zen 5 (2-cycle vector latency) two sets win: x1
//! 4.8, x2 5.8 GB/s, so the scheduler prefers x2 there.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::K;
use crate::isa::Avx512;
use crate::lanes::{lane_sets, Cursor, LaneKernel};
use crate::uarch::est;
use crate::x86_transpose::avx512::{enter_sets, leave_sets, switch_sets};

const BLOCK: usize = 128;
/// How many blocks ahead of the current one to prefetch in each lane.
const PREFETCH: usize = 4;

/// The AVX-512 kernels this CPU can run under `features`.
pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u64>> {
    vec![
        LaneKernel::switched::<Sets<1>>(t, "avx512x1", 8, est(3.4, 2.88, 4.78)),
        LaneKernel::switched::<Sets<2>>(t, "avx512x2", 16, est(3.2, 2.78, 5.8)),
    ]
}

lane_sets!(Switching, u64, Avx512, 8, 8, 128, compress);

/// `vpshufb` mask reversing the bytes of each u64.
const BSWAP64: [u8; 16] = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];

/// `vpshufb` mask rotating each u64 right by 8 bits: moves one of the schedule's rotates
/// from port 0 (the only port for 512-bit shifts) to port 5.
const ROR8: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8];

macro_rules! ror {
    ($x:expr, $n:literal) => {
        _mm512_ror_epi64::<$n>($x)
    };
}

/// `a + b` as an instruction LLVM cannot see through. Without it LLVM reassociates the
/// round's sums, distributing `h` into both the `e` and `a` sums (8 adds a round, not 7)
/// and adding Σ1 early, which lengthens the `e` chain.
macro_rules! add_opaque {
    ($a:expr, $b:expr) => {{
        let (a, b): (__m512i, __m512i) = ($a, $b);
        let r: __m512i;
        // SAFETY: a register-only AVX-512F instruction, inside a kernel that runs only on
        // CPUs with AVX-512F; it touches no memory, stack or flags.
        unsafe {
            core::arch::asm!(
                "vpaddq {r}, {a}, {b}",
                r = lateout(zmm_reg) r,
                a = in(zmm_reg) a,
                b = in(zmm_reg) b,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        r
    }};
}

/// One round for every set: updates `$d` and `$h` (the caller rotates the names).
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
     $w:expr, $k:expr) => {{
        let k = _mm512_set1_epi64($k as i64);
        for s in 0..S {
            let e = $e[s];
            let a = $a[s];
            let big_s1 = _mm512_ternarylogic_epi64::<0x96>(ror!(e, 14), ror!(e, 18), ror!(e, 41));
            let ch = _mm512_ternarylogic_epi64::<0xCA>(e, $f[s], $g[s]);
            let hkw = _mm512_add_epi64($h[s], _mm512_add_epi64($w[s], k));
            let t1 = add_opaque!(_mm512_add_epi64(hkw, ch), big_s1);
            let big_s0 = _mm512_ternarylogic_epi64::<0x96>(ror!(a, 28), ror!(a, 34), ror!(a, 39));
            let maj = _mm512_ternarylogic_epi64::<0xE8>(a, $b[s], $c[s]);
            $d[s] = _mm512_add_epi64($d[s], t1);
            $h[s] = _mm512_add_epi64(t1, _mm512_add_epi64(big_s0, maj));
        }
    }};
}

/// Schedule word `i + 16` into slot `i` of the rolling window, for every set.
macro_rules! sched {
    ($w:ident, $i:literal, $ror8:ident) => {{
        for s in 0..S {
            let w15 = $w[($i + 1) & 15][s];
            let ror8 = $ror8;
            let w2 = $w[($i + 14) & 15][s];
            let s0 = _mm512_ternarylogic_epi64::<0x96>(
                ror!(w15, 1),
                _mm512_shuffle_epi8(w15, ror8),
                _mm512_srli_epi64::<7>(w15),
            );
            let s1 = _mm512_ternarylogic_epi64::<0x96>(
                ror!(w2, 19),
                ror!(w2, 61),
                _mm512_srli_epi64::<6>(w2),
            );
            $w[$i][s] = _mm512_add_epi64(
                _mm512_add_epi64($w[$i][s], s0),
                _mm512_add_epi64($w[($i + 9) & 15][s], s1),
            );
        }
    }};
}

/// Sixteen rounds `16 * $j ..`, with the schedule step before each when `$sched`.
macro_rules! rounds16 {
    ($w:ident, $j:expr, $ror8:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
     $f:ident, $g:ident, $h:ident, $($i:literal)*) => {{
        rounds16!(@go $w, $j, $ror8, [$a $b $c $d $e $f $g $h], $($i)*);
    }};
    (@go $w:ident, $j:expr, $ror8:ident, [$a:ident $b:ident $c:ident $d:ident $e:ident
     $f:ident $g:ident $h:ident], $i:literal $($rest:literal)*) => {{
        if $j > 0 {
            sched!($w, $i, $ror8);
        }
        round!($a, $b, $c, $d, $e, $f, $g, $h, $w[$i], K[16 * $j + $i]);
        rounds16!(@go $w, $j, $ror8, [$h $a $b $c $d $e $f $g], $($rest)*);
    }};
    (@go $w:ident, $j:expr, $ror8:ident, [$($x:ident)*], ) => {};
}

/// Load word `i..i+8` of the 8 lanes of one set (`rows[l]` = lane `l`'s 8 words),
/// byte-swap and transpose so `out[j]` holds word `j` of every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose8(rows: [__m512i; 8]) -> [__m512i; 8] {
    {
        // Stage 1: pairs of rows; even/odd columns.
        let t: [__m512i; 8] = core::array::from_fn(|i| {
            let (r0, r1) = (rows[i & !1], rows[i | 1]);
            if i & 1 == 0 {
                _mm512_unpacklo_epi64(r0, r1)
            } else {
                _mm512_unpackhi_epi64(r0, r1)
            }
        });
        // t[0] = rows0,1 cols 0,2,4,6; t[1] = rows 0,1 cols 1,3,5,7; t[2] = rows 2,3 even...
        let lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
        let hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
        // u[0]: rows 0-3 cols 0,4; u[1]: rows 0-3 cols 2,6; u[2]: rows 0-3 cols 1,5;
        // u[3]: rows 0-3 cols 3,7; u[4..8] the same for rows 4-7.
        let u = [
            _mm512_permutex2var_epi64(t[0], lo2, t[2]),
            _mm512_permutex2var_epi64(t[0], hi2, t[2]),
            _mm512_permutex2var_epi64(t[1], lo2, t[3]),
            _mm512_permutex2var_epi64(t[1], hi2, t[3]),
            _mm512_permutex2var_epi64(t[4], lo2, t[6]),
            _mm512_permutex2var_epi64(t[4], hi2, t[6]),
            _mm512_permutex2var_epi64(t[5], lo2, t[7]),
            _mm512_permutex2var_epi64(t[5], hi2, t[7]),
        ];
        let lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
        let hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
        [
            _mm512_permutex2var_epi64(u[0], lo4, u[4]),
            _mm512_permutex2var_epi64(u[2], lo4, u[6]),
            _mm512_permutex2var_epi64(u[1], lo4, u[5]),
            _mm512_permutex2var_epi64(u[3], lo4, u[7]),
            _mm512_permutex2var_epi64(u[0], hi4, u[4]),
            _mm512_permutex2var_epi64(u[2], hi4, u[6]),
            _mm512_permutex2var_epi64(u[1], hi4, u[5]),
            _mm512_permutex2var_epi64(u[3], hi4, u[7]),
        ]
    }
}

/// Compress `nblocks` blocks in each of `8 S` lanes, switching lanes as `cur` says.
///
/// # Safety
/// `state.len() == 64 S`, `blocks.len() == 8 S`; every lane's slice, and every data
/// switch's, holds `BLOCK` bytes per block up to the lane's next data switch or
/// `nblocks`; the CPU must have AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress<const S: usize>(
    state: &mut [u64],
    blocks: &[&[u8]],
    nblocks: usize,
    cur: &mut Cursor<'_, '_, u64>,
) {
    let zero = _mm512_setzero_si512();
    // SAFETY: (this and the other `_sets` calls) the caller checked that `state` holds 8
    // words of 8 S lanes, i.e. 64 x 8 S bytes; AVX-512F is on.
    let mut st: [[__m512i; S]; 8] = unsafe { enter_sets(state, cur) };
    // Each lane's current block.
    let mut ptrs: [*const u8; 16] = [core::ptr::null(); 16];
    for (p, b) in ptrs.iter_mut().zip(blocks) {
        *p = b.as_ptr();
    }
    // SAFETY: a 16-byte array read unaligned.
    let bswap = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(BSWAP64.as_ptr().cast()) });
    // SAFETY: as above.
    let ror8 = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(ROR8.as_ptr().cast()) });
    for blk in 0..nblocks {
        // SAFETY: as `enter_sets` above.
        unsafe { switch_sets(state, cur, blk, &mut st) };
        while let Some((l, p)) = cur.next_data(blk) {
            ptrs[l] = p.as_ptr();
        }
        // Inputs past the last-level cache stream from memory: fetch PREFETCH blocks ahead
        // in every lane (wrapping_add: the address may lie past the slice; prefetches of
        // any address are harmless).
        for p in ptrs.iter().take(8 * S) {
            let p = p.wrapping_add(PREFETCH * BLOCK);
            _mm_prefetch::<_MM_HINT_T0>(p.cast());
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64).cast());
        }
        let mut w = [[zero; S]; 16];
        for s in 0..S {
            for half in 0..2 {
                let rows: [__m512i; 8] = core::array::from_fn(|l| {
                    let p = ptrs[s * 8 + l];
                    // SAFETY: every lane's current block lies in the slice it reads then
                    // (see the safety contract), and half * 64 + 64 <= BLOCK.
                    let v = unsafe { _mm512_loadu_si512(p.add(half * 64).cast()) };
                    _mm512_shuffle_epi8(v, bswap)
                });
                let cols = transpose8(rows);
                for (j, c) in cols.into_iter().enumerate() {
                    w[half * 8 + j][s] = c;
                }
            }
        }
        for p in ptrs.iter_mut().take(8 * S) {
            *p = p.wrapping_add(BLOCK);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        for j in 0..5usize {
            rounds16!(w, j, ror8, a, b, c, d, e, f, g, h, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        }
        for (s0, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            for s in 0..S {
                s0[s] = _mm512_add_epi64(s0[s], v[s]);
            }
        }
    }
    // SAFETY: as `enter_sets` above.
    unsafe { leave_sets(state, cur, nblocks, &st) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha512::Sha512;
    use crate::testing::{check_kernel, check_switched};

    #[test]
    fn avx512_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha512>(&k);
            check_switched::<Sha512>(&k);
        }
    }
}
