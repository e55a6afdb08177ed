//! SHA-3 and SHAKE of many messages at once: every message is a sponge, and the blocks of
//! different sponges share the SIMD lanes.
//!
//! Absorbing is a list of jobs (a sponge and some whole blocks of its input), longest
//! first; each lane takes the next job as soon as its own ends, so ragged lengths keep
//! the lanes busy. A job's blocks are read in place; only a partial block is copied into
//! its sponge's buffer. Finishing pads every sponge's buffer into one last block (a job
//! of one block each) and squeezes the digest from the state: one rate of output comes
//! with the last absorption, longer SHAKE outputs permute once more per rate.

use super::lanes::KeccakLanes;
use super::portable::{pad_block, squeeze};
use crate::{Algorithm, Digest};

/// What tells the SHA-3 and SHAKE functions apart: rate, padding and output length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    /// Bytes absorbed per permutation.
    pub rate: usize,
    /// The domain bits and the first padding bit: 0x06 for SHA-3, 0x1F for SHAKE.
    pub domain: u8,
    /// Output bytes.
    pub out: usize,
}

impl Params {
    /// `alg`'s parameters, or `None` if it is not SHA-3 or SHAKE.
    pub(crate) fn of(alg: Algorithm) -> Option<Params> {
        let (rate, domain) = match alg {
            Algorithm::Sha3_224 => (144, 0x06),
            Algorithm::Sha3_256 => (136, 0x06),
            Algorithm::Sha3_384 => (104, 0x06),
            Algorithm::Sha3_512 => (72, 0x06),
            Algorithm::Shake128(_) => (168, 0x1f),
            Algorithm::Shake256(_) => (136, 0x1f),
            _ => return None,
        };
        Some(Params {
            rate,
            domain,
            out: alg.digest_len(),
        })
    }
}

/// One message's sponge between absorptions.
#[derive(Clone)]
pub(crate) struct Sponge {
    state: [u64; 25],
    /// Input not yet absorbed: less than a block.
    buf: [u8; 200],
    len: usize,
}

impl Default for Sponge {
    fn default() -> Self {
        Sponge {
            state: [0; 25],
            buf: [0; 200],
            len: 0,
        }
    }
}

/// Whole blocks of one sponge's input: `nblocks` blocks from `data`.
#[derive(Clone, Copy)]
struct Job<'a> {
    sponge: usize,
    data: &'a [u8],
    nblocks: usize,
}

/// Absorb `chunks[i]` into `sponges[i]` for every `i`.
pub(crate) fn absorb<const N: usize>(
    k: KeccakLanes<N>,
    rate: usize,
    sponges: &mut [Sponge],
    chunks: &[&[u8]],
) {
    assert_eq!(sponges.len(), chunks.len());
    // First the buffers that these chunks complete, one block each (copied: a buffer is
    // part of the sponge the job writes).
    let mut topped: Vec<(usize, [u8; 200])> = Vec::new();
    let mut rests: Vec<&[u8]> = Vec::with_capacity(chunks.len());
    for (i, (s, &c)) in sponges.iter_mut().zip(chunks).enumerate() {
        let mut c = c;
        if s.len > 0 && !c.is_empty() {
            let take = (rate - s.len).min(c.len());
            s.buf[s.len..s.len + take].copy_from_slice(&c[..take]);
            s.len += take;
            c = &c[take..];
            if s.len == rate {
                topped.push((i, s.buf));
                s.len = 0;
            }
        }
        rests.push(c);
    }
    let jobs: Vec<Job<'_>> = topped
        .iter()
        .map(|(i, block)| Job {
            sponge: *i,
            data: &block[..rate],
            nblocks: 1,
        })
        .collect();
    run(k, rate, sponges, jobs);
    // Then every chunk's whole blocks, read in place; what is left goes to the buffer.
    let mut jobs = Vec::new();
    for (i, (s, c)) in sponges.iter_mut().zip(rests).enumerate() {
        let whole = c.len() / rate;
        if whole > 0 {
            jobs.push(Job {
                sponge: i,
                data: c,
                nblocks: whole,
            });
        }
        let tail = &c[whole * rate..];
        if !tail.is_empty() {
            s.buf[..tail.len()].copy_from_slice(tail);
            s.len = tail.len();
        }
    }
    run(k, rate, sponges, jobs);
}

