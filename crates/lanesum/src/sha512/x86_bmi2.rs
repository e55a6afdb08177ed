//! Single-stream SHA-512 compression: scalar rounds with BMI2 `rorx`, message schedule in
//! vector registers (AVX-512VL `vprorq`/`vpternlogq` on ymm, or plain AVX2 shifts).
//!
//! Layout: blocks go in pairs. One ymm holds two schedule words of each block of the pair
//! (low 128 bits: block 0, high: block 1), so `vpalignr` (per 128-bit lane) yields the
//! W[t-15] and W[t-7] windows without cross-lane shuffles. Each schedule step adds K and
//! stores W+K for both blocks into a 160-word stack buffer; the scalar rounds of the first
//! block run interleaved with the schedule (two rounds per step, 16 words behind), the
//! second block's 80 rounds then only load W+K from the buffer. An odd last block is paired
//! with itself and only its first half is used.
//!
//! The rounds are inline asm, eight per block with the state registers renamed instead of
//! moved (see `rounds8!`). Measured (16 KiB / 1 MiB, GB/s per core, one process minute):
//! this path 0.87-0.89 / 0.85-0.93 with the AVX-512VL schedule, 0.76-0.82 / 0.77-0.84
//! with the AVX2 one; sha2 crate 0.66-0.72; `openssl dgst -sha512` 0.81-0.84 / 0.85-0.86.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{Sha512, K};
use crate::family::SingleBody;
use crate::isa::{Avx512, Bmi2};

/// K laid out as the schedule ymm registers: `[K[2s], K[2s+1], K[2s], K[2s+1]]` for step s.
#[repr(C, align(32))]
struct Aligned160([u64; 160]);

static K2: Aligned160 = {
    let mut k = [0u64; 160];
    let mut s = 0;
    while s < 40 {
        k[4 * s] = K[2 * s];
        k[4 * s + 1] = K[2 * s + 1];
        k[4 * s + 2] = K[2 * s];
        k[4 * s + 3] = K[2 * s + 1];
        s += 1;
    }
    Aligned160(k)
};

/// W+K for a pair of blocks, in the `K2` layout.
#[repr(C, align(32))]
struct Wk([u64; 160]);

/// The rounds with the AVX-512VL schedule.
pub(crate) struct RorxVl;

impl SingleBody<Sha512> for RorxVl {
    type Token = (Bmi2, Avx512);

    unsafe fn compress(state: &mut [u64; 8], blocks: &[u8]) {
        // SAFETY: the caller holds the tokens (the trait's contract): the CPU has BMI2,
        // AVX2 and AVX-512F/BW/VL.
        unsafe { compress_avx512vl(state, blocks) }
    }
}

/// The rounds with the AVX2 schedule.
pub(crate) struct RorxAvx2;

impl SingleBody<Sha512> for RorxAvx2 {
    type Token = Bmi2;

    unsafe fn compress(state: &mut [u64; 8], blocks: &[u8]) {
        // SAFETY: the caller holds a `Bmi2` token (the trait's contract): the CPU has
        // BMI2 and AVX2.
        unsafe { compress_avx2(state, blocks) }
    }
}

/// σ0 on two words per lane: ror 1 ^ ror 8 ^ shr 7.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn ssig0_vl(x: __m256i) -> __m256i {
    _mm256_ternarylogic_epi64::<0x96>(
        _mm256_ror_epi64::<1>(x),
        _mm256_ror_epi64::<8>(x),
        _mm256_srli_epi64::<7>(x),
    )
}

/// σ1: ror 19 ^ ror 61 ^ shr 6.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn ssig1_vl(x: __m256i) -> __m256i {
    _mm256_ternarylogic_epi64::<0x96>(
        _mm256_ror_epi64::<19>(x),
        _mm256_ror_epi64::<61>(x),
        _mm256_srli_epi64::<6>(x),
    )
}

/// σ0 with AVX2 shifts: (x>>1 ^ x>>8 ^ x>>7) ^ (x<<63 ^ x<<56).
#[target_feature(enable = "avx2")]
fn ssig0_avx2(x: __m256i) -> __m256i {
    let r = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_srli_epi64::<1>(x), _mm256_srli_epi64::<8>(x)),
        _mm256_srli_epi64::<7>(x),
    );
    let l = _mm256_xor_si256(_mm256_slli_epi64::<63>(x), _mm256_slli_epi64::<56>(x));
    _mm256_xor_si256(r, l)
}

