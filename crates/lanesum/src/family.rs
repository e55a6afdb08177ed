//! What a Merkle-Damgård hash family is to lanesum: its state and block shape, its scalar
//! reference compression, and the kernels it offers at each instruction-set level.
//!
//! Each family (`md5`, `sha1`, `sha256`, `sha512`, `sm3`) implements [`Family`] in its own folder;
//! `families` maps algorithms onto them, and everything above works on any `F: Family`.
//! The SHA-3 and SHAKE sponges are families too (`sha3::family`), for the lane engine
//! only: a sponge also absorbs whole blocks into a chaining state, and only its end
//! differs (see [`Family::SPONGE`]).
#![allow(unsafe_code)]

use crate::isa::Features;
use crate::lanes::{LaneKernel, Plain};

/// A word of chaining state (`u32` or `u64`).
pub(crate) trait Word:
    Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static
{
    const BYTES: usize;
    /// Truncating conversion (a saved state's words, tests' random words).
    fn from_u64(x: u64) -> Self;
    /// The word as a `u64` (the Keccak state's words are `u64` already).
    fn to_u64(self) -> u64;
    fn write_be(self, out: &mut [u8]);
    fn write_le(self, out: &mut [u8]);
}

impl Word for u32 {
    const BYTES: usize = 4;
    fn from_u64(x: u64) -> Self {
        x as u32
    }
    fn to_u64(self) -> u64 {
        self.into()
    }
    #[inline]
    fn write_be(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_be_bytes()[..out.len()]);
    }
    #[inline]
    fn write_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes()[..out.len()]);
    }
}

impl Word for u64 {
    const BYTES: usize = 8;
    fn from_u64(x: u64) -> Self {
        x
    }
    fn to_u64(self) -> u64 {
        self
    }
    #[inline]
    fn write_be(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_be_bytes()[..out.len()]);
    }
    #[inline]
    fn write_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes()[..out.len()]);
    }
}

/// Largest block of any family (SHAKE128's rate).
pub(crate) const MAX_BLOCK: usize = 168;

/// A multiple of every Merkle–Damgård family's block (SHA-512's): the unit of the halves
/// a `MultiHasher` shares among its streams. A sponge's rate (72 to 168 bytes) does not
/// divide it: its stream copies a shared half, as any write.
pub(crate) const MD_BLOCKS: usize = 128;

/// One Merkle–Damgård hash family: its block shape and its compression functions.
pub(crate) trait Family: Sized + 'static {
    type Word: Word;
    /// The chaining state, `[Word; N]`.
    type State: Copy
        + Default
        + Send
        + Sync
        + std::fmt::Debug
        + AsRef<[Self::Word]>
        + AsMut<[Self::Word]>;
    /// Words of chaining state.
    const WORDS: usize;
    /// Block size in bytes.
    const BLOCK: usize;
    /// Size of the trailing message-length field in bytes (8, or 16 for SHA-512).
    const LEN_BYTES: usize;
    /// Length field and digest words are big-endian (SHA) rather than little-endian (MD5).
    const BIG_ENDIAN: bool;
    /// `Some(domain bits)` for a Keccak sponge: padded with those bits and pad10*1 in one
    /// block, with no length field, and its digest squeezed from the state (any length).
    const SPONGE: Option<u8> = None;

    /// The plain scalar compression function: the reference every fast kernel is tested
    /// against. `blocks.len()` is a multiple of `BLOCK`.
    fn compress_portable(state: &mut Self::State, blocks: &[u8]);

    /// The fastest single-stream compression `level` allows (scalar by default).
    fn single(level: Features) -> Single<Self> {
        let _ = level;
        Single::portable(Self::portable_gbps())
    }

    /// Rough GB/s per core of [`compress_portable`](Self::compress_portable).
    fn portable_gbps() -> f32;

    /// Multi-lane kernels usable at `level`, besides the single-stream one.
    fn lane_kernels(level: Features) -> Vec<LaneKernel<Self::Word>> {
        let _ = level;
        Vec::new()
    }

    /// Portable kernels for a few long streams at once, each exactly as wide as the
    /// streams it takes (see [`Kernels::few`]).
    fn few_stream_kernels() -> Vec<LaneKernel<Self::Word>> {
        Vec::new()
    }
}

/// Single-stream compression code of family `F`.
pub(crate) trait SingleBody<F: Family>: 'static {
    /// What the code needs of the CPU: an `isa` token, or `()` for portable code.
    type Token: Copy;

    /// Compress whole blocks (`blocks.len()` a multiple of `F::BLOCK`).
    ///
    /// # Safety
    /// The caller holds a `Self::Token`: the CPU runs the code's instructions.
    unsafe fn compress(state: &mut F::State, blocks: &[u8]);
}

/// [`SingleBody::compress`] of `S` behind a safe signature; only ever stored by
/// [`Single::new`], which took an `S::Token`.
fn single_body<F: Family, S: SingleBody<F>>(state: &mut F::State, blocks: &[u8]) {
    assert!(blocks.len().is_multiple_of(F::BLOCK));
    // SAFETY: this instance is only reachable through a `Compress` or `LaneKernel` that
    // `Single::new::<F, S>` built from an `S::Token`.
    unsafe { S::compress(state, blocks) }
}

/// The scalar reference as a [`SingleBody`].
struct Portable;

impl<F: Family> SingleBody<F> for Portable {
    type Token = ();

