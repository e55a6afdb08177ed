//! SHA-512 and its truncations SHA-384, SHA-512/224, SHA-512/256 (FIPS 180-4): family
//! description and the scalar reference compression.

#[cfg(target_arch = "x86_64")]
use crate::family::SingleBody;
use crate::family::{Family, Single};
#[cfg(target_arch = "x86_64")]
use crate::isa::Bmi2;
use crate::isa::Features;
use crate::lanes::LaneKernel;
use crate::uarch::est;

#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;
#[cfg(target_arch = "x86_64")]
mod x86_avx512vl;
#[cfg(target_arch = "x86_64")]
mod x86_bmi2;

pub(crate) const IV_512: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];
pub(crate) const IV_384: [u64; 8] = [
    0xcbbb9d5dc1059ed8,
    0x629a292a367cd507,
    0x9159015a3070dd17,
    0x152fecd8f70e5939,
    0x67332667ffc00b31,
    0x8eb44a8768581511,
    0xdb0c2e0d64f98fa7,
    0x47b5481dbefa4fa4,
];
pub(crate) const IV_512_224: [u64; 8] = [
    0x8c3d37c819544da2,
    0x73e1996689dcd4d6,
    0x1dfab7ae32ff9c82,
    0x679dd514582f9fcf,
    0x0f6d2b697bd44da8,
    0x77e36f7304c48942,
    0x3f9d85a86a1d36c8,
    0x1112e6ad91d692a1,
];
pub(crate) const IV_512_256: [u64; 8] = [
    0x22312194fc2bf72c,
    0x9f555fa3c84c64c2,
    0x2393b86b6f53b151,
    0x963877195940eabd,
    0x96283ee2a88effe3,
    0xbe5e1e2553863992,
    0x2b0199fc2c85b8aa,
    0x0eb72ddc81c52ca2,
];

/// Round constants: the first 64 bits of the fractional parts of the cube roots of the
/// first 80 primes.
pub(crate) const K: [u64; 80] = [
    0x428a2f98d728ae22,
    0x7137449123ef65cd,
    0xb5c0fbcfec4d3b2f,
    0xe9b5dba58189dbbc,
    0x3956c25bf348b538,
    0x59f111f1b605d019,
    0x923f82a4af194f9b,
    0xab1c5ed5da6d8118,
    0xd807aa98a3030242,
    0x12835b0145706fbe,
    0x243185be4ee4b28c,
    0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f,
    0x80deb1fe3b1696b1,
    0x9bdc06a725c71235,
    0xc19bf174cf692694,
    0xe49b69c19ef14ad2,
    0xefbe4786384f25e3,
    0x0fc19dc68b8cd5b5,
    0x240ca1cc77ac9c65,
    0x2de92c6f592b0275,
    0x4a7484aa6ea6e483,
    0x5cb0a9dcbd41fbd4,
    0x76f988da831153b5,
    0x983e5152ee66dfab,
    0xa831c66d2db43210,
    0xb00327c898fb213f,
    0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2,
    0xd5a79147930aa725,
    0x06ca6351e003826f,
    0x142929670a0e6e70,
    0x27b70a8546d22ffc,
    0x2e1b21385c26c926,
    0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df,
    0x650a73548baf63de,
    0x766a0abb3c77b2a8,
    0x81c2c92e47edaee6,
    0x92722c851482353b,
    0xa2bfe8a14cf10364,
    0xa81a664bbc423001,
    0xc24b8b70d0f89791,
    0xc76c51a30654be30,
    0xd192e819d6ef5218,
    0xd69906245565a910,
    0xf40e35855771202a,
    0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8,
    0x1e376c085141ab53,
    0x2748774cdf8eeb99,
    0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63,
    0x4ed8aa4ae3418acb,
    0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc,
    0x78a5636f43172f60,
    0x84c87814a1f0ab72,
    0x8cc702081a6439ec,
    0x90befffa23631e28,
    0xa4506cebde82bde9,
    0xbef9a3f7b2c67915,
    0xc67178f2e372532b,
    0xca273eceea26619c,
    0xd186b8c721c0c207,
    0xeada7dd6cde0eb1e,
    0xf57d4f7fee6ed178,
    0x06f067aa72176fba,
    0x0a637dc5a2c898a6,
    0x113f9804bef90dae,
    0x1b710b35131c471b,
    0x28db77f523047d84,
    0x32caab7b40c72493,
    0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6,
    0x597f299cfc657e2a,
    0x5fcb6fab3ad6faec,
    0x6c44198c4a475817,
];