/// σ1 with AVX2 shifts: (x>>19 ^ x>>61 ^ x>>6) ^ (x<<45 ^ x<<3).
#[target_feature(enable = "avx2")]
fn ssig1_avx2(x: __m256i) -> __m256i {
    let r = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_srli_epi64::<19>(x), _mm256_srli_epi64::<61>(x)),
        _mm256_srli_epi64::<6>(x),
    );
    let l = _mm256_xor_si256(_mm256_slli_epi64::<45>(x), _mm256_slli_epi64::<3>(x));
    _mm256_xor_si256(r, l)
}

/// Eight rounds t0..t0+8 of block `lane` (0 or 1) from the W+K buffer.
///
/// Hand-scheduled so both dependency chains are 4 operations per round:
/// `e' = ((d + h + wk) + Ch) + Σ1(e)` and
/// `a' = e' + (b&c - d) + (a & (b^c)) + Σ0(a)` (Maj split into disjoint parts, with
/// `b^c` and `b&c` carried from the previous round as `a^b`, `a&b`).
/// LLVM reassociates the plain Rust form into a 5-cycle chain per round, hence the asm.
macro_rules! rounds8 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
     $bc:ident, $x:ident, $wk:expr, $lane:expr, $t0:expr) => {{
        let wk: &[u64; 160] = $wk;
        let i: usize = 2 * $t0 + 2 * $lane;
        assert!(i + 14 <= 160);
        // SAFETY: reads the 8 words wk[i + {0,1,4,5,8,9,12,13}], in bounds by the assert;
        // rbx is saved and restored on the stack; rorx needs BMI2, which the enclosing
        // target_feature function has.
        unsafe {
            core::arch::asm!(
            "push rbx",
            "add r15, qword ptr [rdi + 0]",
            "rorx rax, r12, 14",
            "rorx rcx, r12, 18",
            "mov rbx, r13",
            "xor rbx, r14",
            "sub rdx, r11",
            "xor rax, rcx",
            "rorx rcx, r12, 41",
            "and rbx, r12",
            "add r11, r15",
            "xor rax, rcx",
            "xor rbx, r14",
            "add r11, rbx",
            "add r11, rax",
            "lea r15, [rdx + r11]",
            "rorx rax, r8, 28",
            "rorx rcx, r8, 34",
            "and rsi, r8",
            "xor rax, rcx",
            "rorx rcx, r8, 39",
            "add r15, rsi",
            "xor rax, rcx",
            "mov rsi, r8",
            "xor rsi, r9",
            "mov rdx, r8",
            "and rdx, r9",
            "add r15, rax",
            "add r14, qword ptr [rdi + 8]",
            "rorx rax, r11, 14",
            "rorx rcx, r11, 18",
            "mov rbx, r12",
            "xor rbx, r13",
            "sub rdx, r10",
            "xor rax, rcx",
            "rorx rcx, r11, 41",
            "and rbx, r11",
            "add r10, r14",
            "xor rax, rcx",
            "xor rbx, r13",
            "add r10, rbx",
            "add r10, rax",
            "lea r14, [rdx + r10]",
            "rorx rax, r15, 28",
            "rorx rcx, r15, 34",
            "and rsi, r15",
            "xor rax, rcx",
            "rorx rcx, r15, 39",
            "add r14, rsi",
            "xor rax, rcx",
            "mov rsi, r15",
            "xor rsi, r8",
            "mov rdx, r15",
            "and rdx, r8",
            "add r14, rax",
            "add r13, qword ptr [rdi + 32]",
            "rorx rax, r10, 14",
            "rorx rcx, r10, 18",
            "mov rbx, r11",
            "xor rbx, r12",
            "sub rdx, r9",
            "xor rax, rcx",
            "rorx rcx, r10, 41",
            "and rbx, r10",
            "add r9, r13",
            "xor rax, rcx",
            "xor rbx, r12",
            "add r9, rbx",
            "add r9, rax",
            "lea r13, [rdx + r9]",
            "rorx rax, r14, 28",
            "rorx rcx, r14, 34",
            "and rsi, r14",
            "xor rax, rcx",
            "rorx rcx, r14, 39",
            "add r13, rsi",
            "xor rax, rcx",
            "mov rsi, r14",
            "xor rsi, r15",
            "mov rdx, r14",
            "and rdx, r15",
            "add r13, rax",
            "add r12, qword ptr [rdi + 40]",
            "rorx rax, r9, 14",
            "rorx rcx, r9, 18",
            "mov rbx, r10",
            "xor rbx, r11",
            "sub rdx, r8",
            "xor rax, rcx",
            "rorx rcx, r9, 41",
            "and rbx, r9",
            "add r8, r12",
            "xor rax, rcx",
            "xor rbx, r11",
            "add r8, rbx",
            "add r8, rax",
            "lea r12, [rdx + r8]",
            "rorx rax, r13, 28",
            "rorx rcx, r13, 34",
            "and rsi, r13",
            "xor rax, rcx",
            "rorx rcx, r13, 39",
            "add r12, rsi",
            "xor rax, rcx",
            "mov rsi, r13",
            "xor rsi, r14",
            "mov rdx, r13",
            "and rdx, r14",
            "add r12, rax",
            "add r11, qword ptr [rdi + 64]",
            "rorx rax, r8, 14",
            "rorx rcx, r8, 18",
            "mov rbx, r9",
            "xor rbx, r10",
            "sub rdx, r15",
            "xor rax, rcx",
            "rorx rcx, r8, 41",
            "and rbx, r8",
            "add r15, r11",
            "xor rax, rcx",
            "xor rbx, r10",
            "add r15, rbx",
            "add r15, rax",
            "lea r11, [rdx + r15]",
            "rorx rax, r12, 28",
            "rorx rcx, r12, 34",
            "and rsi, r12",
            "xor rax, rcx",
            "rorx rcx, r12, 39",
            "add r11, rsi",
            "xor rax, rcx",
            "mov rsi, r12",
            "xor rsi, r13",
            "mov rdx, r12",
            "and rdx, r13",
            "add r11, rax",
            "add r10, qword ptr [rdi + 72]",
            "rorx rax, r15, 14",
            "rorx rcx, r15, 18",
            "mov rbx, r8",
            "xor rbx, r9",
            "sub rdx, r14",
            "xor rax, rcx",
            "rorx rcx, r15, 41",
            "and rbx, r15",
            "add r14, r10",
            "xor rax, rcx",
            "xor rbx, r9",
            "add r14, rbx",
            "add r14, rax",
            "lea r10, [rdx + r14]",
            "rorx rax, r11, 28",
            "rorx rcx, r11, 34",
            "and rsi, r11",
            "xor rax, rcx",
            "rorx rcx, r11, 39",
            "add r10, rsi",
            "xor rax, rcx",
            "mov rsi, r11",
            "xor rsi, r12",
            "mov rdx, r11",
            "and rdx, r12",
            "add r10, rax",
            "add r9, qword ptr [rdi + 96]",
            "rorx rax, r14, 14",
            "rorx rcx, r14, 18",
            "mov rbx, r15",
            "xor rbx, r8",
            "sub rdx, r13",
            "xor rax, rcx",
            "rorx rcx, r14, 41",
            "and rbx, r14",
            "add r13, r9",
            "xor rax, rcx",
            "xor rbx, r8",
            "add r13, rbx",
            "add r13, rax",
            "lea r9, [rdx + r13]",
            "rorx rax, r10, 28",
            "rorx rcx, r10, 34",
            "and rsi, r10",
            "xor rax, rcx",
            "rorx rcx, r10, 39",
            "add r9, rsi",
            "xor rax, rcx",
            "mov rsi, r10",
            "xor rsi, r11",
            "mov rdx, r10",
            "and rdx, r11",
            "add r9, rax",
            "add r8, qword ptr [rdi + 104]",
            "rorx rax, r13, 14",
            "rorx rcx, r13, 18",
            "mov rbx, r14",
            "xor rbx, r15",
            "sub rdx, r12",
            "xor rax, rcx",
            "rorx rcx, r13, 41",
            "and rbx, r13",
            "add r12, r8",
            "xor rax, rcx",
            "xor rbx, r15",
            "add r12, rbx",
            "add r12, rax",
            "lea r8, [rdx + r12]",
            "rorx rax, r9, 28",
            "rorx rcx, r9, 34",
            "and rsi, r9",
            "xor rax, rcx",
            "rorx rcx, r9, 39",
            "add r8, rsi",
            "xor rax, rcx",
            "mov rsi, r9",
            "xor rsi, r10",
            "mov rdx, r9",
            "and rdx, r10",
            "add r8, rax",
            "pop rbx",

                inout("r8") $a,
                inout("r9") $b,
                inout("r10") $c,
                inout("r11") $d,
                inout("r12") $e,
                inout("r13") $f,
                inout("r14") $g,
                inout("r15") $h,
                inout("rsi") $bc,
                inout("rdx") $x,
                in("rdi") wk.as_ptr().add(i),
                out("rax") _,
                out("rcx") _,
            );
        }
    }};
}

