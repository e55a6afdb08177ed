//! The contract between multi-lane compression kernels and whatever schedules them.
//!
//! A kernel compresses the same number of whole blocks for each of `lanes` independent
//! messages. It knows nothing of messages, padding or scheduling; the batch and engine
//! layers know nothing of instructions. Chaining state is kept word-major ("structure of
//! arrays"): word `w` of lane `l` is `state[w * lanes + l]`, so a SIMD kernel loads one
//! vector per word with no transpose, and the state stays in that layout between calls.
//!
//! A kernel's code is a type implementing [`Plain`] or [`Switching`], whose `Token` says
//! what it needs of the CPU (`isa::Avx512`, ...); a [`LaneKernel`] is made from a value of
//! that token, which only detection makes, so safe code holding a kernel may run it.
#![allow(unsafe_code)]

/// Upper bound on lanes of any kernel (AVX-512 MD5 with 4 interleaved sets), so that
/// a `u64` holds a bit per lane.
pub(crate) const MAX_LANES: usize = 64;

/// A multi-lane kernel's code: `nblocks` whole blocks in each lane.
pub(crate) trait Plain<W: Copy>: 'static {
    /// What the code needs of the CPU: an `isa` token, or `()` for portable code.
    type Token: Copy;

    /// Compress `nblocks` blocks in each of `blocks.len()` lanes: `blocks[l]` holds at
    /// least `nblocks * BLOCK` bytes for lane `l`; lanes with nothing to do may repeat
    /// another lane's slice (their state is then garbage and ignored).
    ///
    /// # Safety
    /// The caller holds a `Self::Token` (the CPU runs the code's instructions), and the
    /// shapes are the kernel's: `state.len()` its words times lanes, `blocks.len()` its
    /// lanes, each slice long enough ([`LaneKernel::compress`] checks them).
    unsafe fn compress(state: &mut [W], blocks: &[&[u8]], nblocks: usize);
}

/// A multi-lane kernel's code that can also switch lanes between blocks (see
/// [`Cursor`]): a lane moves to another message, or to its padding, without ending the
/// call.
pub(crate) trait Switching<W: Copy>: 'static {
    /// What the code needs of the CPU (see [`Plain::Token`]).
    type Token: Copy;

    /// [`Plain::compress`], switching lanes as `cur` says; `blocks[l]` need only cover
    /// lane `l` up to its first data switch.
    ///
    /// # Safety
    /// As [`Plain::compress`], with every data switch's slice covering its lane up to
    /// the next data switch or `nblocks` ([`LaneKernel::compress_switched`] checks them).
    unsafe fn compress(
        state: &mut [W],
        blocks: &[&[u8]],
        nblocks: usize,
        cur: &mut Cursor<'_, '_, W>,
    );
}

/// How a [`LaneKernel`] calls its code.
type PlainFn<W> = fn(state: &mut [W], blocks: &[&[u8]], nblocks: usize);
type SwitchedFn<W> =
    fn(state: &mut [W], blocks: &[&[u8]], nblocks: usize, cur: &mut Cursor<'_, '_, W>);

/// [`Plain::compress`] of `K` behind a safe signature. Only ever stored in a
/// [`LaneKernel`] made from a `K::Token`, which checks the shapes before each call.
fn plain<W: Copy, K: Plain<W>>(state: &mut [W], blocks: &[&[u8]], nblocks: usize) {
    // SAFETY: this instance is only reachable through a LaneKernel built by
    // `LaneKernel::new::<K>`, which took a `K::Token`; `compress` and `split_calls` check
    // the shapes before they call it.
    unsafe { K::compress(state, blocks, nblocks) }
}

/// [`Switching::compress`] of `K` behind a safe signature, as [`plain`].
fn switched<W: Copy, K: Switching<W>>(
    state: &mut [W],
    blocks: &[&[u8]],
    nblocks: usize,
    cur: &mut Cursor<'_, '_, W>,
) {
    // SAFETY: this instance is only reachable through a LaneKernel built by
    // `LaneKernel::switched::<K>`, which took a `K::Token`; `compress` and
    // `compress_switched` check the shapes and the switches before they call it.
    unsafe { K::compress(state, blocks, nblocks, cur) }
}