pub(crate) struct Sha512;

impl Family for Sha512 {
    type Word = u64;
    type State = [u64; 8];
    const WORDS: usize = 8;
    const BLOCK: usize = 128;
    const LEN_BYTES: usize = 16;
    const BIG_ENDIAN: bool = true;

    fn compress_portable(state: &mut [u64; 8], blocks: &[u8]) {
        compress_portable(state, blocks)
    }

    /// With AVX2: our `rorx` rounds (BMI2) with an AVX2 or AVX-512VL schedule, or else the
    /// sha2 crate's compression, which uses AVX2 after its own CPU check.
    fn single(level: Features) -> Single<Sha512> {
        #[cfg(target_arch = "x86_64")]
        if level.avx2().is_some() {
            let gbps = match level.avx512() {
                Some(_) => est(0.9, 0.84, 1.14),
                None => est(0.8, 0.79, 1.04),
            };
            if let Some(t) = Bmi2::detect() {
                return match level.avx512() {
                    Some(vl) => Single::new::<x86_bmi2::RorxVl>((t, vl), gbps),
                    None => Single::new::<x86_bmi2::RorxAvx2>(t, gbps),
                };
            }
            return Single::new::<Sha2Crate>((), gbps);
        }
        let _ = level;
        Single::portable(Self::portable_gbps())
    }

    fn portable_gbps() -> f32 {
        0.45
    }

    fn lane_kernels(level: Features) -> Vec<LaneKernel<u64>> {
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
}

/// The sha2 crate's SHA-512 compression, which uses AVX2 after its own CPU check: the
/// single stream at the AVX2 level on a CPU without BMI2.
#[cfg(target_arch = "x86_64")]
struct Sha2Crate;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // an `unsafe fn` of the trait; the body is safe code
impl SingleBody<Sha512> for Sha2Crate {
    type Token = ();

    unsafe fn compress(state: &mut [u64; 8], blocks: &[u8]) {
        sha2::block_api::compress512(state, blocks.as_chunks::<128>().0);
    }
}

/// The scalar reference: whole 128-byte blocks.
pub(crate) fn compress_portable(state: &mut [u64; 8], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % 128, 0);
    for block in blocks.chunks_exact(128) {
        let mut w = [0u64; 80];
        for (wi, bytes) in w.iter_mut().zip(block.chunks_exact(8)) {
            *wi = u64::from_be_bytes(bytes.try_into().unwrap());
        }
        for t in 16..80 {
            let s0 = w[t - 15].rotate_right(1) ^ w[t - 15].rotate_right(8) ^ (w[t - 15] >> 7);
            let s1 = w[t - 2].rotate_right(19) ^ w[t - 2].rotate_right(61) ^ (w[t - 2] >> 6);
            w[t] = w[t - 16]
                .wrapping_add(s0)
                .wrapping_add(w[t - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        for t in 0..80 {
            let s1 = e.rotate_right(14) ^ e.rotate_right(18) ^ e.rotate_right(41);
            let ch = g ^ (e & (f ^ g));
            let t1 = h
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[t])
                .wrapping_add(w[t]);
            let s0 = a.rotate_right(28) ^ a.rotate_right(34) ^ a.rotate_right(39);
            let maj = (a & b) | (c & (a | b));
            let t2 = s0.wrapping_add(maj);
            h = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }
}
