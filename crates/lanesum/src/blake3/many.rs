//! BLAKE3 of many small messages at once: the chunks of *different* messages share the
//! SIMD lanes.
//!
//! The `blake3` crate hashes one message at a time; its many-chunk SIMD kernel only helps
//! a message with many chunks, so files of a few KiB run at scalar speed. Here every lane
//! takes one job — a chunk of any message, or later a parent node — and a lane whose job
//! ends takes the next one at once, so messages of mixed lengths keep all lanes busy.
//!
//! Two phases:
//! 1. every chunk of every message, full 1 KiB chunks first and then the short tail chunks
//!    grouped by block count (so the lanes of one kernel call tend to end together);
//! 2. the parent nodes of multi-chunk messages, one tree level of all messages per round
//!    (adjacent pairs merged, an odd last node carried up: BLAKE3's left-balanced tree).
//!
//! A message's root node (its only chunk, or its top parent) is compressed with `ROOT`; the
//! kernel returns all 16 output words of a lane's final block, so outputs up to 64 bytes
//! come from that one compression. Longer outputs and messages above [`THRESHOLD`] go to the
//! `blake3` crate (whose own SIMD already fills its lanes from one long message).

use super::{BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV, MSG_PERMUTATION, PARENT, ROOT};
use crate::isa::Features;
use crate::Digest;

/// Messages longer than this go to the `blake3` crate one at a time.
pub(crate) const THRESHOLD: usize = 64 * 1024;

/// Longest output one root compression gives.
const MAX_LANE_OUT: usize = 64;

/// Message word order of each of the 7 rounds (round 0 is the identity).
pub(crate) const SCHEDULE: [[usize; 16]; 7] = {
    let mut s = [[0usize; 16]; 7];
    let mut i = 0;
    while i < 16 {
        s[0][i] = i;
        i += 1;
    }
    let mut r = 1;
    while r < 7 {
        let mut i = 0;
        while i < 16 {
            s[r][i] = s[r - 1][MSG_PERMUTATION[i]];
            i += 1;
        }
        r += 1;
    }
    s
};

/// One kernel call: `steps` compressions in each of `N` lanes.
///
/// Within a call no lane finishes a job before the last step, so every block before the last
/// is a full 64-byte block of the lane's data: block `s < steps - 1` of lane `l` is
/// `blocks[l][64 * s..][..64]` and the last step's block is `last[l]` (zero-padded past
/// `last_len[l]`). Idle lanes repeat another lane's inputs.
pub(crate) struct Plan<'a, const N: usize> {
    pub(crate) steps: usize,
    /// Lane data, at least `64 * (steps - 1)` bytes.
    pub(crate) blocks: [&'a [u8]; N],
    /// The block of the last step.
    pub(crate) last: [&'a [u8; BLOCK_LEN]; N],
    pub(crate) counter_lo: [u32; N],
    pub(crate) counter_hi: [u32; N],
    /// Flags of every step.
    pub(crate) flags: [u32; N],
    /// Flags added in the first step (`CHUNK_START` when the lane's job begins here).
    pub(crate) start_flags: [u32; N],
    /// Flags added in the last step (`CHUNK_END`, `ROOT` when the lane's job ends here).
    pub(crate) end_flags: [u32; N],
    /// `block_len` of the last step (all earlier blocks are full).
    pub(crate) last_len: [u32; N],
}

impl<const N: usize> Plan<'_, N> {
    /// The bounds a kernel relies on; checked once per call.
    pub(crate) fn check(&self) {
        assert!(self.steps >= 1);
        let need = BLOCK_LEN * (self.steps - 1);
        assert!(self.blocks.iter().all(|b| b.len() >= need));
    }
}

