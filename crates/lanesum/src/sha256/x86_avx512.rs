//! AVX-512 SHA-256: 16 lanes per set (one u32 lane of a zmm per message), `S` sets
//! interleaved.
//!
//! Each block is loaded as one zmm per lane, byte-swapped with `vpshufb` and transposed
//! with unpack/`vshufi32x4` shuffles (no gathers) into W[0..16], one zmm per word. The
//! message schedule runs on the fly in a rolling 16-word window. The rounds are 16
//! unrolled steps: rounds 0..16 without schedule, 16..64 as a loop of three passes with
//! it, then the next block's load and transpose; about 6 KB of code per set. (Loading the
//! next block before rounds 48..64 overlapped its shuffles, ~3% on a Xeon, but the third
//! copy of the rounds put x2 at the edge of the instruction cache on Zen 5: it ran 3.3 or
//! 5.3 GB/s at 1 KiB depending on where unrelated code moved it; now 5.3-5.4 either way.)
//! Σ/σ are three `vprord` (or two and a shift) and one `vpternlogd`, Ch and Maj one
//! `vpternlogd` each.
//!
//! The kernel is bound by vector-port throughput, not latency: a round is 17 ops, the
//! schedule 11 more from round 16 on, about 26.5 per round with the transpose; with two
//! 512-bit ports that is ~850 cycles per 16 blocks, ~4.8 GB/s at 4.0 GHz. One set
//! measured 4.0-4.3 GB/s at 16 KiB; more sets only add spills (x2 3.8, x3 2.5, x4 3.6
//! GB/s) on an Intel Xeon, so there x1 is the kernel the scheduler uses. Zen 5's 2-cycle
//! vector latency leaves one set partly latency-bound, and x2 wins there (x1 4.8, x2
//! 5.9-6.7 GB/s at 16 KiB), so the scheduler prefers x2 on Zen 5.
#![allow(unsafe_code)]

use super::K;
use crate::isa::Avx512;
use crate::lanes::{lane_sets, Cursor, LaneKernel};
use crate::uarch::est;
use crate::x86_transpose::avx512::{
    bswap_u32 as bswap, enter_sets, leave_sets, switch_sets, transpose_u32 as transpose,
};
use core::arch::x86_64::*;

pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::switched::<Sets<1>>(t, "avx512x1", 16, est(4.2, 3.59, 4.76)),
        LaneKernel::switched::<Sets<2>>(t, "avx512x2", 32, est(3.8, 3.5, 6.2)),
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
    let zero = _mm512_setzero_si512();
    // SAFETY: (this and the other `_sets` calls) the caller checked that `state` holds 8
    // words of 16 S lanes, i.e. 64 x 8 S bytes; AVX-512F is on.
    let mut st: [[__m512i; S]; 8] = unsafe { enter_sets(state, cur) };
    // Each lane's next block to load.
    let mut ptrs = [[core::ptr::null::<u8>(); 16]; S];
    for (s, p) in ptrs.iter_mut().enumerate() {
        for (l, p) in p.iter_mut().enumerate() {
            *p = blocks[s * 16 + l].as_ptr();
        }
    }

    macro_rules! add {
        ($x:expr, $y:expr) => {
            _mm512_add_epi32($x, $y)
        };
    }
    // One round for every set; `$d` and `$h` are the words that change.
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
         $w:ident, $i:expr, $t:expr) => {
            let k = _mm512_set1_epi32(K[$t & 63] as i32);
            for s in 0..S {
                let e = $e[s];
                let a = $a[s];
                let s1 = _mm512_ternarylogic_epi32(
                    _mm512_ror_epi32(e, 6),
                    _mm512_ror_epi32(e, 11),
                    _mm512_ror_epi32(e, 25),
                    0x96,
                );
                let ch = _mm512_ternarylogic_epi32(e, $f[s], $g[s], 0xca);
                let s0 = _mm512_ternarylogic_epi32(
                    _mm512_ror_epi32(a, 2),
                    _mm512_ror_epi32(a, 13),
                    _mm512_ror_epi32(a, 22),
                    0x96,
                );
                let maj = _mm512_ternarylogic_epi32(a, $b[s], $c[s], 0xe8);
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
                let s0 = _mm512_ternarylogic_epi32(
                    _mm512_ror_epi32(x, 7),
                    _mm512_ror_epi32(x, 18),
                    _mm512_srli_epi32(x, 3),
                    0x96,
                );
                let s1 = _mm512_ternarylogic_epi32(
                    _mm512_ror_epi32(y, 17),
                    _mm512_ror_epi32(y, 19),
                    _mm512_srli_epi32(y, 10),
                    0x96,
                );
                $w[$i][s] = add!(add!($w[$i][s], $w[($i + 9) & 15][s]), add!(s0, s1));
            }
        };
    }
    macro_rules! rounds16 {
        ($w:ident, $t0:expr, $sched:tt, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
         $f:ident, $g:ident, $h:ident) => {
            rounds16!(@r $w, $t0, $sched, $a, $b, $c, $d, $e, $f, $g, $h, 0);
            rounds16!(@r $w, $t0, $sched, $h, $a, $b, $c, $d, $e, $f, $g, 1);
            rounds16!(@r $w, $t0, $sched, $g, $h, $a, $b, $c, $d, $e, $f, 2);
            rounds16!(@r $w, $t0, $sched, $f, $g, $h, $a, $b, $c, $d, $e, 3);
            rounds16!(@r $w, $t0, $sched, $e, $f, $g, $h, $a, $b, $c, $d, 4);
            rounds16!(@r $w, $t0, $sched, $d, $e, $f, $g, $h, $a, $b, $c, 5);
            rounds16!(@r $w, $t0, $sched, $c, $d, $e, $f, $g, $h, $a, $b, 6);
            rounds16!(@r $w, $t0, $sched, $b, $c, $d, $e, $f, $g, $h, $a, 7);
            rounds16!(@r $w, $t0, $sched, $a, $b, $c, $d, $e, $f, $g, $h, 8);
            rounds16!(@r $w, $t0, $sched, $h, $a, $b, $c, $d, $e, $f, $g, 9);
            rounds16!(@r $w, $t0, $sched, $g, $h, $a, $b, $c, $d, $e, $f, 10);
            rounds16!(@r $w, $t0, $sched, $f, $g, $h, $a, $b, $c, $d, $e, 11);
            rounds16!(@r $w, $t0, $sched, $e, $f, $g, $h, $a, $b, $c, $d, 12);
            rounds16!(@r $w, $t0, $sched, $d, $e, $f, $g, $h, $a, $b, $c, 13);
            rounds16!(@r $w, $t0, $sched, $c, $d, $e, $f, $g, $h, $a, $b, 14);
            rounds16!(@r $w, $t0, $sched, $b, $c, $d, $e, $f, $g, $h, $a, 15);
        };
        (@r $w:ident, $t0:expr, true, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
         $f:ident, $g:ident, $h:ident, $i:expr) => {
            sched!($w, $i);
            round!($a, $b, $c, $d, $e, $f, $g, $h, $w, $i, $t0 + $i);
        };
        (@r $w:ident, $t0:expr, false, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident,
         $f:ident, $g:ident, $h:ident, $i:expr) => {
            round!($a, $b, $c, $d, $e, $f, $g, $h, $w, $i, $t0 + $i);
        };
    }

    // Block `$blk` of every lane (after its data switches), byte-swapped and
    // transposed: W[0..16] for each set; the lanes move on to their next block.
    macro_rules! load {
        ($blk:expr) => {{
            while let Some((l, p)) = cur.next_data($blk) {
                ptrs[l / 16][l % 16] = p.as_ptr();
            }
            let mut w = [[zero; S]; 16];
            for (s, p) in ptrs.iter_mut().enumerate() {
                let mut r = [zero; 16];
                for (l, v) in r.iter_mut().enumerate() {
                    // SAFETY: every lane's block `$blk` lies in the slice it reads then
                    // (see the safety contract); the load is unaligned.
                    *v = bswap(unsafe { _mm512_loadu_si512(p[l].cast()) });
                    // A hint only: prefetching past the end of a slice cannot fault.
                    _mm_prefetch::<_MM_HINT_T0>(p[l].wrapping_add(PREFETCH).cast());
                    p[l] = p[l].wrapping_add(64);
                }
                for (i, v) in transpose(r).into_iter().enumerate() {
                    w[i][s] = v;
                }
            }
            w
        }};
    }

    if nblocks == 0 {
        return;
    }
    let mut next = load!(0);
    for blk in 0..nblocks {
        // SAFETY: as `enter_sets` above.
        unsafe { switch_sets(state, cur, blk, &mut st) };
        let mut w = next;
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        rounds16!(w, 0, false, a, b, c, d, e, f, g, h);
        for t0 in [16, 32, 48] {
            rounds16!(w, t0, true, a, b, c, d, e, f, g, h);
        }
        if blk + 1 < nblocks {
            next = load!(blk + 1);
        }
        for (sw, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
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
    use crate::sha256::Sha256;
    use crate::testing::{check_kernel, check_switched};

    #[test]
    fn avx512_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Sha256>(&k);
            check_switched::<Sha256>(&k);
        }
    }
}
