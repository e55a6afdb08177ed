//! SHA-512 compression on AVX2: 4 lanes per set (one u64 lane of a ymm per message),
//! `S` independent sets interleaved per call.
//!
//! AVX2 has no 64-bit rotate: each rotate is two shifts, and since the two halves of a
//! rotate never overlap, a Σ is the XOR of six shifts (11 ops). The σ0 rotate by 8 is one
//! `vpshufb`. Maj carries `a ^ b` into the next round's `b ^ c` (3 ops). A round plus its
//! schedule step is ~54 ops for 4 lanes on the three vector ports (~1.5 GB/s at 4 GHz),
//! against ~28 for 8 lanes with AVX-512. Blocks are loaded as four ymm per lane,
//! byte-swapped and transposed 4x4 (`vpunpck{l,h}qdq` + `vperm2i128`).
//!
//! Measured (GB/s per core, 64 x 16 KiB, shared machine, x1 = 0.7 in the same run): one
//! set 1.3, two 1.4, three 1.1, four 1.35 (16 ymm registers: more sets mostly add
//! spills). Kept: `avx2x1` (for 4 or fewer busy lanes) and `avx2x2`.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::K;
use crate::isa::Avx2;
use crate::lanes::{lane_sets, LaneKernel};
use crate::uarch::est;

pub(super) const BLOCK: usize = 128;
/// How many blocks ahead of the current one to prefetch in each lane.
pub(super) const PREFETCH: usize = 4;

/// The AVX2 kernels this CPU can run under `features`.
pub(crate) fn kernels(t: Avx2) -> Vec<LaneKernel<u64>> {
    vec![
        LaneKernel::new::<Sets<1>>(t, "avx2x1", 4, est(1.25, 1.43, 1.47)),
        LaneKernel::new::<Sets<2>>(t, "avx2x2", 8, est(1.4, 1.58, 1.8)),
    ]
}

lane_sets!(Plain, u64, Avx2, 8, 4, BLOCK, compress);

/// `vpshufb` mask reversing the bytes of each u64.
pub(super) const BSWAP64: [u8; 16] = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];
/// `vpshufb` mask rotating each u64 right by 8 bits.
pub(super) const ROR8: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8];

