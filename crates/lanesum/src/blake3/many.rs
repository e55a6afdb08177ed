//! BLAKE3 of many small messages at once: the chunks of *different* messages share the
//! SIMD lanes.
//!
//! The `blake3` crate hashes one message at a time; its many-chunk SIMD kernel only helps
//! a message with many chunks, so files of a few KiB run near scalar speed. Here every lane
//! takes one job — a chunk of any message, or later a parent node — and a lane whose job
//! ends takes the next one at once, so messages of mixed lengths keep all lanes busy.
//!
//! Messages are taken in groups of about [`GROUP_CHUNKS`] chunks (the group's chaining
//! values stay small and in cache), each in two phases:
//! 1. every chunk: full 1 KiB chunks first (16 blocks: the lanes stay in step, so one kernel
//!    call runs 16 steps), then the last chunks longest first, so that lanes taking jobs
//!    together tend to end together ([`Runner::run`]);
//! 2. the parent nodes of multi-chunk messages, one tree level of all messages per round
//!    (adjacent pairs merged, an odd last node carried up: BLAKE3's left-balanced tree),
//!    in groups of one block per lane ([`Runner::parents`]).
//!
//! A message's root node (its only chunk, or its top parent) is compressed with `ROOT`; the
//! kernel returns all 16 output words of a lane's final block, so outputs up to 64 bytes
//! come from that one compression. Longer outputs and messages from [`threshold`] on go to
//! the `blake3` crate (whose own SIMD fills its lanes from one long message).
//!
//! Measured (AVX-512, 2 shared cores, single-threaded, best of many windows): 64 messages
//! of 1 KiB 6.9 GB/s vs 1.4 for the crate one at a time; the kernel alone runs 8.4 GB/s,
//! the rest is per-job bookkeeping and digest construction.

use super::lanes::{LaneState, LanesKernel, IDLE};
use super::portable::Portable;
use super::{BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV, PARENT, ROOT};
use crate::isa::Features;
use crate::Digest;

/// Messages longer than this go to the `blake3` crate one at a time.
///
/// With `N` lanes, messages of fewer than `N` chunks: from `N` chunks on, the crate's own
/// `N`-chunk SIMD kernel fills its lanes from the one message and was measured faster
/// (AVX-512, 64 messages each: 12 KiB lanes 6.6 GB/s vs crate 5.2; 16 KiB lanes 6.6 vs
/// crate 7.9).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const fn threshold(lanes: usize) -> usize {
    lanes * CHUNK_LEN - 1
}

/// The largest message the lanes can take at all (chunk counters are 32-bit in [`Job`];
/// tests run the lanes up to here to cover deep trees).
const MAX_LANE_LEN: usize = 1 << 30;

/// Longest output one root compression gives.
const MAX_LANE_OUT: usize = 64;

/// What idle lanes read (a job has at most 16 blocks, so a call at most 16 steps).
static ZEROS: [u8; CHUNK_LEN] = [0; CHUNK_LEN];

/// `Job::dest` bit marking a root: the rest is the message index (else a CV-level index).
const ROOT_DEST: u32 = 1 << 31;

/// One node compression job: a chunk (up to 16 blocks) or a parent (one block). Kept small
/// (32 bytes): with 64-byte messages the per-job bookkeeping rivals the compression.
#[derive(Clone, Copy)]
struct Job<'a> {
    data: &'a [u8],
    /// Chunk index (below 2^20: see [`MAX_LANE_LEN`]), 0 for parents.
    counter: u32,
    /// `flags | start_flags << 8 | end_flags << 16`.
    flags: u32,
    /// Where the result goes: `ROOT_DEST | message` or an index into the next level.
    dest: u32,
}

impl Job<'_> {
    fn nblocks(&self) -> usize {
        self.data.len().div_ceil(BLOCK_LEN).max(1)
    }
}