/// A lanes kernel: `cv` (word-major: `cv[w][l]`) is the chaining value in and out; after the
/// call `hi[w][l]` holds output words `8 + w` of each lane's last compression (the first 8
/// are the new `cv`), which extended root output needs.
pub(crate) type LanesFn<const N: usize> =
    fn(cv: &mut [[u32; N]; 8], hi: &mut [[u32; N]; 8], plan: &Plan<'_, N>);

/// Where a finished job's result goes.
#[derive(Clone, Copy)]
enum Dest {
    /// Chaining value number `i` of the current tree level.
    Cv(usize),
    /// Root output of message `i`.
    Root(usize),
}

/// One node compression job: a chunk (up to 16 blocks) or a parent (one block).
#[derive(Clone, Copy)]
struct Job<'a> {
    data: &'a [u8],
    counter: u64,
    flags: u32,
    start_flags: u32,
    end_flags: u32,
    dest: Dest,
}

impl Job<'_> {
    fn nblocks(&self) -> usize {
        self.data.len().div_ceil(BLOCK_LEN).max(1)
    }
}

/// A lane's job and how many of its blocks are done.
#[derive(Clone, Copy)]
struct Lane<'a> {
    job: Job<'a>,
    done: usize,
}

/// Runs jobs through an `N`-lane kernel, refilling lanes as they finish.
struct Runner<const N: usize> {
    kernel: LanesFn<N>,
    cv: [[u32; N]; 8],
    hi: [[u32; N]; 8],
    pads: [[u8; BLOCK_LEN]; N],
}

impl<const N: usize> Runner<N> {
    fn new(kernel: LanesFn<N>) -> Self {
        Runner {
            kernel,
            cv: [[0; N]; 8],
            hi: [[0; N]; 8],
            pads: [[0; BLOCK_LEN]; N],
        }
    }

    /// Compress every job; `finish(dest, words)` gets each job's 16 output words (only the
    /// first 8 are meaningful unless the job's last block carried `ROOT`).
    fn run<'a>(
        &mut self,
        mut jobs: impl Iterator<Item = Job<'a>>,
        mut finish: impl FnMut(Dest, &[u32; 16]),
    ) {
        let mut lanes: [Option<Lane<'a>>; N] = [None; N];
        let mut take = |lane: &mut Option<Lane<'a>>, cv: &mut [[u32; N]; 8], l: usize| {
            *lane = jobs.next().map(|job| Lane { job, done: 0 });
            if lane.is_some() {
                for (w, row) in cv.iter_mut().enumerate() {
                    row[l] = IV[w];
                }
            }
        };
        for (l, lane) in lanes.iter_mut().enumerate() {
            take(lane, &mut self.cv, l);
        }
        while let Some(first) = lanes.iter().flatten().next().copied() {
            let steps = lanes
                .iter()
                .flatten()
                .map(|ln| ln.job.nblocks() - ln.done)
                .min()
                .expect("an active lane");
            // Padded last blocks of the lanes that end in this call.
            for (lane, pad) in lanes.iter().zip(self.pads.iter_mut()) {
                if let Some(ln) = lane {
                    let n = ln.job.nblocks();
                    let tail = &ln.job.data[(n - 1) * BLOCK_LEN..];
                    if n - ln.done == steps && tail.len() < BLOCK_LEN {
                        pad[..tail.len()].copy_from_slice(tail);
                        pad[tail.len()..].fill(0);
                    }
                }
            }
            let plan = plan(&self.pads, &lanes, first, steps);
            (self.kernel)(&mut self.cv, &mut self.hi, &plan);
            for (l, lane) in lanes.iter_mut().enumerate() {
                let Some(ln) = lane else { continue };
                ln.done += steps;
                if ln.done == ln.job.nblocks() {
                    let mut words = [0u32; 16];
                    for w in 0..8 {
                        words[w] = self.cv[w][l];
                        words[w + 8] = self.hi[w][l];
                    }
                    finish(ln.job.dest, &words);
                    take(lane, &mut self.cv, l);
                }
            }
        }
    }
}

