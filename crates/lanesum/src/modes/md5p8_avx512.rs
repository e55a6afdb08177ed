//! MD5P8's eight streams in one 256-bit AVX-512VL register set, straight from the input.
//!
//! A 512-byte round of MD5P8 input is an 8 x 16 matrix of little-endian words (stream
//! `l`'s block is bytes `64 l .. 64 l + 64`); two 8x8 transposes turn it into the 16
//! message-word vectors of the eight streams (lane `l` = stream `l`). So the streams are
//! hashed with no de-interleaving copy, no per-lane pointers and the state in registers
//! across the whole input. Each step is the 16-lane kernel's step on 8 lanes (`vpternlogd`
//! for the round function, `vprold` for the rotate), on 256-bit registers, which issue on
//! three ports rather than the two 512-bit ones use. The message words are
//! double-buffered: the next round is loaded and transposed before step `TRANSPOSE_AT`
//! of the current one, so its loads and shuffles overlap the dependent chain (measured
//! 4.6 -> 5.6 GB/s on a 32 MiB input). The chain itself (ternlog, add, rotate, add: 4
//! cycles a step) bounds the path: eight streams are all the parallelism MD5P8 has.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use crate::isa::Avx512;
use crate::md5::{md5_quads, word_index, K, S};

/// `vpternlogd` immediates with operands (b, c, d) = (0xf0, 0xcc, 0xaa).
const TL_F: i32 = 0xca; // d ^ (b & (c ^ d))
const TL_G: i32 = 0xe4; // (b & d) | (c & !d)
const TL_H: i32 = 0x96; // b ^ c ^ d
const TL_I: i32 = 0x39; // c ^ (b | !d)

/// The step before which the next round is transposed.
const TRANSPOSE_AT: usize = 8;

/// Rounds ahead of the current one that are prefetched (4 KiB; measured on a 256 MiB
/// input: none 4.4, 2 rounds 5.1, 4: 5.8, 8: 6.1, 16 or 32: 5.9 GB/s).
const PREFETCH_ROUNDS: usize = 8;

/// Compress every whole 512-byte round of `data` into the eight streams, on the CPU
/// whose AVX-512 `token` proves.
pub(crate) fn rounds(token: Avx512, states: &mut [[u32; 4]; 8], data: &[u8]) {
    let _ = token;
    // SAFETY: the token proves the CPU has AVX2 and AVX-512F/BW/VL.
    unsafe { rounds_avx512(states, data) }
}

