//! Keccak-f[1600] in plain Rust, one lane at a time: the reference the SIMD kernels are
//! tested against, the lanes kernel of every level without AVX2, and the SIMD kernels'
//! path for rates that are none of FIPS 202's ([`by_rate`]). Also the sponge's
//! steps around the permutation that every sponge driver shares (`many` for `hash_many`
//! and `StreamBatch`, `family` for the lane engine): a block XORed in, the last block,
//! the squeeze.
#![allow(unsafe_code)]

use super::lanes::{KeccakLanes, LanesBody};
use crate::Digest;

/// Round constants (FIPS 202, 3.2.5).
pub(crate) const RC: [u64; 24] = [
    0x0000000000000001,
    0x0000000000008082,
    0x800000000000808a,
    0x8000000080008000,
    0x000000000000808b,
    0x0000000080000001,
    0x8000000080008081,
    0x8000000000008009,
    0x000000000000008a,
    0x0000000000000088,
    0x0000000080008009,
    0x000000008000000a,
    0x000000008000808b,
    0x800000000000008b,
    0x8000000000008089,
    0x8000000000008003,
    0x8000000000008002,
    0x8000000000000080,
    0x000000000000800a,
    0x800000008000000a,
    0x8000000080008081,
    0x8000000000008080,
    0x0000000080000001,
    0x8000000080008008,
];

/// Rotation of lane `x + 5 y` (rho), FIPS 202 table 2.
pub(crate) const RHO: [u32; 25] = [
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];

/// Where pi moves lane `i = x + 5 y`: to `y + 5 ((2 x + 3 y) mod 5)`.
pub(crate) const PI: [usize; 25] = {
    let mut p = [0; 25];
    let mut i = 0;
    while i < 25 {
        let (x, y) = (i % 5, i / 5);
        p[i] = y + 5 * ((2 * x + 3 * y) % 5);
        i += 1;
    }
    p
};

/// Keccak-f[1600] on one state, step by step as FIPS 202 writes it.
pub(crate) fn keccak_f(a: &mut [u64; 25]) {
    for rc in RC {
        // theta
        let mut c = [0u64; 5];
        for (x, cx) in c.iter_mut().enumerate() {
            *cx = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        }
        for x in 0..5 {
            let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                a[x + 5 * y] ^= d;
            }
        }
        // rho and pi
        let mut b = [0u64; 25];
        for i in 0..25 {
            b[PI[i]] = a[i].rotate_left(RHO[i]);
        }
        // chi
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        // iota
        a[0] ^= rc;
    }
}

/// XOR one block (little-endian words) into the state.
#[inline]
pub(crate) fn xor_block(a: &mut [u64; 25], block: &[u8]) {
    for (w, bytes) in a.iter_mut().zip(block.chunks_exact(8)) {
        *w ^= u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    }
}

/// Writes into `last` (a block: `last.len()` is the rate) the final block of a sponge
/// whose unabsorbed tail is `tail` (shorter than a block): the tail, the domain bits
/// `domain` (with the first padding bit), zeros, and the final 1 bit of pad10*1 (in the
/// same byte as the domain bits when the tail is a byte short of a block).
pub(crate) fn pad_block(last: &mut [u8], tail: &[u8], domain: u8) {
    debug_assert!(tail.len() < last.len());
    last.fill(0);
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] ^= domain;
    let end = last.len() - 1;
    last[end] ^= 0x80;
}

/// The first `len` bytes of a padded sponge's output: the state's words little-endian,
/// `rate` bytes per permutation.
pub(crate) fn squeeze(state: &mut [u64; 25], rate: usize, len: usize) -> Digest {
    Digest::with_len(len, |out| {
        for (i, piece) in out.chunks_mut(rate).enumerate() {
            if i > 0 {
                keccak_f(state);
            }
            for (bytes, w) in piece.chunks_mut(8).zip(state.iter()) {
                bytes.copy_from_slice(&w.to_le_bytes()[..bytes.len()]);
            }
        }
    })
}

/// The portable lanes: each lane absorbs its blocks through [`keccak_f`].
pub(crate) struct Portable;

impl<const N: usize> LanesBody<N> for Portable {
    type Token = ();

    unsafe fn absorb(st: &mut [[u64; N]; 25], blocks: &[&[u8]; N], nblocks: usize, rate: usize) {
        for (l, data) in blocks.iter().enumerate() {
            let mut a: [u64; 25] = core::array::from_fn(|w| st[w][l]);
            for block in data.chunks_exact(rate).take(nblocks) {
                xor_block(&mut a, block);
                keccak_f(&mut a);
            }
            for (w, v) in a.iter().enumerate() {
                st[w][l] = *v;
            }
        }
    }
}

/// The portable lanes' absorption, for the SIMD kernels' rates that are none of FIPS
/// 202's (see [`by_rate`]).
#[cfg(target_arch = "x86_64")]
pub(crate) fn absorb_any<const N: usize>(
    st: &mut [[u64; N]; 25],
    blocks: &[&[u8]; N],
    nblocks: usize,
    rate: usize,
) {
    // SAFETY: the portable code needs nothing of the CPU (its token is `()`); the
    // shapes are the caller's, checked by `KeccakLanes` or `LaneKernel`.
    unsafe { <Portable as LanesBody<N>>::absorb(st, blocks, nblocks, rate) }
}

/// `$words::<W>($args, ...)` with `W` the rate's words as a constant, for each FIPS 202
/// rate (so a kernel's loads unroll); any other rate (none of the functions', kept so the
/// kernel contract holds for every rate) through the portable lanes.
#[cfg(target_arch = "x86_64")]
macro_rules! by_rate {
    ($rate:expr, $words:ident, ($($arg:expr),*)) => {
        match $rate {
            168 => $words::<21>($($arg),*),
            144 => $words::<18>($($arg),*),
            136 => $words::<17>($($arg),*),
            104 => $words::<13>($($arg),*),
            72 => $words::<9>($($arg),*),
            rate => $crate::sha3::portable::absorb_any($($arg,)* rate),
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use by_rate;

/// The portable kernel of `N` lanes (tests run every lane count through it).
pub(crate) fn kernel<const N: usize>() -> KeccakLanes<N> {
    KeccakLanes::new::<Portable>(())
}