/// The kernel for sets of 4 lanes in ymm registers, also built by the AVX-512VL kernels
/// (`x86_avx512vl.rs`) with their rotates and three-input logic: `$bsig!(x, a, b, c)` is
/// `ror(x, a) ^ ror(x, b) ^ ror(x, c)`, `$ch!(e, f, g)`, `$maj!(b, a ^ b, b ^ c)`, and
/// the schedule's `$ssig0!(x, ror8_mask)` and `$ssig1!(x)`.
macro_rules! ymm_kernel {
    ($feature:literal, $bsig:ident, $ch:ident, $maj:ident, $ssig0:ident, $ssig1:ident) => {
        macro_rules! xor {
            ($a:expr, $b:expr) => {
                _mm256_xor_si256($a, $b)
            };
        }

        /// `a + b` as an instruction LLVM cannot see through, so it keeps T1 as one value (see
        /// the AVX-512 kernel: otherwise it distributes `h` into both sums, one add more).
        macro_rules! add_opaque {
            ($a:expr, $b:expr) => {{
                let (a, b): (__m256i, __m256i) = ($a, $b);
                let r: __m256i;
                // SAFETY: a register-only AVX2 instruction, inside a kernel that runs only on
                // CPUs with AVX2; it touches no memory, stack or flags.
                unsafe {
                    core::arch::asm!(
                        "vpaddq {r}, {a}, {b}",
                        r = lateout(ymm_reg) r,
                        a = in(ymm_reg) a,
                        b = in(ymm_reg) b,
                        options(pure, nomem, nostack, preserves_flags)
                    );
                }
                r
            }};
        }

        /// One round for every set: updates `$d`, `$h` and the carried `$bc` (= b ^ c).
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
             $bc:ident, $w:expr, $k:expr) => {{
                let k = _mm256_set1_epi64x($k as i64);
                for s in 0..S {
                    let e = $e[s];
                    let a = $a[s];
                    let big_s1 = $bsig!(e, 14, 18, 41);
                    let ch = $ch!(e, $f[s], $g[s]);
                    let hkw = _mm256_add_epi64($h[s], _mm256_add_epi64($w[s], k));
                    let t1 = add_opaque!(_mm256_add_epi64(hkw, ch), big_s1);
                    let big_s0 = $bsig!(a, 28, 34, 39);
                    let ab = xor!(a, $b[s]);
                    let maj = $maj!($b[s], ab, $bc[s]);
                    $bc[s] = ab;
                    $d[s] = _mm256_add_epi64($d[s], t1);
                    $h[s] = _mm256_add_epi64(t1, _mm256_add_epi64(big_s0, maj));
                }
            }};
        }

        /// Schedule word `i + 16` into slot `i` of the rolling window, for every set.
        macro_rules! sched {
            ($w:ident, $i:literal, $ror8:ident) => {{
                for s in 0..S {
                    let w15 = $w[($i + 1) & 15][s];
                    let w2 = $w[($i + 14) & 15][s];
                    let s0 = $ssig0!(w15, $ror8);
                    let s1 = $ssig1!(w2);
                    $w[$i][s] = _mm256_add_epi64(
                        _mm256_add_epi64($w[$i][s], s0),
                        _mm256_add_epi64($w[($i + 9) & 15][s], s1),
                    );
                }
            }};
        }

        #[target_feature(enable = $feature)]
        unsafe fn compress<const S: usize>(state: &mut [u64], blocks: &[&[u8]], nblocks: usize) {
            let sp = state.as_mut_ptr().cast::<u8>();
            let zero = _mm256_setzero_si256();
            // SAFETY: `state` holds 8 words of 4 S lanes, 32 x 8 S bytes (asserted
            // by the caller).
            let mut st = unsafe { crate::x86_transpose::avx2::load_sets::<S, 8>(sp) };
            // SAFETY: 16-byte arrays read unaligned.
            let (bswap, ror8) = unsafe {
                (
                    _mm256_broadcastsi128_si256(_mm_loadu_si128(BSWAP64.as_ptr().cast())),
                    _mm256_broadcastsi128_si256(_mm_loadu_si128(ROR8.as_ptr().cast())),
                )
            };
            for blk in 0..nblocks {
                let off = blk * BLOCK;
                // Fetch PREFETCH blocks ahead in every lane (wrapping_add: the address may lie
                // past the slice; prefetches of any address are harmless).
                for lane in blocks.iter().take(4 * S) {
                    let p = lane.as_ptr().wrapping_add(off + PREFETCH * BLOCK);
                    _mm_prefetch::<_MM_HINT_T0>(p.cast());
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64).cast());
                }
                let mut w = [[zero; S]; 16];
                for s in 0..S {
                    for quarter in 0..4 {
                        let rows: [__m256i; 4] = core::array::from_fn(|l| {
                            let p = blocks[s * 4 + l].as_ptr();
                            // SAFETY: `run` checked every lane holds nblocks * BLOCK bytes, and
                            // off + quarter * 32 + 32 <= nblocks * BLOCK.
                            let v = unsafe { _mm256_loadu_si256(p.add(off + quarter * 32).cast()) };
                            _mm256_shuffle_epi8(v, bswap)
                        });
                        for (j, c) in transpose4(rows).into_iter().enumerate() {
                            w[quarter * 4 + j][s] = c;
                        }
                    }
                }
                let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
                let mut bc: [__m256i; S] = core::array::from_fn(|s| xor!(b[s], c[s]));
                for j in 0..5usize {
                    rounds16!(w, j, ror8, bc, a, b, c, d, e, f, g, h,
                        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
                }
                for (s0, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                    for s in 0..S {
                        s0[s] = _mm256_add_epi64(s0[s], v[s]);
                    }
                }
            }
            // SAFETY: as for the load above.
            unsafe { crate::x86_transpose::avx2::store_sets(sp, &st) };
        }
    };
}
/// Sixteen rounds `16 * $j ..`, with the schedule step before each when `$j > 0`
/// (`round!` and `sched!` are those of the `ymm_kernel!` expansion it is used in).
macro_rules! rounds16 {
    ($w:ident, $j:expr, $ror8:ident, $bc:ident, $a:ident, $b:ident, $c:ident, $d:ident,
     $e:ident, $f:ident, $g:ident, $h:ident, $($i:literal)*) => {{
        rounds16!(@go $w, $j, $ror8, $bc, [$a $b $c $d $e $f $g $h], $($i)*);
    }};
    (@go $w:ident, $j:expr, $ror8:ident, $bc:ident, [$a:ident $b:ident $c:ident $d:ident
     $e:ident $f:ident $g:ident $h:ident], $i:literal $($rest:literal)*) => {{
        if $j > 0 {
            sched!($w, $i, $ror8);
        }
        round!($a, $b, $c, $d, $e, $f, $g, $h, $bc, $w[$i], K[16 * $j + $i]);
        rounds16!(@go $w, $j, $ror8, $bc, [$h $a $b $c $d $e $f $g], $($rest)*);
    }};
    (@go $w:ident, $j:expr, $ror8:ident, $bc:ident, [$($x:ident)*], ) => {};
}
pub(super) use rounds16;
pub(super) use ymm_kernel;