/// Runs jobs through an `N`-lane kernel, refilling each lane as soon as its job ends.
struct Runner<const N: usize> {
    kernel: LanesKernel<N>,
    out: [[u32; 16]; N],
}

impl<const N: usize> Runner<N> {
    fn new(kernel: LanesKernel<N>) -> Self {
        Runner {
            kernel,
            out: [[0; 16]; N],
        }
    }

    /// Parent nodes: job `(i, dest)` compresses `level[i]` and `level[i + 1]` (`ROOT` when
    /// `dest` has `ROOT_DEST`). One block per job, so the lanes are simply refilled in groups
    /// of `N` with none of [`Runner::run`]'s per-job bookkeeping.
    fn parents(
        &mut self,
        level: &[[u8; 32]],
        jobs: &[(u32, u32)],
        mut finish: impl FnMut(u32, &[u32; 16]),
    ) {
        let Some(&(first, _)) = jobs.first() else {
            return;
        };
        let pair = |i: u32| -> &[u8; BLOCK_LEN] {
            level[i as usize..i as usize + 2]
                .as_flattened()
                .first_chunk()
                .expect("two CVs")
        };
        let mut st = LaneState::<'_, N> {
            cv: core::array::from_fn(|w| [IV[w]; N]),
            blocks: [&pair(first)[..]; N],
            last: [Some(pair(first)); N],
            pads: [[0; BLOCK_LEN]; N],
            left: [1; N],
            counter_lo: [0; N],
            counter_hi: [0; N],
            flags: [PARENT; N],
            start_flags: [0; N],
            end_flags: [0; N],
            last_len: [BLOCK_LEN as u32; N],
        };
        for group in jobs.chunks(N) {
            for (l, &(i, dest)) in group.iter().enumerate() {
                let p = pair(i);
                st.blocks[l] = p;
                st.last[l] = Some(p);
                st.end_flags[l] = if dest & ROOT_DEST != 0 { ROOT } else { 0 };
            }
            // Every lane ends: `cv` comes back as the IV.
            self.kernel.run(&mut st, 1, &mut self.out);
            for (l, &(_, dest)) in group.iter().enumerate() {
                finish(dest, &self.out[l]);
            }
        }
    }

    /// Compress every job; `finish(dest, words)` gets each job's 16 output words.
    fn run<'a>(&mut self, jobs: &[Job<'a>], mut finish: impl FnMut(u32, &[u32; 16])) {
        let mut st = LaneState::<'a, N> {
            cv: core::array::from_fn(|w| [IV[w]; N]),
            blocks: [&ZEROS[..]; N],
            last: [Some(ZEROS.first_chunk().expect("64 zeros")); N],
            pads: [[0; BLOCK_LEN]; N],
            left: [IDLE; N],
            counter_lo: [0; N],
            counter_hi: [0; N],
            flags: [0; N],
            start_flags: [0; N],
            end_flags: [0; N],
            last_len: [0; N],
        };
        let mut dests = [0u32; N];
        let mut jobs = jobs.iter();
        let mut assign = |st: &mut LaneState<'a, N>, dests: &mut [u32; N], l: usize| {
            let Some(job) = jobs.next() else {
                st.left[l] = IDLE;
                st.blocks[l] = &ZEROS[..];
                st.last[l] = ZEROS.first_chunk();
                return;
            };
            let n = job.nblocks();
            let tail = &job.data[(n - 1) * BLOCK_LEN..];
            st.blocks[l] = job.data;
            st.last[l] = tail.first_chunk::<BLOCK_LEN>();
            if st.last[l].is_none() {
                st.pads[l][..tail.len()].copy_from_slice(tail);
                st.pads[l][tail.len()..].fill(0);
            }
            st.left[l] = n as u32;
            st.counter_lo[l] = job.counter;
            st.flags[l] = job.flags & 0xff;
            st.start_flags[l] = job.flags >> 8 & 0xff;
            st.end_flags[l] = job.flags >> 16;
            st.last_len[l] = tail.len() as u32;
            dests[l] = job.dest;
        };
        for l in 0..N {
            assign(&mut st, &mut dests, l);
        }
        loop {
            let steps = st.left.iter().copied().min().unwrap_or(IDLE);
            if steps == IDLE {
                break;
            }
            self.kernel.run(&mut st, steps as usize, &mut self.out);
            st.start_flags = [0; N];
            for l in 0..N {
                if st.left[l] == steps {
                    finish(dests[l], &self.out[l]);
                    assign(&mut st, &mut dests, l);
                } else if st.left[l] != IDLE {
                    st.left[l] -= steps;
                    st.blocks[l] = &st.blocks[l][BLOCK_LEN * steps as usize..];
                }
            }
        }
    }
}