    unsafe fn compress(state: &mut F::State, blocks: &[u8]) {
        F::compress_portable(state, blocks)
    }
}

/// One lane over a single-stream body: the "x1" kernel of every family.
struct OneLane<F, S>(std::marker::PhantomData<(F, S)>);

impl<F: Family, S: SingleBody<F>> Plain<F::Word> for OneLane<F, S> {
    type Token = S::Token;

    unsafe fn compress(state: &mut [F::Word], blocks: &[&[u8]], nblocks: usize) {
        let mut s = F::State::default();
        s.as_mut().copy_from_slice(state);
        // SAFETY: the caller holds an `S::Token` (this kernel's), as `S` needs.
        unsafe { S::compress(&mut s, &blocks[0][..nblocks * F::BLOCK]) };
        state.copy_from_slice(s.as_ref());
    }
}

/// A single-stream compression, callable from safe code: it can only be made from the
/// token its code needs.
pub(crate) struct Compress<F: Family>(fn(&mut F::State, &[u8]));

// Manual impls: derives would demand `F: Clone` of the marker type.
impl<F: Family> Clone for Compress<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F: Family> Copy for Compress<F> {}

impl<F: Family> Compress<F> {
    /// Compress whole blocks (`blocks.len()` a multiple of `F::BLOCK`).
    #[inline]
    pub(crate) fn run(self, state: &mut F::State, blocks: &[u8]) {
        (self.0)(state, blocks)
    }
}

/// A family's single-stream path at one level: the compression, and the same as a
/// one-lane kernel for the scheduler.
pub(crate) struct Single<F: Family> {
    pub compress: Compress<F>,
    pub kernel: LaneKernel<F::Word>,
}

impl<F: Family> Single<F> {
    /// The single-stream body `S`, which `token` proves this CPU can run, at `gbps`.
    pub(crate) fn new<S: SingleBody<F>>(token: S::Token, gbps: f32) -> Self {
        Single {
            compress: Compress(single_body::<F, S>),
            kernel: LaneKernel::new::<OneLane<F, S>>(token, "x1", 1, gbps),
        }
    }

    /// The scalar reference.
    pub(crate) fn portable(gbps: f32) -> Self {
        Self::new::<Portable>((), gbps)
    }
}

/// Every kernel of family `F` at one level.
pub(crate) struct Kernels<F: Family> {
    /// The single-stream compression (also `lanes[0]`, as a one-lane kernel).
    pub single: Compress<F>,
    /// Every kernel the scheduler chooses among, the single-stream one first.
    pub lanes: Vec<LaneKernel<F::Word>>,
    /// Kernels offered only to a batch of exactly their width of long streams
    /// ([`Kernels::few_over`]), never rated beside `lanes`: MD5's streams interleaved in
    /// scalar registers. Every other choice (short messages, the last waves, narrowing as
    /// streams end) stays as cheap as it was: among three more MD5 kernels, rating each
    /// for the last wave made `hash_many` of 4 to 9 short messages 5-10% slower on Zen 5.
    pub few: Vec<LaneKernel<F::Word>>,
}

impl<F: Family> Kernels<F> {
    pub(crate) fn new(level: Features) -> Self {
        let single = F::single(level);
        let mut lanes = vec![single.kernel];
        lanes.extend(F::lane_kernels(level));
        Kernels {
            single: single.compress,
            lanes,
            few: F::few_stream_kernels(),
        }
    }

    /// `k` (the scheduler's choice among `lanes` for `busy` streams), or the kernel of
    /// `few` that is exactly `busy` wide if it is estimated faster and the shortest
    /// stream (`blocks()`, asked only then) has at least [`FEW_MIN_BLOCKS`] blocks.
    pub(crate) fn few_over(
        &self,
        k: LaneKernel<F::Word>,
        busy: usize,
        blocks: impl FnOnce() -> usize,
    ) -> LaneKernel<F::Word> {
        match self.few.iter().find(|f| f.lanes == busy) {
            Some(f) if f.est_gbps > k.rate_with(busy) && blocks() >= FEW_MIN_BLOCKS => *f,
            _ => k,
        }
    }

    /// The widest kernel's lanes.
    pub(crate) fn widest(&self) -> usize {
        self.lanes.iter().map(|k| k.lanes).max().unwrap_or(1)
    }
}

/// Blocks a stream needs before a kernel of [`Kernels::few`] is offered for it (8 KiB of
/// MD5): long enough that a kernel call's fixed cost, which [`best_for`] weighs for short
/// messages and these estimates leave out, no longer decides, and below it batches are
/// chosen for exactly as before.
///
/// [`best_for`]: crate::schedule::best_for
pub(crate) const FEW_MIN_BLOCKS: usize = 128;

/// Lane `l`'s chaining state, out of the word-major columns of `lanes` lanes.
pub(crate) fn lane_state<F: Family>(state: &[F::Word], lanes: usize, l: usize) -> F::State {
    let mut s = F::State::default();
    for (w, v) in s.as_mut().iter_mut().enumerate() {
        *v = state[w * lanes + l];
    }
    s
}

/// Puts `s` into lane `l` of the word-major columns of `lanes` lanes.
pub(crate) fn set_lane_state<F: Family>(
    state: &mut [F::Word],
    lanes: usize,
    l: usize,
    s: &F::State,
) {
    for (w, &v) in s.as_ref().iter().enumerate() {
        state[w * lanes + l] = v;
    }
}
