//! AVX-512 MD5: 16 lanes per zmm set, `N` independent sets interleaved per call.
//!
//! Layout: set `s` owns lanes `16 s .. 16 s + 16`; state word `w` of the set is one zmm
//! loaded from `state[w * lanes + 16 s ..]`. Each block, every set's 16 lane buffers are
//! transposed in-kernel into 16 message-word vectors (256-bit loads merged with
//! `vinserti64x4`, then `vpunpck{l,h}{dq,qdq}` and `vshufi32x4`: 64 uops per 16 lanes,
//! no gathers) kept in a stack buffer that the rounds read as memory operands. The
//! buffer is doubled: set `j`'s next block is loaded and transposed part-way through the
//! current block's rounds, so its cache misses overlap with arithmetic (worth ~8% when
//! the lanes are 4 KiB apart and all share one L1 set).
//!
//! One step is `a = b + rol(a + K + M + f(b, c, d), s)`: `f` is one `vpternlogd`, the
//! rotate one `vprold`; 6 uops per set and step. On an Intel Xeon (measured) 512-bit
//! adds, ternlogs and rotates have 1-cycle latency but only two ports (rotates port 0
//! only, shuffles port 5 only), so the dependent chain is 4 cycles per step while a set's
//! uops take 3: one set is nearly port-bound already and two saturate the ports. Per 16
//! lane-blocks the kernel needs ~452 ALU uops (384 round, 64 transpose, 4 feed-forward),
//! i.e. ~226 cycles or ~16.8 GB/s at 3.7 GHz; x2 reaches ~15.5 raw. On Zen 5 the same
//! ops have 2-cycle latency (8 cycles per step), so one set is latency-bound at ~7 GB/s
//! and it takes four to fill the ports: x1 7.3, x2 13.6, x4 17.8 GB/s there.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::{word_index, K, S};
use crate::isa::Avx512;
use crate::lanes::{lane_sets, Cursor, LaneKernel};
use crate::uarch::est;
use crate::x86_opaque::opaque_zmm as opaque;
use crate::x86_transpose::avx512::{enter_sets, leave_sets, load_transpose_u32, switch_sets};

/// Bytes ahead of the current block that each lane prefetches: with 64+ streams from
/// L3 or memory the hardware prefetchers fall behind.
const PREFETCH: usize = 256;

/// `vpternlogd` immediates with operands (b, c, d) = (0xf0, 0xcc, 0xaa).
pub(super) const TL_F: i32 = 0xca; // d ^ (b & (c ^ d))
pub(super) const TL_G: i32 = 0xe4; // (b & d) | (c & !d)
pub(super) const TL_H: i32 = 0x96; // b ^ c ^ d
pub(super) const TL_I: i32 = 0x39; // c ^ (b | !d)

/// The set counts kept, with `est_gbps` from the raw kernel speed test (16 KiB lanes,
/// one core, best of several runs). On the Xeon, before double-buffering: x1 13.4-14.1,
/// x2 14.5-16.0, x3 14.0-15.1, x4 14.0-15.1, x5 13.9-14.8, x6 13.8-14.7 GB/s; after: x1
/// 13.9-15.0, x2 14.8-15.9, x4 14.3-15.5 (the lower ends from ~1 ms samples). Two sets
/// already fill its ports (see above). On Zen 5 (2-cycle latency) more sets win: x4 is the
/// fastest, and x3 serves 33-48 messages (48 x 16 KiB: x3 16.5, x4 14.3 GB/s; 33-47 of
/// them ran 0.73-0.78 of 32 before it, since x2's balanced tail costs a call per lane).
/// x5 and x6 never won and were dropped. x4's rate is what `lanesum speed` measures for
/// its path (64 x 16 KiB, 21.3-21.6 GB/s): with 49-63 messages, x4 with idle lanes then
/// rates above x3 with a balanced tail, as it runs (49: 17.5 against 15.9 GB/s). Zen 4
/// (512-bit ops in two halves) also gains up to x4: 7.8, 11.4, 12.9, 13.9 GB/s.
pub(crate) fn kernels(t: Avx512) -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::switched::<Sets<1>>(t, "avx512x1", 16, est(14.0, 7.75, 7.3)),
        LaneKernel::switched::<Sets<2>>(t, "avx512x2", 32, est(15.0, 11.38, 13.6)),
        LaneKernel::switched::<Sets<3>>(t, "avx512x3", 48, est(14.5, 12.86, 16.0)),
        LaneKernel::switched::<Sets<4>>(t, "avx512x4", 64, est(14.5, 13.94, 21.0)),
    ]
}