/// "No slot" in a [`StateSwitch`].
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// After `at` blocks of a call, lane `lane`'s chaining state is saved to slot `save`,
/// then replaced by slot `load` (either may be [`NO_SLOT`]). All saves at one `at`
/// happen before its loads, so a job can move from one lane to another there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StateSwitch {
    pub at: u32,
    pub lane: u32,
    pub save: u32,
    pub load: u32,
}

/// From block `at` of a call on, lane `lane` reads its blocks from `data`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DataSwitch<'a> {
    pub at: usize,
    pub lane: usize,
    pub data: &'a [u8],
}

/// What happens to lanes between the blocks of one kernel call: sorted by `at`, each at
/// most the call's block count. Slot `s` is `slots[s * words ..][.. words]`.
pub(crate) struct Switches<'s, 'a, W> {
    pub states: &'s [StateSwitch],
    pub data: &'s [DataSwitch<'a>],
    pub slots: &'s mut [W],
}

/// A kernel's view of a call's [`Switches`], consumed in block order. A kernel checks
/// [`state_at`](Self::state_at) before each block (storing its registers to the state
/// around [`apply_states`](Self::apply_states)), and takes [`next_data`](Self::next_data)
/// for a block before it loads that block; the lane's block `b` is then at
/// `data[(b - at) * BLOCK..]`.
pub(crate) struct Cursor<'s, 'a, W> {
    sw: Switches<'s, 'a, W>,
    words: usize,
    lanes: usize,
    si: usize,
    di: usize,
}

impl<'a, W: Copy> Cursor<'_, 'a, W> {
    /// The block before which the next state switch happens (`usize::MAX`: none).
    #[inline(always)]
    pub(crate) fn state_at(&self) -> usize {
        self.sw
            .states
            .get(self.si)
            .map_or(usize::MAX, |s| s.at as usize)
    }

    /// Applies the state switches at block `at` to the word-major `state`.
    #[cold]
    #[inline(never)]
    pub(crate) fn apply_states(&mut self, at: usize, state: &mut [W]) {
        let start = self.si;
        while self.state_at() == at {
            self.si += 1;
        }
        apply_states(
            &self.sw.states[start..self.si],
            state,
            self.lanes,
            self.words,
            self.sw.slots,
        );
    }

    /// The block from which the next data switch applies (`usize::MAX`: none).
    #[inline(always)]
    fn data_at(&self) -> usize {
        self.sw.data.get(self.di).map_or(usize::MAX, |d| d.at)
    }

    /// The next data switch at block `at`, as (lane, its data from block `at` on).
    #[inline(always)]
    pub(crate) fn next_data(&mut self, at: usize) -> Option<(usize, &'a [u8])> {
        let d = self.sw.data.get(self.di).filter(|d| d.at == at)?;
        self.di += 1;
        Some((d.lane, d.data))
    }
}

/// Saves, then loads, of one block boundary.
fn apply_states<W: Copy>(
    group: &[StateSwitch],
    state: &mut [W],
    lanes: usize,
    words: usize,
    slots: &mut [W],
) {
    for s in group.iter().filter(|s| s.save != NO_SLOT) {
        let slot = &mut slots[s.save as usize * words..][..words];
        for (w, v) in slot.iter_mut().enumerate() {
            *v = state[w * lanes + s.lane as usize];
        }
    }
    for s in group.iter().filter(|s| s.load != NO_SLOT) {
        let slot = &slots[s.load as usize * words..][..words];
        for (w, &v) in slot.iter().enumerate() {
            state[w * lanes + s.lane as usize] = v;
        }
    }
}

#[derive(Clone, Copy)]
enum Body<W: 'static> {
    Plain(PlainFn<W>),
    // Only x86 kernels switch lanes inside a call.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Switched(SwitchedFn<W>),
}