/// Transpose 4x4 u64: `rows[l]` holds 4 consecutive words of lane `l`; `out[j]` holds
/// word `j` of every lane.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose4(rows: [__m256i; 4]) -> [__m256i; 4] {
    // t0 = r0[0] r1[0] r0[2] r1[2]; t1 = r0[1] r1[1] r0[3] r1[3]; t2, t3 for rows 2, 3.
    let t0 = _mm256_unpacklo_epi64(rows[0], rows[1]);
    let t1 = _mm256_unpackhi_epi64(rows[0], rows[1]);
    let t2 = _mm256_unpacklo_epi64(rows[2], rows[3]);
    let t3 = _mm256_unpackhi_epi64(rows[2], rows[3]);
    [
        _mm256_permute2x128_si256::<0x20>(t0, t2),
        _mm256_permute2x128_si256::<0x20>(t1, t3),
        _mm256_permute2x128_si256::<0x31>(t0, t2),
        _mm256_permute2x128_si256::<0x31>(t1, t3),
    ]
}

/// `ror(x, a) ^ ror(x, b) ^ ror(x, c)` as six shifts and five XORs.
macro_rules! big_sigma_avx2 {
    ($x:expr, $a:literal, $b:literal, $c:literal) => {{
        let x = $x;
        xor!(
            xor!(
                xor!(
                    _mm256_srli_epi64::<$a>(x),
                    _mm256_slli_epi64::<{ 64 - $a }>(x)
                ),
                xor!(
                    _mm256_srli_epi64::<$b>(x),
                    _mm256_slli_epi64::<{ 64 - $b }>(x)
                )
            ),
            xor!(
                _mm256_srli_epi64::<$c>(x),
                _mm256_slli_epi64::<{ 64 - $c }>(x)
            )
        )
    }};
}

// (e & (f ^ g)) ^ g
macro_rules! ch_avx2 {
    ($e:expr, $f:expr, $g:expr) => {
        xor!(_mm256_and_si256(xor!($f, $g), $e), $g)
    };
}
// ((a ^ b) & (b ^ c)) ^ b
macro_rules! maj_avx2 {
    ($b:expr, $ab:expr, $bc:expr) => {
        xor!(_mm256_and_si256($ab, $bc), $b)
    };
}
// ror 1 ^ ror 8 ^ shr 7, the rotate by 8 one `vpshufb` with the mask `$ror8`
macro_rules! small_sigma0_avx2 {
    ($x:expr, $ror8:expr) => {{
        let x = $x;
        xor!(
            xor!(_mm256_srli_epi64::<1>(x), _mm256_slli_epi64::<63>(x)),
            xor!(_mm256_shuffle_epi8(x, $ror8), _mm256_srli_epi64::<7>(x))
        )
    }};
}
// ror 19 ^ ror 61 ^ shr 6
macro_rules! small_sigma1_avx2 {
    ($x:expr) => {{
        let x = $x;
        xor!(
            xor!(
                xor!(_mm256_srli_epi64::<19>(x), _mm256_slli_epi64::<45>(x)),
                xor!(_mm256_srli_epi64::<61>(x), _mm256_slli_epi64::<3>(x))
            ),
            _mm256_srli_epi64::<6>(x)
        )
    }};
}
ymm_kernel!(
    "avx2",
    big_sigma_avx2,
    ch_avx2,
    maj_avx2,
    small_sigma0_avx2,
    small_sigma1_avx2
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha512::Sha512;
    use crate::testing::check_kernel;

    #[test]
    fn avx2_kernels_match_reference() {
        for k in Avx2::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha512>(&k);
        }
    }
}