/// Pad, absorb the last blocks and squeeze every sponge's digest.
pub(crate) fn finalize<const N: usize>(
    k: KeccakLanes<N>,
    p: Params,
    sponges: &mut [Sponge],
) -> Vec<Digest> {
    let rate = p.rate;
    let lasts: Vec<[u8; 200]> = sponges
        .iter()
        .map(|s| {
            let mut b = [0u8; 200];
            pad_block(&mut b[..rate], &s.buf[..s.len], p.domain);
            b
        })
        .collect();
    let jobs = lasts
        .iter()
        .enumerate()
        .map(|(i, b)| Job {
            sponge: i,
            data: &b[..rate],
            nblocks: 1,
        })
        .collect();
    run(k, rate, sponges, jobs);
    sponges
        .iter_mut()
        .map(|s| {
            s.len = 0;
            squeeze(&mut s.state, rate, p.out)
        })
        .collect()
}

/// Run `jobs` through the `N` lanes.
///
/// With more jobs than lanes and none longer than its share, McNaughton's wrap-around
/// rule keeps every lane busy to the end: the jobs are laid end to end along the lanes,
/// `span` steps each, and a job cut at a lane's end runs its first blocks at the start of
/// the next lane and its last ones at the end of this one (never at the same time, as it
/// is no longer than `span`). So 5 equal messages on 4 lanes take 5/4 of one message's
/// time, not twice it. Otherwise, longest first, each lane refilled when its job ends.
fn run<const N: usize>(
    k: KeccakLanes<N>,
    rate: usize,
    sponges: &mut [Sponge],
    mut jobs: Vec<Job<'_>>,
) {
    if jobs.is_empty() {
        return;
    }
    jobs.sort_unstable_by_key(|j| std::cmp::Reverse(j.nblocks));
    let span = jobs.iter().map(|j| j.nblocks).sum::<usize>().div_ceil(N);
    if jobs.len() <= N || jobs[0].nblocks > span {
        let mut queue = jobs.into_iter();
        return execute(k, rate, sponges, |_| queue.next());
    }
    let mut plan: [std::collections::VecDeque<Job<'_>>; N] =
        core::array::from_fn(|_| Default::default());
    let (mut lane, mut t) = (0, 0);
    for mut j in jobs {
        // The job's last blocks end this lane; its first ones start the next.
        let tail = (span - t).min(j.nblocks);
        let head = j.nblocks - tail;
        if head > 0 {
            plan[lane + 1].push_back(Job { nblocks: head, ..j });
        }
        j.data = &j.data[head * rate..];
        j.nblocks = tail;
        plan[lane].push_back(j);
        t += tail;
        if t == span {
            (lane, t) = (lane + 1, head);
        }
    }
    execute(k, rate, sponges, |l| plan[l].pop_front())
}

/// Runs the lanes in steps: a lane without a job takes `next(lane)`'s; each kernel call
/// runs until the first job ends. Every job that ends is stored before any is loaded, so
/// a job may go on in another lane at the step where it stopped.
fn execute<'a, const N: usize>(
    k: KeccakLanes<N>,
    rate: usize,
    sponges: &mut [Sponge],
    mut next: impl FnMut(usize) -> Option<Job<'a>>,
) {
    let mut st = [[0u64; N]; 25];
    let mut lanes: [Option<Job<'_>>; N] = [None; N];
    loop {
        for (l, lane) in lanes.iter_mut().enumerate() {
            if lane.is_none() {
                if let Some(j) = next(l) {
                    for (w, v) in sponges[j.sponge].state.iter().enumerate() {
                        st[w][l] = *v;
                    }
                    *lane = Some(j);
                }
            }
        }
        let Some(steps) = lanes.iter().flatten().map(|j| j.nblocks).min() else {
            return;
        };
        // Idle lanes read a busy lane's data (at least `steps` blocks) and are ignored.
        let busy = lanes.iter().flatten().next().expect("a busy lane").data;
        let blocks: [&[u8]; N] = core::array::from_fn(|l| lanes[l].map_or(busy, |j| j.data));
        k.absorb(&mut st, &blocks, steps, rate);
        for (l, lane) in lanes.iter_mut().enumerate() {
            if let Some(j) = lane {
                j.nblocks -= steps;
                j.data = &j.data[steps * rate..];
                if j.nblocks == 0 {
                    for (w, v) in sponges[j.sponge].state.iter_mut().enumerate() {
                        *v = st[w][l];
                    }
                    *lane = None;
                }
            }
        }
    }
}

/// The digests of `msgs` under the SHA-3 or SHAKE `p`, through `k`'s lanes.
pub(crate) fn hash_many<const N: usize, M: AsRef<[u8]>>(
    k: KeccakLanes<N>,
    p: Params,
    msgs: &[M],
) -> Vec<Digest> {
    let mut sponges = vec![Sponge::default(); msgs.len()];
    let chunks: Vec<&[u8]> = msgs.iter().map(AsRef::as_ref).collect();
    absorb(k, p.rate, &mut sponges, &chunks);
    finalize(k, p, &mut sponges)
}
