//! Test support shared by every kernel's tests: compare a kernel with the scalar
//! reference on random states and blocks, every lane count position, several block
//! counts, and random lane switches.

use crate::family::{Family, Word};
use crate::lanes::{DataSwitch, LaneKernel, Plain, StateSwitch, Switches, NO_SLOT};
use rand::{Rng, SeedableRng};

/// A `lanes`-wide kernel that runs the scalar reference lane by lane: no faster, but
/// it lets scheduler tests use wide kernels on any CPU.
pub(crate) fn portable_lanes<F: Family>(
    name: &'static str,
    lanes: usize,
    est_gbps: f32,
) -> LaneKernel<F::Word> {
    LaneKernel::new::<PortableLanes<F>>((), name, lanes, est_gbps)
}

/// The code of [`portable_lanes`].
struct PortableLanes<F>(std::marker::PhantomData<F>);

#[allow(unsafe_code)] // an `unsafe fn` of the trait; the body is safe code
impl<F: Family> Plain<F::Word> for PortableLanes<F> {
    type Token = ();

    unsafe fn compress(state: &mut [F::Word], blocks: &[&[u8]], nblocks: usize) {
        let lanes = blocks.len();
        for (l, b) in blocks.iter().enumerate() {
            let mut s = crate::family::lane_state::<F>(state, lanes, l);
            F::compress_portable(&mut s, &b[..nblocks * F::BLOCK]);
            crate::family::set_lane_state::<F>(state, lanes, l, &s);
        }
    }
}

/// A kernel's in-call lane switches against the same switches done by splitting the
/// call on the scalar reference: random state saves and loads (several in one lane
/// and one block boundary too), data switches to unaligned buffers, switches at the
/// call's first and last boundary, and calls of no blocks.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn check_switched<F: Family>(kernel: &LaneKernel<F::Word>) {
    let (words, lanes, bl) = (F::WORDS, kernel.lanes, F::BLOCK);
    let reference = portable_lanes::<F>("ref", lanes, 1.0);
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5e1c_u64 ^ lanes as u64);
    let nslots = 2 * lanes;
    let random = |rng: &mut rand::rngs::StdRng, n: usize| -> Vec<u8> {
        (0..n).map(|_| rng.random()).collect()
    };
    for round in 0..200 {
        let nblocks = [0, 1, 2, 3, 5, 9][round % 6];
        let mut states: Vec<StateSwitch> = (0..rng.random_range(0..3 * lanes))
            .map(|_| {
                let mut slot = || {
                    if rng.random_bool(0.4) {
                        NO_SLOT
                    } else {
                        rng.random_range(0..nslots as u32)
                    }
                };
                let (save, load) = (slot(), slot());
                StateSwitch {
                    at: rng.random_range(0..=nblocks as u32),
                    lane: rng.random_range(0..lanes as u32),
                    save,
                    load,
                }
            })
            .collect();
        states.sort_by_key(|s| s.at);
        // Each lane's data: a first buffer, then a buffer per data switch, each
        // exactly long enough (plus a few bytes) and offset by a few bytes.
        let mut bufs: Vec<Vec<u8>> = Vec::new();
        // (first block, lane, buffer, offset) of each lane's data, first ones first.
        let mut parts: Vec<(usize, usize, usize, usize)> = Vec::new();
        for l in 0..lanes {
            let mut ats: Vec<usize> = (0..rng.random_range(0..3))
                .map(|_| rng.random_range(0..=nblocks))
                .collect();
            ats.sort();
            let starts = std::iter::once(0).chain(ats.iter().copied());
            let ends = ats.iter().copied().chain([nblocks]);
            for (from, to) in starts.zip(ends) {
                let off = rng.random_range(0..8);
                let n = (to - from) * bl + off + rng.random_range(0..3);
                bufs.push(random(&mut rng, n));
                parts.push((from, l, bufs.len() - 1, off));
            }
        }
        let mut blocks: Vec<&[u8]> = vec![&[]; lanes];
        let mut data: Vec<DataSwitch<'_>> = Vec::new();
        for (i, &(at, lane, b, off)) in parts.iter().enumerate() {
            let first = i == 0 || parts[i - 1].1 != lane;
            if first {
                blocks[lane] = &bufs[b][off..];
            } else {
                data.push(DataSwitch {
                    at,
                    lane,
                    data: &bufs[b][off..],
                });
            }
        }
        data.sort_by_key(|d| d.at);
        let state0: Vec<F::Word> = (0..words * lanes)
            .map(|_| F::Word::from_u64(rng.random()))
            .collect();
        let slots0: Vec<F::Word> = (0..words * nslots)
            .map(|_| F::Word::from_u64(rng.random()))
            .collect();
        let run = |k: &LaneKernel<F::Word>| {
            let (mut st, mut slots) = (state0.clone(), slots0.clone());
            let sw = Switches {
                states: &states,
                data: &data,
                slots: &mut slots,
            };
            k.compress_switched(&mut st, words, bl, &blocks, nblocks, sw);
            (st, slots)
        };
        assert!(
            run(kernel) == run(&reference),
            "{} round {round}: {nblocks} blocks, switches {states:?}",
            kernel.name
        );
    }
}