/// The `blake3` crate's output of `out_len` bytes for one message.
fn crate_hash(msg: &[u8], out_len: usize) -> Digest {
    let mut h = blake3::Hasher::new();
    h.update(msg);
    Digest::with_len(out_len, |out| h.finalize_xof().fill(out))
}

/// BLAKE3 (plain hash mode, `out_len` bytes of output) of every message, in order.
///
/// On x86-64, messages below [`threshold`] are hashed together in the widest lanes
/// `features` allows (AVX-512: 16, AVX2: 8; with neither, as `LANESUM_ISA=portable` forces,
/// the portable 8-lane code, so that it is exercised); longer messages and outputs over 64
/// bytes use the `blake3` crate. Elsewhere everything goes to the `blake3` crate, whose NEON
/// code beats the portable lanes.
pub(crate) fn hash_many<M: AsRef<[u8]>>(
    msgs: &[M],
    out_len: usize,
    features: Features,
) -> Vec<Digest> {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(t) = features.avx512() {
            return hash_many_lanes(msgs, out_len, super::x86_avx512::kernel(t), threshold(16));
        }
        if let Some(t) = features.avx2() {
            return hash_many_lanes(msgs, out_len, super::x86_avx2::kernel(t), threshold(8));
        }
        let portable = LanesKernel::<8>::new::<Portable>(());
        hash_many_lanes(msgs, out_len, portable, threshold(8))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (features, LanesKernel::<8>::new::<Portable>);
        msgs.iter()
            .map(|m| crate_hash(m.as_ref(), out_len))
            .collect()
    }
}

/// [`hash_many`] on one given lanes kernel.
///
/// Messages of at most `max_len` bytes (capped at [`MAX_LANE_LEN`]) go through the lanes.
pub(crate) fn hash_many_lanes<M: AsRef<[u8]>, const N: usize>(
    msgs: &[M],
    out_len: usize,
    kernel: LanesKernel<N>,
    max_len: usize,
) -> Vec<Digest> {
    let max_len = max_len.min(MAX_LANE_LEN);
    let mut results: Vec<Digest> = vec![Digest::from_bytes(&[]); msgs.len()];
    let mut small: Vec<u32> = Vec::with_capacity(msgs.len());
    for (i, m) in msgs.iter().map(AsRef::as_ref).enumerate() {
        if m.len() <= max_len && out_len <= MAX_LANE_OUT && i < ROOT_DEST as usize {
            small.push(i as u32);
        } else {
            results[i] = crate_hash(m, out_len);
        }
    }
    // Groups of about GROUP_CHUNKS chunks: the chaining values of a group stay small and
    // in cache (one big level array per batch cost page faults on every call).
    let mut runner = Runner::<N>::new(kernel);
    let mut rest = &small[..];
    while !rest.is_empty() {
        let mut chunks = 0;
        let mut n = 0;
        while n < rest.len() {
            let c = msgs[rest[n] as usize]
                .as_ref()
                .len()
                .div_ceil(CHUNK_LEN)
                .max(1);
            if n > 0 && chunks + c > GROUP_CHUNKS {
                break;
            }
            chunks += c;
            n += 1;
        }
        hash_group(msgs, &rest[..n], out_len, &mut runner, &mut results);
        rest = &rest[n..];
    }
    results
}

