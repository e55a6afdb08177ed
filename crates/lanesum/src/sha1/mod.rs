//! SHA-1 (FIPS 180-4): family description and the scalar reference compression.

use crate::family::{Family, Single};
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
mod x86_shani;

pub(crate) const IV: [u32; 5] = [
    0x6745_2301,
    0xefcd_ab89,
    0x98ba_dcfe,
    0x1032_5476,
    0xc3d2_e1f0,
];

pub(crate) struct Sha1;

impl Family for Sha1 {
    type Word = u32;
    type State = [u32; 5];
    const WORDS: usize = 5;
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const BIG_ENDIAN: bool = true;

    fn compress_portable(state: &mut [u32; 5], blocks: &[u8]) {
        compress_portable(state, blocks)
    }

    /// Our SHA-NI single stream (~10% faster than the sha1 crate's: its late message
    /// schedule leaves the SHA unit to the rounds) when the level allows it.
    fn single(level: Features) -> Single<Sha1> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = level.shani() {
            return Single::new::<x86_shani::One>(t, est(2.4, 1.93, 2.1));
        }
        let _ = level;
        Single::portable(Self::portable_gbps())
    }

    fn portable_gbps() -> f32 {
        0.8
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
            if let Some(t) = level.shani() {
                v.extend(x86_shani::kernels(t));
            }
        }
        let _ = level;
        v
    }
}

/// The scalar reference: whole 64-byte blocks.
pub(crate) fn compress_portable(state: &mut [u32; 5], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % 64, 0);
    for block in blocks.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (wi, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
            *wi = u32::from_be_bytes(bytes.try_into().unwrap());
        }
        for t in 16..80 {
            w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = *state;
        for (t, &wt) in w.iter().enumerate() {
            let (f, k) = match t / 20 {
                0 => (d ^ (b & (c ^ d)), 0x5a82_7999),
                1 => (b ^ c ^ d, 0x6ed9_eba1),
                2 => ((b & c) | (d & (b | c)), 0x8f1b_bcdc),
                _ => (b ^ c ^ d, 0xca62_c1d6),
            };
            let tmp = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(wt);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = tmp;
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e]) {
            *s = s.wrapping_add(v);
        }
    }
}