#[test]
fn portable_lanes_match_reference() {
    check_kernel::<crate::md5::Md5>(&portable_lanes::<crate::md5::Md5>("p16", 16, 1.0));
    check_kernel::<crate::sha512::Sha512>(&portable_lanes::<crate::sha512::Sha512>("p8", 8, 1.0));
}

/// Random state words and blocks, each lane with its own (unaligned) buffer.
pub(crate) fn check_kernel<F: Family>(kernel: &LaneKernel<F::Word>) {
    let words = F::WORDS;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x1a2e5_u64 ^ kernel.lanes as u64);
    for nblocks in [1usize, 2, 3, 5, 17] {
        let lanes = kernel.lanes;
        let mut state: Vec<F::Word> = (0..words * lanes)
            .map(|_| F::Word::from_u64(rng.random()))
            .collect();
        // Offset each lane's buffer by a different amount to catch alignment assumptions.
        let bufs: Vec<Vec<u8>> = (0..lanes)
            .map(|l| {
                (0..nblocks * F::BLOCK + l % 7)
                    .map(|_| rng.random())
                    .collect()
            })
            .collect();
        let slices: Vec<&[u8]> = bufs.iter().enumerate().map(|(l, b)| &b[l % 7..]).collect();
        let mut want = Vec::new();
        for l in 0..lanes {
            let mut s = F::State::default();
            for (w, v) in s.as_mut().iter_mut().enumerate() {
                *v = state[w * lanes + l];
            }
            F::compress_portable(&mut s, &slices[l][..nblocks * F::BLOCK]);
            want.push(s);
        }
        kernel.compress(&mut state, words, F::BLOCK, &slices, nblocks);
        for (l, w) in want.iter().enumerate() {
            let got: Vec<F::Word> = (0..words).map(|i| state[i * lanes + l]).collect();
            assert_eq!(
                &got[..],
                w.as_ref(),
                "{} lane {l} of {lanes}, {nblocks} blocks",
                kernel.name
            );
        }
    }
}

/// Runs `f` at every level this CPU can be forced to (portable, each extension alone, all
/// of them; see `isa::with_level`): the in-process matrix every level-dependent test
/// runs, so that one `cargo test` covers every kernel path. A failure names its level.
pub(crate) fn each_level(mut f: impl FnMut()) {
    for level in crate::isa::Features::detect().levels() {
        let run = std::panic::AssertUnwindSafe(|| crate::isa::with_level(level, &mut f));
        if let Err(e) = std::panic::catch_unwind(run) {
            eprintln!("(at instruction-set level {level})");
            std::panic::resume_unwind(e);
        }
    }
}
