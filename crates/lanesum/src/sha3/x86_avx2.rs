//! AVX2 Keccak-f[1600]: four states side by side, one 64-bit lane of a ymm each.
//!
//! Each of the 25 state words of the four messages is one ymm; a round is the FIPS 202
//! steps on whole vectors (AVX2 has no 64-bit rotate, so each rotate is two shifts and
//! an OR; chi's `!b & c` is `vpandn`). Blocks are loaded four words of each lane at a time
//! and transposed (unpack, then 128-bit permutes), the odd words one by one. AVX-512
//! machines run `x86_avx512`'s eight lanes instead.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::lanes::{EngineSponge, KeccakLanes, LanesBody};
use super::portable::{by_rate, RC};
use crate::isa::Avx2;
use crate::lanes::LaneKernel;

/// The kernel, which `t` proves this CPU can run.
pub(crate) fn kernel(t: Avx2) -> KeccakLanes<4> {
    KeccakLanes::new::<Avx2x4>(t)
}

/// The same kernel for the lane engine's sponges of rate `RATE` bytes (see
/// `sha3::family`), which `t` proves this CPU can run.
pub(crate) fn lane_kernel<const RATE: usize>(t: Avx2) -> LaneKernel<u64> {
    // Four SHA3-256 lanes: 0.66-1.08 GB/s at 1-16 KiB, 3.3-4.9x the `sha3` crate's one
    // stream (Zen 3, `lanesum speed`); scaled to the rate, since a permutation costs the
    // same at every rate.
    let gbps = 1.0 * RATE as f32 / 136.0;
    LaneKernel::new::<EngineSponge<Avx2x4, 4, RATE>>(t, "avx2x4", 4, gbps)
}

/// Four lanes per call.
struct Avx2x4;

impl LanesBody<4> for Avx2x4 {
    type Token = Avx2;

    unsafe fn absorb(st: &mut [[u64; 4]; 25], blocks: &[&[u8]; 4], nblocks: usize, rate: usize) {
        // SAFETY: the caller holds an `Avx2` token and checked the shapes (the trait's
        // contract); each instance below reads `WORDS` words per block, `WORDS * 8 == rate`.
        unsafe { by_rate!(rate, absorb, (st, blocks, nblocks)) }
    }
}

/// Absorb `nblocks` blocks of `WORDS` words from each lane.
///
/// # Safety
/// The CPU has AVX2 and each `blocks[l]` holds at least `nblocks * WORDS * 8` bytes.
#[target_feature(enable = "avx2")]
unsafe fn absorb<const WORDS: usize>(st: &mut [[u64; 4]; 25], blocks: &[&[u8]; 4], nblocks: usize) {
    let mut a = load_state(st);
    let p = blocks.map(|b| b.as_ptr());
    for b in 0..nblocks {
        let base = b * WORDS * 8;
        let mut w = 0;
        while w + 4 <= WORDS {
            // SAFETY: words w..w+4 of block b lie within each lane's slice (the caller's
            // bound); unaligned loads.
            let [r0, r1, r2, r3] =
                unsafe { p.map(|q| _mm256_loadu_si256(q.add(base + w * 8).cast::<__m256i>())) };
            // Rows are lanes, columns words: transpose to one vector per word.
            let t0 = _mm256_unpacklo_epi64(r0, r1);
            let t1 = _mm256_unpackhi_epi64(r0, r1);
            let t2 = _mm256_unpacklo_epi64(r2, r3);
            let t3 = _mm256_unpackhi_epi64(r2, r3);
            let words = [
                _mm256_permute2x128_si256::<0x20>(t0, t2),
                _mm256_permute2x128_si256::<0x20>(t1, t3),
                _mm256_permute2x128_si256::<0x31>(t0, t2),
                _mm256_permute2x128_si256::<0x31>(t1, t3),
            ];
            for (k, v) in words.into_iter().enumerate() {
                a[w + k] = _mm256_xor_si256(a[w + k], v);
            }
            w += 4;
        }
        while w < WORDS {
            a[w] = _mm256_xor_si256(a[w], word(blocks, base + w * 8));
            w += 1;
        }
        permute(&mut a);
    }
    store_state(st, &a);
}

