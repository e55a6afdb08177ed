//! MD5 (RFC 1321): state, family description and the scalar reference compression.

use crate::family::Family;
use crate::isa::Features;
use crate::lanes::LaneKernel;
use crate::uarch::est;

/// Expands MD5's 64 steps as 16 invocations `$quad!(round_function, round, first_step)`,
/// the round functions given in order F, G, H, I. Every implementation (scalar, each SIMD
/// width, MD5P8) supplies its own `quad!` and shares this schedule.
macro_rules! md5_quads {
    ($quad:ident, $f:tt, $g:tt, $h:tt, $i:tt) => {
        $quad!($f, 0, 0);
        $quad!($f, 0, 4);
        $quad!($f, 0, 8);
        $quad!($f, 0, 12);
        $quad!($g, 1, 16);
        $quad!($g, 1, 20);
        $quad!($g, 1, 24);
        $quad!($g, 1, 28);
        $quad!($h, 2, 32);
        $quad!($h, 2, 36);
        $quad!($h, 2, 40);
        $quad!($h, 2, 44);
        $quad!($i, 3, 48);
        $quad!($i, 3, 52);
        $quad!($i, 3, 56);
        $quad!($i, 3, 60);
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use md5_quads;

/// One quad of the scalar code (the reference and the interleaved streams): four
/// `$step!(round function, a, b, c, d, step, shift)` with the roles of a, b, c, d
/// rotating, so that constant indices fold every message word and constant into an
/// immediate operand.
macro_rules! md5_scalar_quad {
    ($step:ident, $a:ident, $b:ident, $c:ident, $d:ident, $f:expr, $r:expr, $i:expr) => {
        $step!($f, $a, $b, $c, $d, $i, S[$r][0]);
        $step!($f, $d, $a, $b, $c, $i + 1, S[$r][1]);
        $step!($f, $c, $d, $a, $b, $i + 2, S[$r][2]);
        $step!($f, $b, $c, $d, $a, $i + 3, S[$r][3]);
    };
}

mod scalar;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;
#[cfg(target_arch = "x86_64")]
mod x86_avx512vl;

/// MD5's initial chaining value.
pub(crate) const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// The 64 additive constants, `floor(abs(sin(i + 1)) * 2^32)`.
pub(crate) const K: [u32; 64] = [
    0xd76a_a478,
    0xe8c7_b756,
    0x2420_70db,
    0xc1bd_ceee,
    0xf57c_0faf,
    0x4787_c62a,
    0xa830_4613,
    0xfd46_9501,
    0x6980_98d8,
    0x8b44_f7af,
    0xffff_5bb1,
    0x895c_d7be,
    0x6b90_1122,
    0xfd98_7193,
    0xa679_438e,
    0x49b4_0821,
    0xf61e_2562,
    0xc040_b340,
    0x265e_5a51,
    0xe9b6_c7aa,
    0xd62f_105d,
    0x0244_1453,
    0xd8a1_e681,
    0xe7d3_fbc8,
    0x21e1_cde6,
    0xc337_07d6,
    0xf4d5_0d87,
    0x455a_14ed,
    0xa9e3_e905,
    0xfcef_a3f8,
    0x676f_02d9,
    0x8d2a_4c8a,
    0xfffa_3942,
    0x8771_f681,
    0x6d9d_6122,
    0xfde5_380c,
    0xa4be_ea44,
    0x4bde_cfa9,
    0xf6bb_4b60,
    0xbebf_bc70,
    0x289b_7ec6,
    0xeaa1_27fa,
    0xd4ef_3085,
    0x0488_1d05,
    0xd9d4_d039,
    0xe6db_99e5,
    0x1fa2_7cf8,
    0xc4ac_5665,
    0xf429_2244,
    0x432a_ff97,
    0xab94_23a7,
    0xfc93_a039,
    0x655b_59c3,
    0x8f0c_cc92,
    0xffef_f47d,
    0x8584_5dd1,
    0x6fa8_7e4f,
    0xfe2c_e6e0,
    0xa301_4314,
    0x4e08_11a1,
    0xf753_7e82,
    0xbd3a_f235,
    0x2ad7_d2bb,
    0xeb86_d391,
];

/// Per-round rotation amounts: round r, step i uses `S[r][i % 4]`.
pub(crate) const S: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// Message word index of step `i`.
pub(crate) const fn word_index(i: usize) -> usize {
    match i / 16 {
        0 => i,
        1 => (5 * i + 1) % 16,
        2 => (3 * i + 5) % 16,
        _ => (7 * i) % 16,
    }
}

pub(crate) struct Md5;

impl Family for Md5 {
    type Word = u32;
    type State = [u32; 4];
    const WORDS: usize = 4;
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const BIG_ENDIAN: bool = false;

    fn compress_portable(state: &mut [u32; 4], blocks: &[u8]) {
        compress_portable(state, blocks)
    }

    fn portable_gbps() -> f32 {
        est(0.8, 0.8, 0.9)
    }

    fn lane_kernels(level: Features) -> Vec<LaneKernel<u32>> {
        #[allow(unused_mut)]
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = level.avx2() {
                v.extend(x86_avx2::kernels(t));
            }
            if let Some(t) = level.avx512() {
                v.extend(x86_avx512::kernels(t));
                v.extend(x86_avx512vl::kernels(t));
            }
        }
        let _ = level;
        v
    }

    fn few_stream_kernels() -> Vec<LaneKernel<u32>> {
        scalar::kernels()
    }
}

/// The scalar reference: whole 64-byte blocks.
///
/// Each step keeps the critical path short: the message word, constant and the part of the
/// round function that does not depend on `b` are summed before `b` is ready.
pub(crate) fn compress_portable(state: &mut [u32; 4], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % 64, 0);
    let [mut a, mut b, mut c, mut d] = *state;
    for block in blocks.chunks_exact(64) {
        let mut m = [0u32; 16];
        for (w, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
            *w = u32::from_le_bytes(bytes.try_into().unwrap());
        }
        let (aa, bb, cc, dd) = (a, b, c, d);

        macro_rules! step {
            ($f:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $s:expr) => {
                // `a + M[g] + K[i]` does not depend on the previous step: sum it first and
                // hide it from LLVM's reassociation, which would otherwise add the constant
                // after the round function and lengthen the serial chain by one add.
                let early = opaque($a.wrapping_add(m[word_index($i)]).wrapping_add(K[$i]));
                $a = $b.wrapping_add(early.wrapping_add($f($b, $c, $d)).rotate_left($s));
            };
        }
        macro_rules! quad {
            ($f:expr, $r:expr, $i:expr) => {
                md5_scalar_quad!(step, a, b, c, d, $f, $r, $i)
            };
        }
        md5_quads!(quad, round_f, round_g, round_h, round_i);

        a = a.wrapping_add(aa);
        b = b.wrapping_add(bb);
        c = c.wrapping_add(cc);
        d = d.wrapping_add(dd);
    }
    *state = [a, b, c, d];
}

/// The round functions F, G, H and I in the forms the scalar code uses (G as a sum: its
/// two terms never share a bit).
pub(crate) fn round_f(b: u32, c: u32, d: u32) -> u32 {
    d ^ (b & (c ^ d))
}
pub(crate) fn round_g(b: u32, c: u32, d: u32) -> u32 {
    (c & !d).wrapping_add(b & d)
}
pub(crate) fn round_h(b: u32, c: u32, d: u32) -> u32 {
    b ^ c ^ d
}
pub(crate) fn round_i(b: u32, c: u32, d: u32) -> u32 {
    c ^ (b | !d)
}

/// Returns `x` unchanged, but the optimiser can no longer see how it was computed.
#[allow(unsafe_code)]
#[inline(always)]
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(unused_mut))]
fn opaque(mut x: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: an empty asm block that only names `x` in a register: no memory, stack or
    // flags effects.
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}