/// [`rounds`] itself.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn rounds_avx512(states: &mut [[u32; 4]; 8], data: &[u8]) {
    let col = |w: usize| {
        _mm256_setr_epi32(
            states[0][w] as i32,
            states[1][w] as i32,
            states[2][w] as i32,
            states[3][w] as i32,
            states[4][w] as i32,
            states[5][w] as i32,
            states[6][w] as i32,
            states[7][w] as i32,
        )
    };
    let (mut a, mut b, mut c, mut d) = (col(0), col(1), col(2), col(3));
    let z = _mm256_setzero_si256();
    // Double-buffered message words: round k + 1 is transposed part-way through round k,
    // so its loads and shuffles overlap the dependent chain of steps.
    let mut msg = [[z; 16]; 2];
    let n = data.len() / 512;
    if n > 0 {
        // SAFETY: round 0 is 512 bytes; AVX2 is on.
        unsafe { transpose(&data[..512], &mut msg[0]) };
    }
    for k in 0..n {
        let cur = k & 1;
        // Message words from memory, one folded operand per use (see x86_avx512.rs).
        core::hint::black_box(&mut msg);
        let (aa, bb, cc, dd) = (a, b, c, d);
        // `t` enters a step holding `a + K[i] + M[i]`; the next step's sum is formed from
        // `d` (the next `a`) first, as in the 16-lane kernel.
        let mut t = opaque(_mm256_add_epi32(
            _mm256_add_epi32(a, _mm256_set1_epi32(K[0] as i32)),
            msg[cur][0],
        ));
        macro_rules! step {
            ($tl:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $s:expr) => {{
                if $i == TRANSPOSE_AT && k + 1 < n {
                    let (lo, hi) = msg.split_at_mut(1);
                    let other = if cur == 0 { &mut hi[0] } else { &mut lo[0] };
                    // SAFETY: each round is 512 bytes; AVX2 is on.
                    unsafe { transpose(&data[(k + 1) * 512..(k + 2) * 512], other) };
                    // Two rounds ahead: from memory the prefetchers alone fall behind.
                    for line in 0..8 {
                        _mm_prefetch::<_MM_HINT_T0>(
                            data.as_ptr()
                                .wrapping_add((k + PREFETCH_ROUNDS) * 512 + 64 * line)
                                .cast(),
                        );
                    }
                }
                if $i % 16 == 15 && $i < 63 {
                    core::hint::black_box(&mut msg);
                }
                let next = if $i < 63 {
                    let u = _mm256_add_epi32($d, _mm256_set1_epi32(K[($i + 1) % 64] as i32));
                    opaque(_mm256_add_epi32(
                        u,
                        msg[cur][const { word_index(($i + 1) % 64) }],
                    ))
                } else {
                    _mm256_setzero_si256()
                };
                let f = _mm256_ternarylogic_epi32::<{ $tl }>($b, $c, $d);
                let u = _mm256_add_epi32(t, f);
                $a = _mm256_add_epi32($b, _mm256_rol_epi32::<{ $s as i32 }>(u));
                t = next;
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
        md5_quads!(quad, TL_F, TL_G, TL_H, TL_I);
        let _ = t;
        a = _mm256_add_epi32(a, aa);
        b = _mm256_add_epi32(b, bb);
        c = _mm256_add_epi32(c, cc);
        d = _mm256_add_epi32(d, dd);
    }
    let mut out = [[0u32; 8]; 4];
    for (o, v) in out.iter_mut().zip([a, b, c, d]) {
        // SAFETY: `o` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), v) };
    }
    for (l, s) in states.iter_mut().enumerate() {
        *s = [out[0][l], out[1][l], out[2][l], out[3][l]];
    }
}

/// The 16 message-word vectors of one 512-byte round (lane `l` = stream `l`).
///
/// # Safety
/// `round` holds at least 512 bytes; the CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn transpose(round: &[u8], m: &mut [__m256i; 16]) {
    assert!(round.len() >= 512);
    let p = round.as_ptr();
    for h in 0..2 {
        // Row r: words 8h..8h+8 of stream r.
        // SAFETY: the round holds 512 bytes; row r half h is bytes 64r+32h..+32.
        let r: [__m256i; 8] =
            core::array::from_fn(|r| unsafe { _mm256_loadu_si256(p.add(64 * r + 32 * h).cast()) });
        let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
        let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
        let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
        let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
        // u[k] (u[4 + k]): word 8h+k of rows 0..4 (4..8) low, word 8h+4+k high.
        let u = [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
            _mm256_unpacklo_epi64(t4, t6),
            _mm256_unpackhi_epi64(t4, t6),
            _mm256_unpacklo_epi64(t5, t7),
            _mm256_unpackhi_epi64(t5, t7),
        ];
        for k in 0..4 {
            m[8 * h + k] = _mm256_permute2x128_si256::<0x20>(u[k], u[4 + k]);
            m[8 * h + 4 + k] = _mm256_permute2x128_si256::<0x31>(u[k], u[4 + k]);
        }
    }
}

/// Returns `x` unchanged, hidden from the optimiser, so LLVM keeps `K` off the chain.
/// (Not `x86_opaque::opaque_ymm`: with AVX-512VL enabled here the asm may also use
/// ymm16-31, which this kernel's register pressure needs.)
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn opaque(mut x: __m256i) -> __m256i {
    // SAFETY: the asm is empty: it reads and writes only the register holding `x`.
    unsafe {
        core::arch::asm!("/* {0} */", inout(ymm_reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}
