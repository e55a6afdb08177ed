//! SHA-3 and SHAKE as [`Family`]s, so that the lane engine's streams of them share lanes
//! as MD5's and SHA-256's do: a sponge absorbs whole blocks of `RATE` bytes into a
//! Keccak state, which is all a round of the engine needs. Each function is its own
//! family (its rate is the block size, its domain bits the padding), so a round only
//! ever holds one function's streams.
//!
//! The end differs from Merkle–Damgård: no length field, the padding is the domain bits
//! then pad10*1 in one block, and the digest is squeezed from the state (`merkle_damgard`
//! branches on [`Family::SPONGE`] for both, through [`pad`] and [`squeeze`]).

use super::portable::{self, keccak_f, pad_block, xor_block};
use crate::family::{Family, Single, SingleBody, Word, MAX_BLOCK};
use crate::isa::Features;
use crate::lanes::LaneKernel;
use crate::Digest;

/// The Keccak sponge of rate `RATE` bytes and domain bits `DOMAIN` (with the first
/// padding bit: 0x06 for SHA-3, 0x1F for SHAKE).
pub(crate) struct Keccak<const RATE: usize, const DOMAIN: u8>;

pub(crate) type Sha3_224 = Keccak<144, 0x06>;
pub(crate) type Sha3_256 = Keccak<136, 0x06>;
pub(crate) type Sha3_384 = Keccak<104, 0x06>;
pub(crate) type Sha3_512 = Keccak<72, 0x06>;
pub(crate) type Shake128 = Keccak<168, 0x1f>;
pub(crate) type Shake256 = Keccak<136, 0x1f>;

/// Every sponge starts from the zero state.
pub(crate) const IV: [u64; 25] = [0; 25];

impl<const RATE: usize, const DOMAIN: u8> Family for Keccak<RATE, DOMAIN> {
    type Word = u64;
    type State = [u64; 25];
    const WORDS: usize = 25;
    const BLOCK: usize = RATE;
    const LEN_BYTES: usize = 0;
    const BIG_ENDIAN: bool = false;
    const SPONGE: Option<u8> = Some(DOMAIN);

    fn compress_portable(state: &mut [u64; 25], blocks: &[u8]) {
        for block in blocks.chunks_exact(RATE) {
            xor_block(state, block);
            keccak_f(state);
        }
    }

    /// The `keccak` crate's permutation (the `sha3` crate's). SHA3-256 through the
    /// `sha3` crate: 0.20-0.22 GB/s (Zen 3, `lanesum speed`); a permutation costs the
    /// same at every rate, so the rate scales it.
    fn single(level: Features) -> Single<Self> {
        let _ = level;
        Single::new::<CrateKeccak>((), 0.22 * RATE as f32 / 136.0)
    }

    fn portable_gbps() -> f32 {
        0.15 * RATE as f32 / 136.0
    }

    fn lane_kernels(level: Features) -> Vec<LaneKernel<u64>> {
        #[allow(unused_mut)]
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = level.avx2() {
                v.push(super::x86_avx2::lane_kernel::<RATE>(t));
            }
            if let Some(t) = level.avx512() {
                v.push(super::x86_avx512::lane_kernel::<RATE>(t));
            }
        }
        let _ = level;
        v
    }
}

/// The single-stream path: blocks through the `keccak` crate's Keccak-f[1600].
struct CrateKeccak;

#[allow(unsafe_code)] // an `unsafe fn` of the trait; the body is safe code
impl<const RATE: usize, const DOMAIN: u8> SingleBody<Keccak<RATE, DOMAIN>> for CrateKeccak {
    type Token = ();

    unsafe fn compress(state: &mut [u64; 25], blocks: &[u8]) {
        keccak::Keccak::new().with_f1600(|f1600| {
            for block in blocks.chunks_exact(RATE) {
                xor_block(state, block);
                f1600(state);
            }
        });
    }
}

/// The last block of a sponge whose unhashed tail is `tail` (shorter than a block of
/// `F`) with domain bits `domain`; returns its length, a block.
pub(crate) fn pad<F: Family>(domain: u8, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize {
    pad_block(&mut out[..F::BLOCK], tail, domain);
    F::BLOCK
}

/// The first `len` bytes squeezed from a padded sponge's `state`.
pub(crate) fn squeeze<F: Family>(state: &F::State, len: usize) -> Digest {
    let mut st = [0u64; 25];
    for (to, &w) in st.iter_mut().zip(state.as_ref()) {
        *to = w.to_u64();
    }
    portable::squeeze(&mut st, F::BLOCK, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::Kernels;
    use crate::merkle_damgard::digest_once;
    use crate::testing::check_kernel;
    use crate::{hash, Algorithm};

    /// Every kernel of sponge `F` (the `keccak` crate's one stream, the lanes) against
    /// the reference permutation, and whole messages through the families' generic end
    /// (padding, squeezing) against the `sha3` and `shake` crates, for lengths around
    /// the first multiples of the rate and outputs of one byte to several rates.
    fn check<F: Family<Word = u64, State = [u64; 25]>>(algs: &[Algorithm]) {
        let kernels = Kernels::<F>::new(Features::detect());
        for k in &kernels.lanes {
            check_kernel::<F>(k);
        }
        let data: Vec<u8> = (0..4 * F::BLOCK + 3).map(|i| (i * 7 + 3) as u8).collect();
        for &alg in algs {
            let lens = (0..=3).flat_map(|k| {
                let at = k * F::BLOCK;
                [at.saturating_sub(1), at, at + 1, at + F::BLOCK / 2]
            });
            for len in lens {
                let got = digest_once::<F>(&IV, kernels.single, &data[..len], alg.digest_len());
                assert_eq!(got, hash(alg, &data[..len]), "{alg} len {len}");
            }
        }
    }

    #[test]
    fn sponges_match_the_crates() {
        check::<Sha3_224>(&[Algorithm::Sha3_224]);
        check::<Sha3_256>(&[Algorithm::Sha3_256]);
        check::<Sha3_384>(&[Algorithm::Sha3_384]);
        check::<Sha3_512>(&[Algorithm::Sha3_512]);
        let shake = |n: fn(usize) -> Algorithm| [1, 16, 167, 168, 169, 500].map(n);
        check::<Shake128>(&shake(Algorithm::Shake128));
        check::<Shake256>(&shake(Algorithm::Shake256));
    }
}