/// One schedule step s for both blocks: x0..x7 hold words 2s-16..2s-1 (two per lane);
/// x0 is replaced by words 2s, 2s+1 and W+K is stored at step s.
macro_rules! sched {
    ($sig0:ident, $sig1:ident, $wk:ident, $s:expr,
     $x0:ident, $x1:ident, $x4:ident, $x5:ident, $x7:ident) => {{
        let w15 = _mm256_alignr_epi8::<8>($x1, $x0);
        let w7 = _mm256_alignr_epi8::<8>($x5, $x4);
        let t = _mm256_add_epi64(_mm256_add_epi64($x0, w7), $sig0(w15));
        $x0 = _mm256_add_epi64(t, $sig1($x7));
        let k = _mm256_load_si256(K2.0.as_ptr().add(4 * $s).cast());
        _mm256_store_si256(
            $wk.0.as_mut_ptr().add(4 * $s).cast(),
            _mm256_add_epi64($x0, k),
        );
    }};
}

macro_rules! define_compress {
    ($name:ident, $features:literal, $sig0:ident, $sig1:ident) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(state: &mut [u64; 8], blocks: &[u8]) {
            debug_assert_eq!(blocks.len() % 128, 0);
            let bswap = _mm256_setr_epi8(
                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                14, 13, 12, 11, 10, 9, 8,
            );
            let mut wk = Wk([0; 160]);
            let mut pairs = blocks.chunks(256);
            for pair in &mut pairs {
                let p0 = pair.as_ptr();
                let two = pair.len() == 256;
                let p1 = if two { pair[128..].as_ptr() } else { p0 };
                macro_rules! load {
                    ($j:expr) => {{
                        // SAFETY: p0 and p1 each point at a whole 128-byte block, j < 8;
                        // step j's 4 words lie inside the 160-word buffers.
                        unsafe {
                            let v =
                                _mm256_loadu2_m128i(p1.add(16 * $j).cast(), p0.add(16 * $j).cast());
                            let v = _mm256_shuffle_epi8(v, bswap);
                            let k = _mm256_load_si256(K2.0.as_ptr().add(4 * $j).cast());
                            _mm256_store_si256(
                                wk.0.as_mut_ptr().add(4 * $j).cast(),
                                _mm256_add_epi64(v, k),
                            );
                            v
                        }
                    }};
                }
                let (mut x0, mut x1, mut x2, mut x3) = (load!(0), load!(1), load!(2), load!(3));
                let (mut x4, mut x5, mut x6, mut x7) = (load!(4), load!(5), load!(6), load!(7));

                // Block 0, rounds 0..64, interleaved with schedule steps 8..40.
                let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
                let (mut bc, mut x) = (b ^ c, b & c);
                for i in 0..4 {
                    let st = 8 + 8 * i;
                    // SAFETY: st+7 < 40 steps, each 4 words in the 160-word buffers.
                    unsafe {
                        sched!($sig0, $sig1, wk, st, x0, x1, x4, x5, x7);
                        sched!($sig0, $sig1, wk, st + 1, x1, x2, x5, x6, x0);
                        sched!($sig0, $sig1, wk, st + 2, x2, x3, x6, x7, x1);
                        sched!($sig0, $sig1, wk, st + 3, x3, x4, x7, x0, x2);
                    }
                    rounds8!(a, b, c, d, e, f, g, h, bc, x, &wk.0, 0, 16 * i);
                    // SAFETY: as above, st+7 < 40.
                    unsafe {
                        sched!($sig0, $sig1, wk, st + 4, x4, x5, x0, x1, x3);
                        sched!($sig0, $sig1, wk, st + 5, x5, x6, x1, x2, x4);
                        sched!($sig0, $sig1, wk, st + 6, x6, x7, x2, x3, x5);
                        sched!($sig0, $sig1, wk, st + 7, x7, x0, x3, x4, x6);
                    }
                    rounds8!(a, b, c, d, e, f, g, h, bc, x, &wk.0, 0, 16 * i + 8);
                }
                rounds8!(a, b, c, d, e, f, g, h, bc, x, &wk.0, 0, 64);
                rounds8!(a, b, c, d, e, f, g, h, bc, x, &wk.0, 0, 72);
                let _ = (bc, x);
                for (st, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                    *st = st.wrapping_add(v);
                }
                if !two {
                    break;
                }
                // Block 1: all 80 rounds from the buffer.
                let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
                let (mut bc, mut x) = (b ^ c, b & c);
                for i in 0..5 {
                    rounds8!(a, b, c, d, e, f, g, h, bc, x, &wk.0, 1, 16 * i);
                    rounds8!(a, b, c, d, e, f, g, h, bc, x, &wk.0, 1, 16 * i + 8);
                }
                let _ = (bc, x);
                for (st, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                    *st = st.wrapping_add(v);
                }
            }
        }
    };
}