/// A compression kernel for `lanes` independent messages.
///
/// Only made from the token its code needs (see [`Plain`]), which is what makes calling
/// it sound.
#[derive(Clone, Copy)]
pub(crate) struct LaneKernel<W: 'static> {
    /// Short path name shown by `lanesum speed`, e.g. `avx512x4` or `shani-x2`.
    pub name: &'static str,
    /// Number of independent messages per call.
    pub lanes: usize,
    /// Rough full-lanes throughput in GB/s per core on this CPU's
    /// [`Uarch`](crate::uarch::Uarch) (see [`est`](crate::uarch::est)), used only to
    /// choose between kernels for a given number of busy lanes.
    pub est_gbps: f32,
    /// What one call costs beyond its blocks, in nanoseconds: entering and leaving it,
    /// the lanes' state in and out. Counts for messages of a few blocks, which take a
    /// call or two per wave (see [`best_for`](crate::schedule::best_for)).
    pub call_ns: f32,
    body: Body<W>,
}

impl<W: Copy> std::fmt::Debug for LaneKernel<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaneKernel")
            .field("name", &self.name)
            .field("lanes", &self.lanes)
            .field("est_gbps", &self.est_gbps)
            .field("call_ns", &self.call_ns)
            .finish()
    }
}

impl<W: Copy + 'static> LaneKernel<W> {
    /// The kernel `K`, which `token` proves this CPU can run.
    pub(crate) fn new<K: Plain<W>>(
        token: K::Token,
        name: &'static str,
        lanes: usize,
        est_gbps: f32,
    ) -> Self {
        let _ = token;
        LaneKernel {
            name,
            lanes,
            est_gbps,
            call_ns: CALL_NS,
            body: Body::Plain(plain::<W, K>),
        }
    }

    /// A kernel that switches lanes inside a call (see [`Cursor`]), from its token.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn switched<K: Switching<W>>(
        token: K::Token,
        name: &'static str,
        lanes: usize,
        est_gbps: f32,
    ) -> Self {
        let _ = token;
        LaneKernel {
            name,
            lanes,
            est_gbps,
            call_ns: CALL_NS,
            body: Body::Switched(switched::<W, K>),
        }
    }

    /// The same kernel with a call cost of `ns` rather than [`CALL_NS`].
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_call_ns(self, ns: f32) -> Self {
        LaneKernel {
            call_ns: ns,
            ..self
        }
    }

    /// Whether lane switches inside a call are nearly free here; otherwise each block
    /// boundary with a switch splits the call.
    pub(crate) fn switches_in_kernel(&self) -> bool {
        matches!(self.body, Body::Switched(_))
    }

    /// Compress `nblocks` blocks of `block_len` bytes in every lane.
    ///
    /// # Panics
    /// If the state or block slices are too short (a scheduler bug, never input-driven).
    #[inline]
    pub(crate) fn compress(
        &self,
        state: &mut [W],
        words: usize,
        block_len: usize,
        blocks: &[&[u8]],
        nblocks: usize,
    ) {
        assert_eq!(state.len(), words * self.lanes);
        assert_eq!(blocks.len(), self.lanes);
        let need = nblocks * block_len;
        assert!(blocks.iter().all(|b| b.len() >= need));
        match self.body {
            Body::Plain(f) => f(state, blocks, nblocks),
            Body::Switched(f) => {
                let sw = Switches {
                    states: &[],
                    data: &[],
                    slots: &mut [],
                };
                f(state, blocks, nblocks, &mut self.cursor(sw, words))
            }
        }
    }

    fn cursor<'s, 'a>(&self, sw: Switches<'s, 'a, W>, words: usize) -> Cursor<'s, 'a, W> {
        Cursor {
            sw,
            words,
            lanes: self.lanes,
            si: 0,
            di: 0,
        }
    }

    /// Compress `nblocks` blocks in every lane, switching lanes' states and data between
    /// blocks as `sw` says. Lane `l` starts on `blocks[l]`, which, like each switch's
    /// data, must cover the lane until its next data switch or the end of the call.
    ///
    /// # Panics
    /// If the switches are out of order or out of range, or data runs short (a scheduler
    /// bug, never input-driven).
    pub(crate) fn compress_switched(
        &self,
        state: &mut [W],
        words: usize,
        block_len: usize,
        blocks: &[&[u8]],
        nblocks: usize,
        sw: Switches<'_, '_, W>,
    ) {
        if sw.states.is_empty() && sw.data.is_empty() {
            return self.compress(state, words, block_len, blocks, nblocks);
        }
        let lanes = self.lanes;
        assert_eq!(state.len(), words * lanes);
        assert_eq!(blocks.len(), lanes);
        assert!(lanes <= MAX_LANES);
        let nslots = sw.slots.len() / words;
        let mut last = 0;
        for s in sw.states {
            let ok_slot = |x: u32| x == NO_SLOT || (x as usize) < nslots;
            assert!(last <= s.at && s.at as usize <= nblocks && (s.lane as usize) < lanes);
            assert!(ok_slot(s.save) && ok_slot(s.load));
            last = s.at;
        }
        if sw.data.is_empty() {
            assert!(blocks.iter().all(|b| b.len() >= nblocks * block_len));
        } else {
            // Each lane's data: where its current slice starts (block) and its length.
            let mut from = [0usize; MAX_LANES];
            let mut len = [0usize; MAX_LANES];
            for (l, b) in blocks.iter().enumerate() {
                len[l] = b.len();
            }
            let mut last = 0;
            for d in sw.data {
                assert!(last <= d.at && d.at <= nblocks && d.lane < lanes);
                assert!(len[d.lane] >= (d.at - from[d.lane]) * block_len);
                (from[d.lane], len[d.lane], last) = (d.at, d.data.len(), d.at);
            }
            for l in 0..lanes {
                assert!(len[l] >= (nblocks - from[l]) * block_len);
            }
        }
        match self.body {
            Body::Switched(f) => f(state, blocks, nblocks, &mut self.cursor(sw, words)),
            Body::Plain(f) => {
                split_calls(f, state, block_len, blocks, nblocks, self.cursor(sw, words))
            }
        }
    }

    /// Throughput this kernel offers for `n` similar messages: they run in
    /// `ceil(n / lanes)` rounds, the last one partly empty. (With 17 messages a 16-lane
    /// kernel would run the 17th almost alone, so a 32-lane one is better.)
    pub(crate) fn rate_with(&self, n: usize) -> f32 {
        let n = n.max(1);
        let slots = n.div_ceil(self.lanes) * self.lanes;
        self.est_gbps * n as f32 / slots as f32
    }

    /// The same for `n` messages of `bytes` each, long enough for the scheduler's
    /// balanced tail (see `schedule`): no lane runs empty, but with more messages than
    /// lanes (and not a multiple) the plan costs [`plan_ns`] to build and splits a
    /// message at nearly every lane, each split costing [`split_ns`](Self::split_ns).
    pub(crate) fn rate_balanced(&self, n: usize, bytes: usize) -> f32 {
        let (n, l) = (n.max(1), self.lanes);
        if n <= l || n.is_multiple_of(l) {
            return self.rate_with(n);
        }
        // GB/s is bytes per nanosecond.
        let work_ns = (n * bytes) as f32 / self.est_gbps;
        self.est_gbps * work_ns / (work_ns + plan_ns(n) + self.split_ns() * (l - 1) as f32)
    }

    /// What cutting a job in two costs, in nanoseconds: a kernel call ([`SPLIT_NS`]), or
    /// a state save and load inside one ([`SWITCH_SPLIT_NS`]).
    pub(crate) fn split_ns(&self) -> f32 {
        if self.switches_in_kernel() {
            SWITCH_SPLIT_NS
        } else {
            SPLIT_NS
        }
    }
}