/// The little-endian word at byte `at` of each lane.
#[target_feature(enable = "avx2")]
#[inline]
fn word(blocks: &[&[u8]; 4], at: usize) -> __m256i {
    let w = |l: usize| {
        let bytes: [u8; 8] = blocks[l][at..at + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(bytes) as i64
    };
    _mm256_set_epi64x(w(3), w(2), w(1), w(0))
}

#[target_feature(enable = "avx2")]
#[inline]
fn load_state(st: &[[u64; 4]; 25]) -> [__m256i; 25] {
    // SAFETY: each `st[w]` is 32 readable bytes; unaligned loads.
    core::array::from_fn(|w| unsafe { _mm256_loadu_si256(st[w].as_ptr().cast()) })
}

#[target_feature(enable = "avx2")]
#[inline]
fn store_state(st: &mut [[u64; 4]; 25], a: &[__m256i; 25]) {
    for (s, v) in st.iter_mut().zip(a) {
        // SAFETY: each `st[w]` is 32 writable bytes; unaligned stores.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), *v) };
    }
}

/// `x` rotated left by `L` bits (`R = 64 - L`).
#[target_feature(enable = "avx2")]
#[inline]
fn rol<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
}

/// Keccak-f[1600] on four states.
#[target_feature(enable = "avx2")]
#[inline]
fn permute(a: &mut [__m256i; 25]) {
    for rc in RC {
        // theta
        let c: [__m256i; 5] = core::array::from_fn(|x| {
            let t = _mm256_xor_si256(a[x], a[x + 5]);
            let t = _mm256_xor_si256(t, a[x + 10]);
            let t = _mm256_xor_si256(t, a[x + 15]);
            _mm256_xor_si256(t, a[x + 20])
        });
        let d: [__m256i; 5] = core::array::from_fn(|x| {
            _mm256_xor_si256(c[(x + 4) % 5], rol::<1, 63>(c[(x + 1) % 5]))
        });
        // rho and pi (theta's XOR of d folded in): b[pi(i)] = rot(a[i] ^ d[x], rho(i))
        let mut b = [_mm256_setzero_si256(); 25];
        b[0] = rol::<0, 64>(_mm256_xor_si256(a[0], d[0]));
        b[10] = rol::<1, 63>(_mm256_xor_si256(a[1], d[1]));
        b[20] = rol::<62, 2>(_mm256_xor_si256(a[2], d[2]));
        b[5] = rol::<28, 36>(_mm256_xor_si256(a[3], d[3]));
        b[15] = rol::<27, 37>(_mm256_xor_si256(a[4], d[4]));
        b[16] = rol::<36, 28>(_mm256_xor_si256(a[5], d[0]));
        b[1] = rol::<44, 20>(_mm256_xor_si256(a[6], d[1]));
        b[11] = rol::<6, 58>(_mm256_xor_si256(a[7], d[2]));
        b[21] = rol::<55, 9>(_mm256_xor_si256(a[8], d[3]));
        b[6] = rol::<20, 44>(_mm256_xor_si256(a[9], d[4]));
        b[7] = rol::<3, 61>(_mm256_xor_si256(a[10], d[0]));
        b[17] = rol::<10, 54>(_mm256_xor_si256(a[11], d[1]));
        b[2] = rol::<43, 21>(_mm256_xor_si256(a[12], d[2]));
        b[12] = rol::<25, 39>(_mm256_xor_si256(a[13], d[3]));
        b[22] = rol::<39, 25>(_mm256_xor_si256(a[14], d[4]));
        b[23] = rol::<41, 23>(_mm256_xor_si256(a[15], d[0]));
        b[8] = rol::<45, 19>(_mm256_xor_si256(a[16], d[1]));
        b[18] = rol::<15, 49>(_mm256_xor_si256(a[17], d[2]));
        b[3] = rol::<21, 43>(_mm256_xor_si256(a[18], d[3]));
        b[13] = rol::<8, 56>(_mm256_xor_si256(a[19], d[4]));
        b[14] = rol::<18, 46>(_mm256_xor_si256(a[20], d[0]));
        b[24] = rol::<2, 62>(_mm256_xor_si256(a[21], d[1]));
        b[9] = rol::<61, 3>(_mm256_xor_si256(a[22], d[2]));
        b[19] = rol::<56, 8>(_mm256_xor_si256(a[23], d[3]));
        b[4] = rol::<14, 50>(_mm256_xor_si256(a[24], d[4]));
        // chi
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = _mm256_xor_si256(
                    b[x + 5 * y],
                    _mm256_andnot_si256(b[(x + 1) % 5 + 5 * y], b[(x + 2) % 5 + 5 * y]),
                );
            }
        }
        // iota
        a[0] = _mm256_xor_si256(a[0], _mm256_set1_epi64x(rc as i64));
    }
}
