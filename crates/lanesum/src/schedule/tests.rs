//! The scheduler on counting and portable kernels: full lanes, exact digests.

use super::driver::PLANS;
use super::tail::{pack, plan_length, splits, MIN_PIECE};
use super::*;
use crate::family::{Compress, Family, Kernels};
use crate::isa::Features;
use crate::lanes::LaneKernel;
use crate::lanes::Plain;
use crate::md5::{Md5, IV};
use std::cell::Cell;

thread_local! {
    /// Lane-blocks the counting kernel was asked to run (busy or not).
    static SLOTS: Cell<usize> = const { Cell::new(0) };
}

/// An 8-lane scalar kernel that counts lane-blocks, to measure how full the lanes are.
struct Counting;

#[allow(unsafe_code)] // an `unsafe fn` of the trait; the body is safe code
impl Plain<u32> for Counting {
    type Token = ();

    unsafe fn compress(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
        SLOTS.with(|c| c.set(c.get() + blocks.len() * nblocks));
        crate::testing::portable_lanes::<Md5>("p8", 8, 8.0).compress(
            state,
            Md5::WORDS,
            Md5::BLOCK,
            blocks,
            nblocks,
        );
    }
}

/// The counting kernel and the portable single stream, to narrow to.
fn counting() -> [LaneKernel<u32>; 2] {
    let k = LaneKernel::new::<Counting>((), "count8", 8, 8.0);
    [Md5::single(Features::PORTABLE).kernel, k]
}

/// MD5's portable single-stream compression: the reference for jobs.
fn portable() -> Compress<Md5> {
    Md5::single(Features::PORTABLE).compress
}

/// Runs `msgs` on the counting kernel (narrowing allowed); returns the lane-blocks
/// used, after checking every digest.
fn slots_for(msgs: &[impl AsRef<[u8]>]) -> usize {
    let [one, k] = counting();
    SLOTS.with(|c| c.set(0));
    let mut got = vec![None; msgs.len()];
    run::<Md5>(
        &[one, k],
        k,
        true,
        msgs.iter()
            .enumerate()
            .map(|(i, m)| (i, Job::message(IV, m.as_ref()))),
        |i, s| got[i] = Some(*s),
    );
    for (m, g) in msgs.iter().zip(&got) {
        let want = Job::<Md5>::message(IV, m.as_ref()).run_single(portable());
        assert_eq!(*g, Some(want), "{} messages", msgs.len());
    }
    SLOTS.with(|c| c.get())
}

/// Equal messages of 200 blocks (with padding), laid out `EQUAL_STRIDE` apart in one
/// buffer.
const EQUAL_LEN: usize = 200 * 64 - 20;
/// 201 cache lines: consecutive messages start in different L1 set classes, so no
/// lane is staggered (a delay costs lane-blocks, and where separate allocations
/// land is up to the allocator: CI's once collided).
const EQUAL_STRIDE: usize = 201 * 64;

fn equal_buffer(n: usize) -> Vec<u8> {
    (0..n * EQUAL_STRIDE)
        .map(|b| (b / EQUAL_STRIDE) as u8)
        .collect()
}

fn equal_messages(buf: &[u8]) -> Vec<&[u8]> {
    buf.chunks(EQUAL_STRIDE).map(|m| &m[..EQUAL_LEN]).collect()
}

/// 9..=16 equal messages on 8 lanes: the tail plan keeps the lanes busy, where
/// running the extra messages afterwards would nearly double the lane-blocks. (It may
/// make the lanes up to 1/8 longer than the shortest plan to cut fewer pieces.)
#[test]
fn equal_messages_share_the_lanes() {
    for n in 9usize..=16 {
        let buf = equal_buffer(n);
        let msgs = equal_messages(&buf);
        let need = n * 200;
        let slots = slots_for(&msgs);
        let shortest = need.div_ceil(8);
        assert!(
            slots <= (shortest + shortest / 8 + 1) * 8,
            "{n} messages: {slots} lane-blocks for {need}"
        );
    }
}