/// Chunks per group of messages hashed together (2 MiB of input, 64 KiB of CVs).
const GROUP_CHUNKS: usize = 2048;

/// Hash the messages `small` (indices into `msgs`, in increasing order) into `results`.
fn hash_group<M: AsRef<[u8]>, const N: usize>(
    msgs: &[M],
    small: &[u32],
    out_len: usize,
    runner: &mut Runner<N>,
    results: &mut [Digest],
) {
    let finish_root = |results: &mut [Digest], i: u32, w: &[u32; 16]| {
        // In place, whole words: a digest built aside and moved in stalled on store
        // forwarding (6% of the time at 1 KiB as a variable-length copy, 10% at 64 B as
        // a move).
        results[i as usize].set_le_words(w, out_len);
    };
    let finish_cv = |level: &mut [[u8; 32]], i: u32, w: &[u32; 16]| {
        for (b, x) in level[i as usize].chunks_exact_mut(4).zip(w) {
            b.copy_from_slice(&x.to_le_bytes());
        }
    };

    // Phase 1: chunks. Full chunks first (all 16 blocks: the lanes stay in step), then the
    // last chunks, longest first so that lanes taking jobs together tend to end together.
    // Chaining values of a multi-chunk message go to `level[offset..offset + count]`.
    let mut jobs: Vec<Job> = Vec::new();
    let mut tails: Vec<(u32, u32)> = Vec::new();
    let mut trees: Vec<(u32, u32, u32)> = Vec::new(); // (message, offset, count)
    let mut total = 0u32;
    for &i in small {
        let m = msgs[i as usize].as_ref();
        if m.len() <= CHUNK_LEN {
            tails.push((m.len() as u32, i));
            continue;
        }
        let count = m.len().div_ceil(CHUNK_LEN) as u32;
        for c in 0..(m.len() / CHUNK_LEN) as u32 {
            jobs.push(Job {
                data: &m[c as usize * CHUNK_LEN..][..CHUNK_LEN],
                counter: c,
                flags: (CHUNK_START << 8) | (CHUNK_END << 16),
                dest: total + c,
            });
        }
        if !m.len().is_multiple_of(CHUNK_LEN) {
            tails.push(((m.len() % CHUNK_LEN) as u32, i));
        }
        trees.push((i, total, count));
        total += count;
    }
    tails.sort_by_key(|&(len, _)| std::cmp::Reverse(len));
    for &(_, i) in &tails {
        let m = msgs[i as usize].as_ref();
        let job = if m.len() <= CHUNK_LEN {
            Job {
                data: m,
                counter: 0,
                flags: (CHUNK_START << 8) | ((CHUNK_END | ROOT) << 16),
                dest: ROOT_DEST | i,
            }
        } else {
            // `trees` is in message order.
            let t = trees[trees.partition_point(|t| t.0 < i)];
            let c = t.2 - 1;
            Job {
                data: &m[c as usize * CHUNK_LEN..],
                counter: c,
                flags: (CHUNK_START << 8) | (CHUNK_END << 16),
                dest: t.1 + c,
            }
        };
        jobs.push(job);
    }
    let mut level: Vec<[u8; 32]> = vec![[0; 32]; total as usize];
    runner.run(&jobs, |dest, w| {
        if dest & ROOT_DEST != 0 {
            finish_root(results, dest & !ROOT_DEST, w)
        } else {
            finish_cv(&mut level, dest, w)
        }
    });

    // Phase 2: parents, one level of every message per round: adjacent pairs merge, an odd
    // last node moves up as it is (BLAKE3's left-balanced tree).
    while !trees.is_empty() {
        let mut next: Vec<[u8; 32]> = Vec::with_capacity(level.len().div_ceil(2));
        let mut jobs: Vec<(u32, u32)> = Vec::with_capacity(level.len() / 2);
        for (i, off, n) in trees.iter_mut() {
            let base = next.len() as u32;
            for k in 0..*n / 2 {
                let dest = if *n == 2 { ROOT_DEST | *i } else { base + k };
                jobs.push((*off + 2 * k, dest));
            }
            next.resize(next.len() + (*n / 2) as usize, [0; 32]);
            if *n % 2 == 1 {
                next.push(level[(*off + *n - 1) as usize]);
            }
            *off = base;
            *n = n.div_ceil(2);
        }
        runner.parents(&level, &jobs, |dest, w| {
            if dest & ROOT_DEST != 0 {
                finish_root(results, dest & !ROOT_DEST, w)
            } else {
                finish_cv(&mut next, dest, w)
            }
        });
        level = next;
        trees.retain(|t| t.2 > 1);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lanes::SCHEDULE;
    use super::super::MSG_PERMUTATION;
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The lanes take messages up to here in the tests (deep trees, several groups).
    const TEST_MAX: usize = 64 * CHUNK_LEN;

    fn want(msg: &[u8], out_len: usize) -> Vec<u8> {
        let mut out = vec![0; out_len];
        blake3::Hasher::new()
            .update(msg)
            .finalize_xof()
            .fill(&mut out);
        out
    }

    fn input(len: usize, seed: usize) -> Vec<u8> {
        (0..len)
            .map(|i| ((i * 7 + seed * 13) % 251) as u8)
            .collect()
    }

    /// Every kernel `features` and the CPU allow, by name, as a `hash_many` on it.
    type HashFn = Box<dyn Fn(&[&[u8]], usize) -> Vec<Digest>>;
    fn paths() -> Vec<(&'static str, HashFn)> {
        let f = crate::isa::active();
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut v: Vec<(&'static str, HashFn)> = vec![
            ("auto", Box::new(move |m: &[&[u8]], o| hash_many(m, o, f))),
            (
                "portable8",
                Box::new(|m: &[&[u8]], o| {
                    hash_many_lanes(m, o, LanesKernel::<8>::new::<Portable>(()), TEST_MAX)
                }),
            ),
            (
                "portable3",
                Box::new(|m: &[&[u8]], o| {
                    hash_many_lanes(m, o, LanesKernel::<3>::new::<Portable>(()), TEST_MAX)
                }),
            ),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(k) = crate::isa::Avx512::detect().map(super::super::x86_avx512::kernel) {
                v.push((
                    "avx512",
                    Box::new(move |m: &[&[u8]], o| hash_many_lanes(m, o, k, TEST_MAX)),
                ));
            }
            if let Some(k) = crate::isa::Avx2::detect().map(super::super::x86_avx2::kernel) {
                v.push((
                    "avx2",
                    Box::new(move |m: &[&[u8]], o| hash_many_lanes(m, o, k, TEST_MAX)),
                ));
            }
        }
        v
    }

    fn check(name: &str, f: &HashFn, msgs: &[Vec<u8>], out_len: usize) {
        let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        let got = f(&refs, out_len);
        assert_eq!(got.len(), msgs.len());
        for (i, (m, d)) in msgs.iter().zip(&got).enumerate() {
            assert_eq!(
                d.as_bytes(),
                &want(m, out_len)[..],
                "{name}: message {i} of {}, len {}, out {out_len}",
                msgs.len(),
                m.len()
            );
        }
    }

    #[test]
    fn schedule_matches_permutation() {
        let mut m: Vec<usize> = (0..16).collect();
        for s in &SCHEDULE {
            assert_eq!(&m[..], &s[..]);
            m = MSG_PERMUTATION.iter().map(|&i| m[i]).collect();
        }
    }

    #[test]
    fn empty_batch_and_empty_messages() {
        for (name, f) in paths() {
            assert!(f(&[], 32).is_empty());
            for n in [1, 2, 17, 33] {
                check(name, &f, &vec![Vec::new(); n], 32);
            }
        }
    }

    /// Every length 0..=300 in every lane position (and the positions after a wrap).
    #[test]
    fn every_short_length_in_every_lane_position() {
        for (name, f) in paths() {
            for len in 0..=300 {
                for pos in 0..17 {
                    let msgs: Vec<Vec<u8>> = (0..=pos)
                        .map(|i| input(if i == pos { len } else { 1000 + 37 * i }, i))
                        .collect();
                    check(name, &f, &msgs, 32);
                }
            }
        }
    }

    /// Every length 0..=3*1024+1 in one batch, and reversed, at several output lengths.
    #[test]
    fn every_length_to_three_chunks_in_one_batch() {
        let msgs: Vec<Vec<u8>> = (0..=3 * CHUNK_LEN + 1).map(|l| input(l, l)).collect();
        let rev: Vec<Vec<u8>> = msgs.iter().rev().cloned().collect();
        for (name, f) in paths() {
            for out_len in [1, 32, 64, 65, 100] {
                check(name, &f, &msgs, out_len);
            }
            check(name, &f, &rev, 32);
        }
    }

    /// Ragged and random batches: up to the threshold, around it and beyond.
    #[test]
    fn random_batches() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0xb1a4e3);
        for round in 0..40 {
            let n = rng.random_range(1..70);
            let max = [64, 1100, 5000, 20_000, TEST_MAX, 3 * TEST_MAX][round % 6];
            let msgs: Vec<Vec<u8>> = (0..n)
                .map(|i| {
                    let len = match rng.random_range(0..8) {
                        0 => (rng.random_range(0..=max / CHUNK_LEN)) * CHUNK_LEN,
                        1 => TEST_MAX + rng.random_range(0..3) - 1,
                        _ => rng.random_range(0..=max),
                    };
                    input(len, i + round)
                })
                .collect();
            let out_len = [32, 1, 64, 65, 100, 32][round % 6];
            for (name, f) in paths() {
                check(name, &f, &msgs, out_len);
            }
        }
    }

    /// Batches larger than one group of `GROUP_CHUNKS` chunks, mixed lengths.
    #[test]
    fn several_groups() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x3_0000);
        let msgs: Vec<Vec<u8>> = (0..800)
            .map(|i| input(rng.random_range(0..=12 * CHUNK_LEN), i))
            .collect();
        assert!(msgs.iter().map(|m| m.len()).sum::<usize>() > 2 * GROUP_CHUNKS * CHUNK_LEN);
        for (name, f) in paths() {
            check(name, &f, &msgs, 32);
        }
    }

    /// Power-of-two chunk counts and their neighbours build every tree shape.
    #[test]
    fn tree_shapes() {
        let mut lens = Vec::new();
        for c in [1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64] {
            for d in [-65isize, -64, -1, 0, 1, 64] {
                let l = (c * CHUNK_LEN).wrapping_add_signed(d);
                if l <= TEST_MAX + 1 {
                    lens.push(l);
                }
            }
        }
        let msgs: Vec<Vec<u8>> = lens.iter().enumerate().map(|(i, &l)| input(l, i)).collect();
        for (name, f) in paths() {
            check(name, &f, &msgs, 32);
            for m in &msgs {
                check(name, &f, std::slice::from_ref(m), 64);
            }
        }
    }
}