lane_sets!(Switching, u32, Avx512, 4, 16, 64, compress);

/// Compress `nblocks` blocks in each of `16 N` lanes, switching lanes as `cur` says.
///
/// # Safety
/// `state.len() == 64 N`, `blocks.len() == 16 N`; every lane's slice, and every data
/// switch's, holds 64 bytes per block up to the lane's next data switch or `nblocks`;
/// the CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn compress<const N: usize>(
    state: &mut [u32],
    blocks: &[&[u8]],
    nblocks: usize,
    cur: &mut Cursor<'_, '_, u32>,
) {
    let z = _mm512_setzero_si512();
    // SAFETY: (this and the other `_sets` calls) the caller checked that `state` holds 4
    // words of 16 N lanes, i.e. 64 x 4 N bytes; AVX-512F is on.
    let [mut a, mut b, mut c, mut d] = unsafe { enter_sets::<u32, N, 4>(state, cur) };
    // Lane `l` of set `j` finds its block `b` at `ptrs[j][l] + 64 b` (a data switch at
    // block `at` rebases it to `ptr - 64 at`; wrapping, since that may lie outside).
    let mut ptrs = [[core::ptr::null::<u8>(); 16]; N];
    for (j, set) in ptrs.iter_mut().enumerate() {
        for (l, p) in set.iter_mut().enumerate() {
            *p = blocks[16 * j + l].as_ptr();
        }
    }
    while let Some((l, p)) = cur.next_data(0) {
        ptrs[l / 16][l % 16] = p.as_ptr();
    }
    // Message words of the current block in `msg[blk & 1]`; the next block's are
    // transposed into the other half during the rounds (see `step!`).
    let mut msg = [[[z; 16]; N]; 2];
    // The block being compressed (declared before the macros that read it).
    let mut blk = 0usize;
    macro_rules! load_set {
        ($j:expr, $blk:expr) => {{
            let mut p = ptrs[$j];
            for q in p.iter_mut() {
                // Block `$blk` of every lane (`$blk < nblocks`) lies inside the slice
                // the lane reads then (see the safety contract).
                *q = q.wrapping_add(64 * $blk);
                // A prefetch is only a hint: past the end of a slice it does nothing.
                _mm_prefetch::<_MM_HINT_T1>(q.wrapping_add(PREFETCH).cast());
            }
            let m = &mut msg[$blk & 1][$j];
            // SAFETY: each `p[l]` is readable for this block's 64 bytes; AVX-512F is on.
            unsafe { load_transpose_u32(&p, 0, |w, v| m[w] = v) };
        }};
    }

    // `t[j]` enters a step holding `a + K[i] + M[i]`. The step first forms the next
    // step's sum from `d` (the next `a`), so `d` is dead before the ternlog and the
    // ternlog overwrites it in place instead of needing a register copy.
    let mut t = [z; N];
    macro_rules! step {
        ($tl:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $s:expr) => {{
            // Set j's next block is loaded and transposed before step 4 + 64 j / N:
            // spread over the rounds, its lines (L1 misses when the lanes are 4 KiB
            // apart and share a set) arrive while this block's rounds keep the ALUs busy.
            for j in 0..N {
                if $i == 4 * ((16 * j) / N) + 4 && blk + 1 < nblocks {
                    load_set!(j, blk + 1);
                }
            }
            if $i % 16 == 15 && $i < 63 {
                // Keep the message words in memory, re-read each round: else LLVM loads
                // each word once per block and the register allocator shuffles the 16 N
                // live values between spill slots (a load and a store per use). From
                // memory every use is one folded `vpaddd zmm, zmm, [rsp + ..]`.
                core::hint::black_box(&mut msg);
            }
            for j in 0..N {
                let next = if $i < 63 {
                    let u = _mm512_add_epi32($d[j], _mm512_set1_epi32(K[($i + 1) % 64] as i32));
                    opaque(_mm512_add_epi32(
                        u,
                        msg[blk & 1][j][const { word_index(($i + 1) % 64) }],
                    ))
                } else {
                    z
                };
                let f = _mm512_ternarylogic_epi32::<{ $tl }>($b[j], $c[j], $d[j]);
                let u = _mm512_add_epi32(t[j], f);
                $a[j] = _mm512_add_epi32($b[j], _mm512_rol_epi32::<{ $s as i32 }>(u));
                t[j] = next;
            }
        }};
    }
    macro_rules! quad {
        ($tl:expr, $r:expr, $i:expr) => {
            step!($tl, a, b, c, d, $i, S[$r][0]);
            step!($tl, d, a, b, c, $i + 1, S[$r][1]);
            step!($tl, c, d, a, b, $i + 2, S[$r][2]);
            step!($tl, b, c, d, a, $i + 3, S[$r][3]);
        };
    }

    if nblocks > 0 {
        for j in 0..N {
            load_set!(j, 0);
        }
    }
    while blk < nblocks {
        if cur.state_at() == blk {
            let mut st = [a, b, c, d];
            // SAFETY: as `enter_sets` above.
            unsafe { switch_sets(state, cur, blk, &mut st) };
            [a, b, c, d] = st;
        }
        // Block `blk + 1` is loaded during this block's rounds.
        while let Some((l, p)) = cur.next_data(blk + 1) {
            ptrs[l / 16][l % 16] = p.as_ptr().wrapping_sub(64 * (blk + 1));
        }
        core::hint::black_box(&mut msg);
        for j in 0..N {
            let u = _mm512_add_epi32(a[j], _mm512_set1_epi32(K[0] as i32));
            t[j] = opaque(_mm512_add_epi32(u, msg[blk & 1][j][0]));
        }
        let (aa, bb, cc, dd) = (a, b, c, d);
        md5_quads!(quad, TL_F, TL_G, TL_H, TL_I);
        for j in 0..N {
            a[j] = _mm512_add_epi32(a[j], aa[j]);
            b[j] = _mm512_add_epi32(b[j], bb[j]);
            c[j] = _mm512_add_epi32(c[j], cc[j]);
            d[j] = _mm512_add_epi32(d[j], dd[j]);
        }
        blk += 1;
    }
    // SAFETY: as `enter_sets` above.
    unsafe { leave_sets(state, cur, nblocks, &[a, b, c, d]) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::md5::Md5;
    use crate::testing::{check_kernel, check_switched};

    #[test]
    fn avx512_kernels_match_reference() {
        for k in Avx512::detect().map(kernels).unwrap_or_default() {
            check_kernel::<Md5>(&k);
            check_switched::<Md5>(&k);
        }
    }
}

#[cfg(test)]
mod speed {
    /// Raw GB/s of every MD5 lane kernel (AVX2 and scalar too), no scheduler, lanes 64
    /// bytes apart mod 4 KiB: `cargo test -p lanesum --release --lib md5_kernel_speed --
    /// --ignored --nocapture` (`MD5_SPEED_BLOCKS`, default 256 = 16 KiB per lane).
    #[test]
    #[ignore]
    fn md5_kernel_speed() {
        fn cpu() -> f64 {
            #[repr(C)]
            struct Timespec(i64, i64);
            extern "C" {
                fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
            }
            let mut ts = Timespec(0, 0);
            // SAFETY: clock_gettime(CLOCK_THREAD_CPUTIME_ID) writes one timespec.
            assert_eq!(unsafe { clock_gettime(3, &mut ts) }, 0);
            ts.0 as f64 + ts.1 as f64 * 1e-9
        }
        let nb: usize = std::env::var("MD5_SPEED_BLOCKS").map_or(256, |v| v.parse().unwrap());
        // MD5_SPEED_PAD: bytes between lanes (default 64; 0 puts every lane in one L1 set).
        let pad: usize = std::env::var("MD5_SPEED_PAD").map_or(64, |v| v.parse().unwrap());
        let data: Vec<u8> = (0..64 * (nb * 64 + pad) + 64)
            .map(|i| (i * 7) as u8)
            .collect();
        use crate::family::Family;
        let level = crate::isa::Features::detect();
        let few = crate::md5::Md5::few_stream_kernels();
        for k in crate::md5::Md5::lane_kernels(level).into_iter().chain(few) {
            let bufs: Vec<&[u8]> = (0..k.lanes)
                .map(|l| &data[l * (nb * 64 + pad)..][..nb * 64])
                .collect();
            let mut st = vec![0u32; 4 * k.lanes];
            let mut best = f64::MAX;
            // Samples of ~1 ms or more: a best-of over tiny samples catches clock glitches.
            let reps = (16384 / nb).max(4);
            for _ in 0..10 {
                let t = cpu();
                for _ in 0..reps {
                    k.compress(&mut st, 4, 64, &bufs, nb);
                }
                best = best.min(cpu() - t);
            }
            let bytes = (reps * k.lanes * nb * 64) as f64;
            println!("{:>10} {:6.2} GB/s", k.name, bytes / best / 1e9);
        }
    }
}