/// The kernel inputs for the next `steps` blocks of every lane (`idle` fills empty lanes).
fn plan<'p, const N: usize>(
    pads: &'p [[u8; BLOCK_LEN]; N],
    lanes: &[Option<Lane<'p>>; N],
    idle: Lane<'p>,
    steps: usize,
) -> Plan<'p, N> {
    let mut plan = Plan {
        steps,
        blocks: [&[][..]; N],
        last: [&pads[0]; N],
        counter_lo: [0; N],
        counter_hi: [0; N],
        flags: [0; N],
        start_flags: [0; N],
        end_flags: [0; N],
        last_len: [0; N],
    };
    for (l, lane) in lanes.iter().enumerate() {
        let ln = lane.as_ref().unwrap_or(&idle);
        let job = &ln.job;
        let n = job.nblocks();
        let ends = n - ln.done == steps;
        let last_block = ln.done + steps - 1;
        let tail = &job.data[(last_block * BLOCK_LEN).min(job.data.len())..];
        plan.blocks[l] = &job.data[(ln.done * BLOCK_LEN).min(job.data.len())..];
        plan.last[l] = match tail.first_chunk::<BLOCK_LEN>() {
            Some(b) => b,
            // Only the lane's own tail was copied, and only if it ends here; an idle
            // lane repeating it may see any pad, which is fine.
            None => &pads[if lane.is_some() { l } else { 0 }],
        };
        plan.counter_lo[l] = job.counter as u32;
        plan.counter_hi[l] = (job.counter >> 32) as u32;
        plan.flags[l] = job.flags;
        plan.start_flags[l] = if ln.done == 0 { job.start_flags } else { 0 };
        plan.end_flags[l] = if ends { job.end_flags } else { 0 };
        plan.last_len[l] = tail.len().min(BLOCK_LEN) as u32;
    }
    plan
}

/// The `blake3` crate's output of `out_len` bytes for one message.
fn crate_hash(msg: &[u8], out_len: usize) -> Digest {
    let mut h = blake3::Hasher::new();
    h.update(msg);
    Digest::with_len(out_len, |out| h.finalize_xof().fill(out))
}

/// BLAKE3 (plain hash mode, `out_len` bytes of output) of every message, in order.
///
/// Messages up to [`THRESHOLD`] bytes are hashed together in the widest lanes `features`
/// allows (AVX-512: 16, AVX2: 8, otherwise the portable 8-lane code); longer messages and
/// outputs over 64 bytes use the `blake3` crate.
pub(crate) fn hash_many(msgs: &[&[u8]], out_len: usize, features: Features) -> Vec<Digest> {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(k) = super::x86_avx512::kernel(features) {
            return hash_many_lanes(msgs, out_len, k);
        }
        if let Some(k) = super::x86_avx2::kernel(features) {
            return hash_many_lanes(msgs, out_len, k);
        }
    }
    let _ = features;
    hash_many_lanes::<8>(msgs, out_len, portable_lanes::<8>)
}