/// Throughput, single-threaded, in one process:
/// `cargo test --release -p lanesum --lib blake3::many::bench -- --ignored --nocapture`.
#[cfg(test)]
mod bench {
    use super::*;
    use std::time::Instant;

    /// Best GB/s of `f` over many ~3 ms windows (the machine is shared: the best window
    /// is the one that had a core to itself).
    pub(super) fn gbps(bytes: usize, mut f: impl FnMut()) -> f64 {
        let mut reps = 1;
        loop {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            if t.elapsed().as_secs_f64() > 0.003 {
                break;
            }
            reps *= 2;
        }
        (0..60)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..reps {
                    f();
                }
                (bytes * reps) as f64 / t.elapsed().as_secs_f64() / 1e9
            })
            .fold(0.0, f64::max)
    }

    /// The AVX-512 kernel alone: 16 lanes x 16 full blocks per call, no scheduling.
    #[cfg(target_arch = "x86_64")]
    fn kernel_only() -> Option<f64> {
        let k = super::super::x86_avx512::kernel(crate::isa::Avx512::detect()?);
        let data = vec![7u8; 16 * CHUNK_LEN];
        let mut st = LaneState::<16> {
            cv: core::array::from_fn(|w| [IV[w]; 16]),
            blocks: core::array::from_fn(|l| &data[l * CHUNK_LEN..][..CHUNK_LEN]),
            last: core::array::from_fn(|l| data[l * CHUNK_LEN + 960..].first_chunk()),
            pads: [[0; BLOCK_LEN]; 16],
            left: [16; 16],
            counter_lo: [0; 16],
            counter_hi: [0; 16],
            flags: [0; 16],
            start_flags: [CHUNK_START; 16],
            end_flags: [CHUNK_END; 16],
            last_len: [64; 16],
        };
        let mut out = [[0u32; 16]; 16];
        Some(gbps(16 * CHUNK_LEN, || {
            k.run(&mut st, 16, &mut out);
            std::hint::black_box(&out);
        }))
    }

    #[test]
    #[ignore]
    #[cfg_attr(not(target_arch = "x86_64"), allow(clippy::vec_init_then_push))]
    fn bench() {
        #[cfg(target_arch = "x86_64")]
        if let Some(g) = kernel_only() {
            println!("avx512 kernel alone (16 x 1 KiB, no scheduling): {g:.2} GB/s");
        }
        type Path = (&'static str, Box<dyn Fn(&[&[u8]]) -> Vec<Digest>>);
        let mut paths: Vec<Path> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(k) = crate::isa::Avx512::detect().map(super::super::x86_avx512::kernel) {
                paths.push((
                    "avx512x16",
                    Box::new(move |m| hash_many_lanes(m, 32, k, usize::MAX)),
                ));
            }
            if let Some(k) = crate::isa::Avx2::detect().map(super::super::x86_avx2::kernel) {
                paths.push((
                    "avx2x8",
                    Box::new(move |m| hash_many_lanes(m, 32, k, usize::MAX)),
                ));
            }
        }
        paths.push((
            "portable8",
            Box::new(|m| hash_many_lanes(m, 32, LanesKernel::<8>::new::<Portable>(()), usize::MAX)),
        ));
        print!("{:>8} {:>5} {:>9}", "size", "msgs", "crate x1");
        for (name, _) in &paths {
            print!(" {name:>10}");
        }
        println!("   (GB/s per core)");
        for (size, n) in [
            (64, 64),
            (1024, 64),
            (4096, 64),
            (16 << 10, 64),
            (64 << 10, 64),
            (8 << 10, 64),
            (12 << 10, 64),
            (1 << 20, 4),
            (256 << 10, 8),
        ] {
            let msgs: Vec<Vec<u8>> = (0..n)
                .map(|i| (0..size).map(|j| (i * 31 + j * 7) as u8).collect())
                .collect();
            let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
            let bytes = size * n;
            let base = gbps(bytes, || {
                for m in &refs {
                    std::hint::black_box(blake3::hash(m));
                }
            });
            print!("{size:>8} {n:>5} {base:>9.2}");
            for (_, p) in &paths {
                let g = gbps(bytes, || {
                    std::hint::black_box(p(&refs));
                });
                print!(" {g:>10.2}");
            }
            println!();
        }
    }
}
