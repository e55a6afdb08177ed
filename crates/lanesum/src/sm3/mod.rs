//! SM3 (GB/T 32905-2016, the Chinese national standard hash): family description and the
//! scalar reference.
//!
//! SM3 is Merkle–Damgård over 64-byte blocks with SHA-256's padding and big-endian
//! words, so it is one more [`Family`]: `hash_many`, `StreamBatch`, `Hasher::update_many`
//! and the lane engine run it like SHA-256, with AVX2 kernels of 8 lanes and AVX-512 ones
//! of 16 (as ISA-L crypto's multi-buffer SM3).

use crate::family::{Family, Single};
use crate::isa::Features;
use crate::lanes::LaneKernel;

#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;

pub(crate) const IV: [u32; 8] = [
    0x7380_166f,
    0x4914_b2b9,
    0x1724_42d7,
    0xda8a_0600,
    0xa96f_30bc,
    0x1631_38aa,
    0xe38d_ee4d,
    0xb0fb_0e4e,
];

/// `T_j` rotated left by `j mod 32`, as every round adds it (the standard's `T_j <<< j`).
pub(crate) const T: [u32; 64] = {
    let mut t = [0; 64];
    let mut j = 0;
    while j < 64 {
        let base: u32 = if j < 16 { 0x79cc_4519 } else { 0x7a87_9d8a };
        t[j] = base.rotate_left((j % 32) as u32);
        j += 1;
    }
    t
};

pub(crate) struct Sm3;

impl Family for Sm3 {
    type Word = u32;
    type State = [u32; 8];
    const WORDS: usize = 8;
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const BIG_ENDIAN: bool = true;

    fn compress_portable(state: &mut [u32; 8], blocks: &[u8]) {
        compress_portable(state, blocks)
    }

    /// The scalar code below at every level: no instruction set speeds up one SM3 stream
    /// (its 64 rounds are one dependency chain), and it runs as fast as the `sm3` crate's.
    fn single(level: Features) -> Single<Sm3> {
        let _ = level;
        Single::portable(Self::portable_gbps())
    }

    /// Zen 3 0.22-0.27 GB/s, Zen 5 0.44-0.48 (`lanesum speed`, x1): below it a lane set
    /// of 16 with one message filled would look faster than this, and ran at 0.27.
    fn portable_gbps() -> f32 {
        crate::uarch::est(0.25, 0.3, 0.45)
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
            }
        }
        let _ = level;
        v
    }
}

/// P0, the permutation of the compression function.
#[inline(always)]
fn p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

/// P1, the permutation of the message expansion.
#[inline(always)]
fn p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

/// The scalar reference: whole 64-byte blocks. Four rounds per step with the words
/// renamed rather than moved (the new A lands where D was, the new E where H was), and
/// each word of the expansion made just before the rounds that use it, where it fills
/// slots the rounds' dependency chain leaves idle: 0.95-1.0x the `sm3` crate (Zen 3),
/// where the standard's steps in order ran at 0.8x.
pub(crate) fn compress_portable(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % 64, 0);
    for block in blocks.chunks_exact(64) {
        let mut w = [0u32; 68];
        for (wi, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
            *wi = u32::from_be_bytes(bytes.try_into().unwrap());
        }
        macro_rules! expand {
            ($j:expr) => {{
                let j = $j;
                w[j] = p1(w[j - 16] ^ w[j - 9] ^ w[j - 3].rotate_left(15))
                    ^ w[j - 13].rotate_left(7)
                    ^ w[j - 6];
            }};
        }
        // Round `j` with boolean functions `ff` and `gg`; W'[j] = W[j] ^ W[j + 4].
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident,
             $j:expr, $ff:ident, $gg:ident) => {{
                let j = $j;
                let a12 = $a.rotate_left(12);
                let ss1 = a12.wrapping_add($e).wrapping_add(T[j]).rotate_left(7);
                let ss2 = ss1 ^ a12;
                $d = $ff($a, $b, $c)
                    .wrapping_add($d)
                    .wrapping_add(ss2)
                    .wrapping_add(w[j] ^ w[j + 4]);
                let tt2 = $gg($e, $f, $g)
                    .wrapping_add($h)
                    .wrapping_add(ss1)
                    .wrapping_add(w[j]);
                $b = $b.rotate_left(9);
                $f = $f.rotate_left(19);
                $h = p0(tt2);
            }};
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        macro_rules! four {
            ($j:expr, $ff:ident, $gg:ident) => {
                if $j >= 12 {
                    for k in $j + 4..$j + 8 {
                        expand!(k);
                    }
                }
                round!(a, b, c, d, e, f, g, h, $j, $ff, $gg);
                round!(d, a, b, c, h, e, f, g, $j + 1, $ff, $gg);
                round!(c, d, a, b, g, h, e, f, $j + 2, $ff, $gg);
                round!(b, c, d, a, f, g, h, e, $j + 3, $ff, $gg);
            };
        }
        for j in (0..16).step_by(4) {
            four!(j, xor3, xor3);
        }
        for j in (16..64).step_by(4) {
            four!(j, majority, choice);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s ^= v;
        }
    }
}

/// FF and GG of rounds 0-15.
#[inline(always)]
fn xor3(x: u32, y: u32, z: u32) -> u32 {
    x ^ y ^ z
}

/// FF of rounds 16-63: `(x & y) | (x & z) | (y & z)`.
#[inline(always)]
fn majority(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (z & (x | y))
}

/// GG of rounds 16-63: `(x & y) | (!x & z)`.
#[inline(always)]
fn choice(x: u32, y: u32, z: u32) -> u32 {
    z ^ (x & (y ^ z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merkle_damgard::digest_once;
    use sm3::Digest as _;

    /// The standard's two examples (GB/T 32905-2016, appendix A).
    #[test]
    fn standard_examples() {
        let single = Sm3::single(Features::detect()).compress;
        let abc = digest_once::<Sm3>(&IV, single, b"abc", 32);
        assert_eq!(
            abc.to_hex(),
            "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
        );
        let abcd = digest_once::<Sm3>(&IV, single, &b"abcd".repeat(16), 32);
        assert_eq!(
            abcd.to_hex(),
            "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
        );
    }

    /// The reference against the `sm3` crate, at lengths around the padding's edges.
    #[test]
    fn reference_matches_the_sm3_crate() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 31 + 7) as u8).collect();
        let single = Sm3::single(Features::detect()).compress;
        for len in (0..200).chain([511, 512, 513, 1000]) {
            let got = digest_once::<Sm3>(&IV, single, &data[..len], 32);
            assert_eq!(
                got.as_bytes(),
                &sm3::Sm3::digest(&data[..len])[..],
                "len {len}"
            );
        }
    }
}