/// Equal messages, a multiple of the lanes: refilling lanes as they free up is
/// already balanced, so no plan is built (building one cost ~5% of 64 x 16 KiB MD5
/// on x2, an Intel Xeon); one message more gets one.
#[test]
fn balanced_refills_build_no_plan() {
    for (n, plans) in [(16, 0), (24, 0), (9, 1), (17, 1)] {
        let buf = equal_buffer(n);
        let msgs = equal_messages(&buf);
        let before = (PLANS.get(), STAGGERED.get());
        let slots = slots_for(&msgs);
        assert_eq!(PLANS.get() - before.0, plans, "{n} messages");
        assert_eq!(STAGGERED.get(), before.1, "{n} messages");
        if plans == 0 {
            assert_eq!(slots, n * 200, "{n} messages");
        }
    }
}

/// 63 equal jobs on 32 lanes: two whole jobs a lane (1.6% longer than the shortest
/// plan) beats the shortest plan, which cuts a piece at nearly every lane; and
/// 33 jobs still get cut, since two whole jobs a lane would take nearly twice as long.
#[test]
fn plan_length_weighs_splits_against_length() {
    let k = crate::testing::portable_lanes::<crate::sha256::Sha256>("p32", 32, 6.2);
    let left = vec![257; 63];
    let t = plan_length(&k, 64, &left, (63 * 257usize).div_ceil(32)).unwrap();
    // Lengths are tried in steps of 1/128 of the shortest (3 blocks here).
    assert!((514..517).contains(&t), "{t}");
    assert_eq!(splits(&left, 32, t, MIN_PIECE), Some(0));
    let left = vec![257; 33];
    let t = plan_length(&k, 64, &left, (33 * 257usize).div_ceil(32)).unwrap();
    assert!(t < 300 && splits(&left, 32, t, MIN_PIECE) > Some(0), "{t}");
}

/// `pack` with random job sizes: each job's pieces add up to it, only a split job's
/// two parts are cut, both at least `MIN_PIECE` long, its first part ends before
/// its last part starts, and no lane runs past `t_end`.
#[test]
fn pack_keeps_pieces_whole_and_ordered() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for _ in 0..2000 {
        let n = rng.random_range(1..=64);
        let jobs = rng.random_range(1..=n);
        let left: Vec<usize> = (0..jobs).map(|_| rng.random_range(1..600)).collect();
        let total: usize = left.iter().sum();
        let t_min = total.div_ceil(n).max(*left.iter().max().unwrap());
        for (t_end, min_piece) in [
            (t_min, 1),
            (t_min, MIN_PIECE),
            (t_min + t_min / 8, MIN_PIECE),
        ] {
            let Some(plan) = pack(&left, n, t_end, min_piece) else {
                assert!(min_piece > 1, "wrap-around must always fit");
                continue;
            };
            // (lane, start, len, is first part) of each job's pieces.
            let mut parts: Vec<Vec<(usize, usize, usize, bool)>> = vec![Vec::new(); jobs];
            // A whole piece runs what the job's first part (if any) leaves.
            let mut rest = left.clone();
            for p in plan.pieces.iter().filter(|p| p.cap != usize::MAX) {
                assert!(p.cap < rest[p.job]);
                rest[p.job] -= p.cap;
            }
            for (l, q) in (0..n).map(|l| plan.lane(l)).enumerate() {
                let mut t = 0;
                for p in q {
                    let len = if p.cap == usize::MAX {
                        rest[p.job]
                    } else {
                        p.cap
                    };
                    parts[p.job].push((l, t, len, p.cap != usize::MAX));
                    t += len;
                }
                assert!(t <= t_end, "lane {l} runs to {t} > {t_end}");
            }
            for (j, ps) in parts.iter().enumerate() {
                match ps[..] {
                    [(_, _, len, false)] => assert_eq!(len, left[j]),
                    [(_, s_last, last, false), (_, s_first, first, true)] => {
                        assert_eq!(first + last, left[j]);
                        assert_eq!(s_first, 0);
                        assert!(
                            first <= s_last,
                            "job {j}: first part ends after last starts"
                        );
                        assert!(min_piece.min(left[j]) <= first.min(last));
                    }
                    _ => panic!("job {j} cut into {ps:?}"),
                }
            }
        }
    }
}