/// What building the balanced tail's plan of `jobs` jobs costs beyond its kernel time,
/// in nanoseconds (measured on an Intel Xeon, 16 KiB messages: 0.57 us for 5 SHA-256
/// jobs, 1.17 us for 17 MD5, 2.0 for 33, 2.9 for 56, plus ~0.5 us to look at the jobs
/// first; without it in [`LaneKernel::rate_balanced`], 48 MD5 messages took x2 with a
/// plan, 13.9 GB/s, over x3 with full lanes, 15.0).
pub(crate) fn plan_ns(jobs: usize) -> f32 {
    500.0 + 45.0 * jobs as f32
}

/// What a kernel call costs beyond its blocks, in nanoseconds (see
/// [`LaneKernel::call_ns`]). Fitted on Zen 3 (forced SHA-NI x2, x3, x4 on 32,768 SHA-256
/// messages of 64 and 512 bytes, CPU time: per message 34.7, 30.0 and 28.6 ns beyond
/// the blocks, two calls a wave, which gives ~13 ns a call and ~22 per message).
pub(crate) const CALL_NS: f32 = 13.0;

/// What one split of the balanced tail costs, in nanoseconds: measured on Zen 5, MD5 x2
/// (32 lanes) ran 33 x 16 KiB messages at 0.74 of its 32-message speed.
pub(crate) const SPLIT_NS: f32 = 450.0;

