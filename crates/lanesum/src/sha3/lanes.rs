//! The contract between Keccak lanes kernels and the sponge driver in `many`: a kernel
//! absorbs `nblocks` whole blocks of `rate` bytes into each of `N` Keccak states (XOR the
//! block into the first `rate / 8` words, then Keccak-f[1600]); it knows nothing of
//! messages or padding.
//!
//! As for the other families, a kernel's code is a type implementing [`LanesBody`] whose
//! `Token` says what it needs of the CPU, and a [`KeccakLanes`] is only made from a value
//! of that token. [`EngineSponge`] puts the same code behind the lane engine's kernel
//! contract.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use core::marker::PhantomData;

#[cfg(target_arch = "x86_64")]
use crate::lanes::Plain;

/// A lanes kernel's code.
pub(crate) trait LanesBody<const N: usize>: 'static {
    /// What the code needs of the CPU: an `isa` token, or `()` for portable code.
    type Token: Copy;

    /// Absorb `nblocks` blocks of `rate` bytes from `blocks[l]` into lane `l` of the
    /// word-major states (`st[w][l]` is word `w` of lane `l`).
    ///
    /// # Safety
    /// The caller holds a `Self::Token`; `rate` is a multiple of 8 at most 200 and every
    /// `blocks[l]` holds at least `nblocks * rate` bytes ([`KeccakLanes::absorb`] checks).
    unsafe fn absorb(st: &mut [[u64; N]; 25], blocks: &[&[u8]; N], nblocks: usize, rate: usize);
}

type AbsorbFn<const N: usize> = fn(&mut [[u64; N]; 25], &[&[u8]; N], usize, usize);

/// [`LanesBody::absorb`] of `K` behind a safe signature, only ever stored by
/// [`KeccakLanes::new`], which took a `K::Token`.
fn body<const N: usize, K: LanesBody<N>>(
    st: &mut [[u64; N]; 25],
    blocks: &[&[u8]; N],
    nblocks: usize,
    rate: usize,
) {
    assert!(rate.is_multiple_of(8) && (8..=200).contains(&rate));
    assert!(blocks.iter().all(|b| b.len() >= nblocks * rate));
    // SAFETY: only reachable through a `KeccakLanes` made from a `K::Token`; the shapes
    // were checked above.
    unsafe { K::absorb(st, blocks, nblocks, rate) }
}

/// A Keccak kernel of `N` lanes that this CPU can run.
#[derive(Clone, Copy)]
pub(crate) struct KeccakLanes<const N: usize>(AbsorbFn<N>);

impl<const N: usize> KeccakLanes<N> {
    /// The kernel `K`, which `token` proves this CPU can run.
    pub(crate) fn new<K: LanesBody<N>>(token: K::Token) -> Self {
        let _ = token;
        KeccakLanes(body::<N, K>)
    }

    /// Absorb `nblocks` blocks in every lane (see [`LanesBody::absorb`]).
    ///
    /// # Panics
    /// If a lane's data is short (a driver bug, never input-driven).
    #[inline]
    pub(crate) fn absorb(
        self,
        st: &mut [[u64; N]; 25],
        blocks: &[&[u8]; N],
        nblocks: usize,
        rate: usize,
    ) {
        (self.0)(st, blocks, nblocks, rate)
    }
}

/// Lanes code `B` behind the lane engine's kernel contract (`lanes::Plain`), for sponges
/// of rate `RATE` bytes (see `sha3::family`): the engine's word-major state (word `w` of
/// lane `l` at `w * N + l`) is the layout of `[[u64; N]; 25]`.
#[cfg(target_arch = "x86_64")]
pub(crate) struct EngineSponge<B, const N: usize, const RATE: usize>(PhantomData<B>);

#[cfg(target_arch = "x86_64")]
impl<B: LanesBody<N>, const N: usize, const RATE: usize> Plain<u64> for EngineSponge<B, N, RATE> {
    type Token = B::Token;

    unsafe fn compress(state: &mut [u64], blocks: &[&[u8]], nblocks: usize) {
        let (words, _) = state.as_chunks_mut::<N>();
        let st: &mut [[u64; N]; 25] = words.try_into().expect("25 words of N lanes");
        let blocks: &[&[u8]; N] = blocks.try_into().expect("N lanes");
        // SAFETY: the caller holds a `B::Token`, and `LaneKernel` checked that every lane
        // has `nblocks * RATE` bytes, which is `B::absorb`'s contract (the rate of a
        // `Family`: a multiple of 8 at most 200).
        unsafe { B::absorb(st, blocks, nblocks, RATE) }
    }
}