/// Random long and short messages, so the tail plan meets splits, jobs already in
/// their padding and jobs that end inside a planned piece.
#[test]
fn random_batches_through_the_plan() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    for _ in 0..60 {
        let n = rng.random_range(1..40);
        let msgs: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let len = if rng.random_bool(0.7) {
                    rng.random_range(8_000..40_000)
                } else {
                    rng.random_range(0..200)
                };
                (0..len).map(|_| rng.random()).collect()
            })
            .collect();
        slots_for(&msgs);
    }
}

/// A job's segments as (start, blocks) in a buffer, and its tail's length if it ends.
type SegmentedJob = (Vec<(usize, usize)>, Option<usize>);

/// Jobs in up to `SEGS` segments (empty, one block, long), with and without padding,
/// through the plan: the same states as each job on the single-stream path.
#[test]
fn jobs_in_many_segments() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(78);
    let data: Vec<u8> = (0..300_000).map(|_| rng.random()).collect();
    let counting = counting();
    // And this machine's kernels at the active level.
    let active = Kernels::<Md5>::new(crate::isa::active()).lanes;
    for round in 0..120 {
        let kernels = if round % 2 == 0 {
            &counting[..]
        } else {
            &active
        };
        let n = rng.random_range(1..40);
        let specs: Vec<SegmentedJob> = (0..n)
            .map(|_| {
                let segs = (0..rng.random_range(0..=SEGS))
                    .map(|_| {
                        let blocks = [0, 1, rng.random_range(2..400)][rng.random_range(0..3)];
                        (rng.random_range(0..1000) * 64, blocks)
                    })
                    .collect();
                (segs, rng.random_bool(0.5).then(|| rng.random_range(0..64)))
            })
            .collect();
        let job = |(parts, tail): &SegmentedJob| {
            let mut segs: [&[u8]; SEGS] = [&[]; SEGS];
            for (seg, &(at, blocks)) in segs.iter_mut().zip(parts) {
                *seg = &data[at..at + blocks * 64];
            }
            let fin = tail.map(|t| (&data[..t], 12_345));
            Job::<Md5> {
                state: IV,
                segs,
                fin,
            }
        };
        let mut got = vec![None; n];
        run::<Md5>(
            kernels,
            best(kernels, n),
            true,
            specs.iter().map(job).enumerate(),
            |i, s| got[i] = Some(*s),
        );
        for (spec, g) in specs.iter().zip(&got) {
            assert_eq!(*g, Some(job(spec).run_single(portable())), "{spec:?}");
        }
    }
}

/// Ragged lengths (empty, sub-block, two-block padding, long) in every tail shape.
#[test]
fn ragged_tails_are_exact() {
    let lens = [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 4096, 9999];
    for n in 1..=30 {
        let msgs: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                (0..lens[(i * 7) % lens.len()] + i)
                    .map(|b| (b * 31 + i) as u8)
                    .collect()
            })
            .collect();
        slots_for(&msgs);
    }
}

/// A kernel whose calls cost more (SHA-NI x6, spilling its registers) loses messages of
/// a block or two to a narrower one of nearly the same rate, but keeps long ones, where
/// its calls are few and its rate counts.
#[test]
fn call_costs_decide_for_short_messages() {
    use crate::testing::portable_lanes;
    // Whole waves of both kernels, so that only rates and call costs differ (and the
    // long ones' balanced tail has nothing to balance).
    const N: usize = 96;
    let ks = [
        portable_lanes::<Md5>("x1", 1, 2.0),
        portable_lanes::<Md5>("x4", 4, 2.44),
        portable_lanes::<Md5>("x6", 6, 2.45).with_call_ns(68.0),
    ];
    for blocks in [0, 1, 2, 16] {
        assert_eq!(best_for(&ks, N, blocks, 64).0.name, "x4", "{blocks}");
    }
    assert_eq!(best_for(&ks, N, 256, 64).0.name, "x6");
    // Without the cost, the wider kernel wins even one-block messages.
    let cheap = [ks[0], ks[1], ks[2].with_call_ns(crate::lanes::CALL_NS)];
    assert_eq!(best_for(&cheap, N, 1, 64).0.name, "x6");
}