/// [`hash_many`] on one given lanes kernel.
pub(crate) fn hash_many_lanes<const N: usize>(
    msgs: &[&[u8]],
    out_len: usize,
    kernel: LanesFn<N>,
) -> Vec<Digest> {
    let in_lanes = |m: &[u8]| m.len() <= THRESHOLD && out_len <= MAX_LANE_OUT;
    let mut roots: Vec<[u32; 16]> = vec![[0; 16]; msgs.len()];

    // Chaining values of the current tree level: message i's nodes are
    // `level[offset[i]..offset[i] + count[i]]` (count 0 for single-chunk messages).
    let mut offset = vec![0usize; msgs.len()];
    let mut count = vec![0usize; msgs.len()];
    let mut total = 0;
    for (i, m) in msgs.iter().enumerate() {
        if in_lanes(m) && m.len() > CHUNK_LEN {
            offset[i] = total;
            count[i] = m.len().div_ceil(CHUNK_LEN);
            total += count[i];
        }
    }
    let mut level: Vec<[u8; 32]> = vec![[0; 32]; total];

    let mut runner = Runner::<N>::new(kernel);
    let store =
        |level: &mut [[u8; 32]], roots: &mut [[u32; 16]], dest: Dest, w: &[u32; 16]| match dest {
            Dest::Cv(i) => {
                for (b, x) in level[i].chunks_exact_mut(4).zip(w) {
                    b.copy_from_slice(&x.to_le_bytes());
                }
            }
            Dest::Root(i) => roots[i] = *w,
        };

    // Phase 1: chunks. Full chunks first, then tails grouped by block count, longest first.
    let chunk_job = |i: usize, c: usize| {
        let m = msgs[i];
        let data = &m[c * CHUNK_LEN..m.len().min((c + 1) * CHUNK_LEN)];
        let single = m.len() <= CHUNK_LEN;
        Job {
            data,
            counter: c as u64,
            flags: 0,
            start_flags: CHUNK_START,
            end_flags: CHUNK_END | if single { ROOT } else { 0 },
            dest: if single {
                Dest::Root(i)
            } else {
                Dest::Cv(offset[i] + c)
            },
        }
    };
    let small = || (0..msgs.len()).filter(|&i| in_lanes(msgs[i]));
    let full = small().flat_map(|i| {
        let m = msgs[i];
        // A full last chunk counts as a tail when it is the message's only chunk.
        let nfull = if m.len() <= CHUNK_LEN {
            0
        } else {
            m.len() / CHUNK_LEN
        };
        (0..nfull).map(move |c| (i, c))
    });
    let mut tails: Vec<(usize, usize)> = small()
        .filter_map(|i| {
            let m = msgs[i];
            if m.len() <= CHUNK_LEN {
                Some((i, 0))
            } else if m.len() % CHUNK_LEN != 0 {
                Some((i, m.len() / CHUNK_LEN))
            } else {
                None
            }
        })
        .collect();
    tails.sort_by_key(|&(i, c)| std::cmp::Reverse(chunk_job(i, c).nblocks()));
    runner.run(
        full.chain(tails.iter().copied())
            .map(|(i, c)| chunk_job(i, c)),
        |dest, w| store(&mut level, &mut roots, dest, w),
    );

    // Phase 2: parents, one level of every message per round.
    let mut busy: Vec<usize> = (0..msgs.len()).filter(|&i| count[i] > 1).collect();
    while !busy.is_empty() {
        let mut next_offset = 0;
        let mut next: Vec<[u8; 32]> = Vec::with_capacity(level.len().div_ceil(2));
        let mut jobs = Vec::new();
        for &i in &busy {
            let (off, n) = (offset[i], count[i]);
            for k in 0..n / 2 {
                jobs.push(Job {
                    data: level[off + 2 * k..off + 2 * k + 2].as_flattened(),
                    counter: 0,
                    flags: PARENT,
                    start_flags: 0,
                    end_flags: if n == 2 { ROOT } else { 0 },
                    dest: if n == 2 {
                        Dest::Root(i)
                    } else {
                        Dest::Cv(next_offset + k)
                    },
                });
            }
            next.resize(next_offset + n / 2, [0; 32]);
            if n % 2 == 1 {
                next.push(level[off + n - 1]);
            }
            offset[i] = next_offset;
            count[i] = n.div_ceil(2);
            next_offset += count[i];
        }
        runner.run(jobs.into_iter(), |dest, w| {
            store(&mut next, &mut roots, dest, w)
        });
        level = next;
        busy.retain(|&i| count[i] > 1);
    }

    msgs.iter()
        .zip(&roots)
        .map(|(m, root)| {
            if in_lanes(m) {
                Digest::with_len(out_len, |out| {
                    for (b, w) in out.chunks_mut(4).zip(root) {
                        b.copy_from_slice(&w.to_le_bytes()[..b.len()]);
                    }
                })
            } else {
                crate_hash(m, out_len)
            }
        })
        .collect()
}