define_compress!(
    compress_avx512vl,
    "avx2,bmi1,bmi2,avx512f,avx512vl",
    ssig0_vl,
    ssig1_vl
);
define_compress!(compress_avx2, "avx2,bmi1,bmi2", ssig0_avx2, ssig1_avx2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::{Compress, Single};
    use crate::{isa, Algorithm};
    use rand::{Rng, SeedableRng};
    use sha2::Digest as _;

    /// Both bodies this CPU can run.
    fn bodies() -> Vec<(&'static str, Compress<Sha512>)> {
        let mut v = Vec::new();
        if let Some(b) = Bmi2::detect() {
            v.push(("avx2", Single::new::<RorxAvx2>(b, 1.0).compress));
            if let Some(vl) = Avx512::detect() {
                v.push(("avx512vl", Single::new::<RorxVl>((b, vl), 1.0).compress));
            }
        }
        v
    }

    #[test]
    fn matches_portable_random_blocks() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5ba512);
        for (name, body) in bodies() {
            for n in 1..=20 {
                for rep in 0..8 {
                    let mut state = [0u64; 8];
                    rng.fill(&mut state[..]);
                    // Unaligned start.
                    let off = rep % 8;
                    let mut buf = vec![0u8; n * 128 + off];
                    rng.fill(&mut buf[..]);
                    let data = &buf[off..];
                    let mut want = state;
                    super::super::compress_portable(&mut want, data);
                    let mut got = state;
                    body.run(&mut got, data);
                    assert_eq!(got, want, "{name}, {n} blocks");
                }
            }
        }
    }

    #[test]
    fn hash_matches_sha2_crate() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x384);
        let mut data = vec![0u8; 1000];
        rng.fill(&mut data[..]);
        for len in 0..=1000 {
            let m = &data[..len];
            for level in isa::Features::detect().levels() {
                for (alg, want) in [
                    (Algorithm::Sha384, sha2::Sha384::digest(m).to_vec()),
                    (Algorithm::Sha512, sha2::Sha512::digest(m).to_vec()),
                    (Algorithm::Sha512_224, sha2::Sha512_224::digest(m).to_vec()),
                    (Algorithm::Sha512_256, sha2::Sha512_256::digest(m).to_vec()),
                ] {
                    assert_eq!(
                        isa::with_level(level, || crate::hash(alg, m)).as_bytes(),
                        &want[..],
                        "{alg:?} len {len} at {level}"
                    );
                }
            }
        }
    }
}