/// The same on a kernel that switches lanes itself: a save and a load of a few words,
/// and the state registers through memory at each of the two block boundaries (an
/// estimate; with it, 17 x 16 KiB SHA-1 and SHA-512 plans ran 1-4% faster than with
/// a call per cut).
pub(crate) const SWITCH_SPLIT_NS: f32 = 40.0;

/// [`LaneKernel::compress_switched`] for a kernel without switches of its own: one call
/// per block boundary that has switches. (The checks there make the slicing here safe.)
fn split_calls<W: Copy>(
    f: PlainFn<W>,
    state: &mut [W],
    block_len: usize,
    blocks: &[&[u8]],
    nblocks: usize,
    mut cur: Cursor<'_, '_, W>,
) {
    let lanes = blocks.len();
    let mut ptrs: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
    ptrs[..lanes].copy_from_slice(blocks);
    let mut done = 0;
    loop {
        let next = cur.state_at().min(cur.data_at()).min(nblocks);
        if next > done {
            f(state, &ptrs[..lanes], next - done);
            for p in &mut ptrs[..lanes] {
                *p = p.get((next - done) * block_len..).unwrap_or_default();
            }
            done = next;
        }
        if cur.state_at() == done {
            cur.apply_states(done, state);
        }
        while let Some((l, d)) = cur.next_data(done) {
            ptrs[l] = d;
        }
        if done == nblocks {
            return;
        }
    }
}

/// `lane_sets!(Plain or Switching, word, token, words, lanes per set, BLOCK, compress)`:
/// the type `Sets<N>`, the code of a kernel of `N` interleaved sets of that many lanes of
/// `words` state words, which calls `compress::<N>` under `token` (see [`Plain`] and
/// [`Switching`]) after checking the shapes it relies on.
macro_rules! lane_sets {
    (Plain, $w:ty, $token:ty, $words:expr, $set:expr, $block:expr, $compress:ident) => {
        /// `N` interleaved lane sets, the code of a [`LaneKernel`](crate::lanes::LaneKernel).
        struct Sets<const N: usize>;

        impl<const N: usize> $crate::lanes::Plain<$w> for Sets<N> {
            type Token = $token;

            unsafe fn compress(state: &mut [$w], blocks: &[&[u8]], nblocks: usize) {
                assert_eq!(state.len(), $words * $set * N);
                assert_eq!(blocks.len(), $set * N);
                assert!(blocks.iter().all(|b| b.len() >= nblocks * $block));
                // SAFETY: the caller holds the token (the trait's contract), which proves
                // the CPU has what the code needs; the shapes were checked above.
                unsafe { $compress::<N>(state, blocks, nblocks) }
            }
        }
    };
    (Switching, $w:ty, $token:ty, $words:expr, $set:expr, $block:expr, $compress:ident) => {
        /// `N` interleaved lane sets, the code of a [`LaneKernel`](crate::lanes::LaneKernel).
        struct Sets<const N: usize>;

        impl<const N: usize> $crate::lanes::Switching<$w> for Sets<N> {
            type Token = $token;

            unsafe fn compress(
                state: &mut [$w],
                blocks: &[&[u8]],
                nblocks: usize,
                cur: &mut $crate::lanes::Cursor<'_, '_, $w>,
            ) {
                assert_eq!(state.len(), $words * $set * N);
                assert_eq!(blocks.len(), $set * N);
                // SAFETY: the caller holds the token (the trait's contract), which proves
                // the CPU has what the code needs, and `LaneKernel` checked that each
                // lane's slice, and each data switch's, covers the lane's blocks up to its
                // next data switch or `nblocks`.
                unsafe { $compress::<N>(state, blocks, nblocks, cur) }
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use lane_sets;