/// Portable lanes: plain arrays of `N` words per state word, which LLVM vectorizes with
/// whatever the baseline target has (SSE2 on x86-64, NEON on aarch64).
pub(crate) fn portable_lanes<const N: usize>(
    cv: &mut [[u32; N]; 8],
    hi: &mut [[u32; N]; 8],
    plan: &Plan<'_, N>,
) {
    plan.check();
    type Row<const N: usize> = [u32; N];
    fn g<const N: usize>(v: &mut [Row<N>; 16], [a, b, c, d]: [usize; 4], x: &Row<N>, y: &Row<N>) {
        for l in 0..N {
            v[a][l] = v[a][l].wrapping_add(v[b][l]).wrapping_add(x[l]);
            v[d][l] = (v[d][l] ^ v[a][l]).rotate_right(16);
            v[c][l] = v[c][l].wrapping_add(v[d][l]);
            v[b][l] = (v[b][l] ^ v[c][l]).rotate_right(12);
            v[a][l] = v[a][l].wrapping_add(v[b][l]).wrapping_add(y[l]);
            v[d][l] = (v[d][l] ^ v[a][l]).rotate_right(8);
            v[c][l] = v[c][l].wrapping_add(v[d][l]);
            v[b][l] = (v[b][l] ^ v[c][l]).rotate_right(7);
        }
    }
    const GS: [[usize; 4]; 8] = [
        [0, 4, 8, 12],
        [1, 5, 9, 13],
        [2, 6, 10, 14],
        [3, 7, 11, 15],
        [0, 5, 10, 15],
        [1, 6, 11, 12],
        [2, 7, 8, 13],
        [3, 4, 9, 14],
    ];
    for s in 0..plan.steps {
        let last = s + 1 == plan.steps;
        let mut m = [[0u32; N]; 16];
        for l in 0..N {
            let block: &[u8] = if last {
                plan.last[l]
            } else {
                &plan.blocks[l][BLOCK_LEN * s..BLOCK_LEN * (s + 1)]
            };
            for (w, bytes) in block.chunks_exact(4).enumerate() {
                m[w][l] = u32::from_le_bytes(bytes.try_into().unwrap());
            }
        }
        let mut v = [[0u32; N]; 16];
        v[..8].copy_from_slice(&cv[..]);
        for w in 0..4 {
            v[8 + w] = [IV[w]; N];
        }
        v[12] = plan.counter_lo;
        v[13] = plan.counter_hi;
        for l in 0..N {
            v[14][l] = if last {
                plan.last_len[l]
            } else {
                BLOCK_LEN as u32
            };
            v[15][l] = plan.flags[l]
                | if s == 0 { plan.start_flags[l] } else { 0 }
                | if last { plan.end_flags[l] } else { 0 };
        }
        for sched in &SCHEDULE {
            for (k, gs) in GS.iter().enumerate() {
                g(&mut v, *gs, &m[sched[2 * k]], &m[sched[2 * k + 1]]);
            }
        }
        for w in 0..8 {
            for l in 0..N {
                if last {
                    hi[w][l] = v[w + 8][l] ^ cv[w][l];
                }
                cv[w][l] = v[w][l] ^ v[w + 8][l];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

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
        let mut v: Vec<(&'static str, HashFn)> = vec![
            ("auto", Box::new(move |m: &[&[u8]], o| hash_many(m, o, f))),
            (
                "portable8",
                Box::new(|m: &[&[u8]], o| hash_many_lanes::<8>(m, o, portable_lanes::<8>)),
            ),
            (
                "portable3",
                Box::new(|m: &[&[u8]], o| hash_many_lanes::<3>(m, o, portable_lanes::<3>)),
            ),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(k) = super::super::x86_avx512::kernel(f) {
                v.push((
                    "avx512",
                    Box::new(move |m: &[&[u8]], o| hash_many_lanes(m, o, k)),
                ));
            }
            if let Some(k) = super::super::x86_avx2::kernel(f) {
                v.push((
                    "avx2",
                    Box::new(move |m: &[&[u8]], o| hash_many_lanes(m, o, k)),
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
            let max = [64, 1100, 5000, 20_000, THRESHOLD, 3 * THRESHOLD][round % 6];
            let msgs: Vec<Vec<u8>> = (0..n)
                .map(|i| {
                    let len = match rng.random_range(0..8) {
                        0 => (rng.random_range(0..=max / CHUNK_LEN)) * CHUNK_LEN,
                        1 => THRESHOLD + rng.random_range(0..3) - 1,
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

    /// Power-of-two chunk counts and their neighbours build every tree shape.
    #[test]
    fn tree_shapes() {
        let mut lens = Vec::new();
        for c in [1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64] {
            for d in [-65isize, -64, -1, 0, 1, 64] {
                let l = (c * CHUNK_LEN).wrapping_add_signed(d);
                if l <= THRESHOLD + 1 {
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
