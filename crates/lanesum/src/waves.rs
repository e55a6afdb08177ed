//! Messages of one shape through the lanes in waves, without the scheduler.
//!
//! A wave is one message per lane (a partial one leaves some lanes spare), all with the
//! same number of whole blocks and of padded final blocks. It starts every lane from the
//! IV and runs as a kernel call over the messages' whole blocks (if any) and one over
//! their padded ends, so nothing is tracked per lane. The scheduler's tracking costs
//! ~20 ns a message (Intel Xeon, 64 x 64 B MD5 on 16 lanes: 1.9 us a batch, 0.6 of it
//! hashing), which counts for messages up to a few KiB (see [`MAX_BODY_BLOCKS`]); longer
//! ones go to the scheduler, whose staggered lane starts (`Lanes::stagger`) then win
//! more than a wave saves.

use crate::family::{lane_state, Family};
use crate::lanes::{LaneKernel, MAX_LANES};
use crate::merkle_damgard::{pad_final, padded_len};
use crate::schedule::{keep_tails, take_tails};

/// Most whole blocks of a message that goes in waves (8 KiB of MD5, 16 KiB of SHA-512).
/// Best of alternating runs, 64 MD5 messages 4 KiB apart (page-aligned, the scheduler's
/// stagger case), GB/s in waves / through the scheduler: 2 KiB 13.2 / 11.4, 4 KiB 13.5 /
/// 12.1, 8 KiB 13.6 / 12.7, 16 KiB 13.6 / 13.7, 32 KiB 13.4 / 14.0; 576 bytes further
/// apart (no stagger) waves were ahead at every size (4 KiB 15.0 / 13.5). SHA-1,
/// SHA-256 and SHA-512 were 1-4% ahead in waves up to 16 KiB.
const MAX_BODY_BLOCKS: usize = 128;

#[cfg(test)]
thread_local! {
    /// Waves run on this thread.
    pub(crate) static WAVES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whole blocks and padded final blocks of a message of `len` bytes.
fn shape<F: Family>(len: usize) -> (usize, usize) {
    (len / F::BLOCK, padded_len::<F>(len % F::BLOCK) / F::BLOCK)
}

/// Hashes, from `iv`, each chunk of `k.lanes` messages of `order` (taken in turn) whose
/// messages share one shape of at most [`MAX_BODY_BLOCKS`] whole blocks, passing each
/// final state to `done(index, state)`; returns the other messages, in order (`None`:
/// nothing ran, all of them are left). With `partial`, a last chunk with fewer messages
/// than lanes runs too (as the scheduler would run it, every message in a lane of one
/// call).
pub(crate) fn run<F: Family, M: AsRef<[u8]>>(
    k: &LaneKernel<F::Word>,
    iv: F::State,
    msgs: &[M],
    order: &[usize],
    partial: bool,
    done: impl FnMut(usize, &F::State),
) -> Option<Vec<usize>> {
    // The pointer arrays live on the stack, sized to the kernel (as in `Lanes::step`).
    match k.lanes {
        0..=8 => run_n::<F, M, 8>(k, iv, msgs, order, partial, done),
        9..=16 => run_n::<F, M, 16>(k, iv, msgs, order, partial, done),
        17..=32 => run_n::<F, M, 32>(k, iv, msgs, order, partial, done),
        _ => run_n::<F, M, MAX_LANES>(k, iv, msgs, order, partial, done),
    }
}

fn run_n<F: Family, M: AsRef<[u8]>, const N: usize>(
    k: &LaneKernel<F::Word>,
    iv: F::State,
    msgs: &[M],
    order: &[usize],
    partial: bool,
    mut done: impl FnMut(usize, &F::State),
) -> Option<Vec<usize>> {
    let n = k.lanes;
    assert!(n <= N);
    // Filled once a wave has run (before, every message passed over is `order`'s prefix);
    // `tails` and `state` are taken for the first wave.
    let mut rest = Vec::new();
    let mut state = Vec::new();
    let mut tails = Vec::new();
    for (c, wave) in order.chunks(n).enumerate() {
        let len = msgs[wave[0]].as_ref().len();
        let (body, pad) = shape::<F>(len);
        // The last first: longest first, a chunk of two shapes mostly differs there.
        let uniform = (wave.len() == n || partial)
            && body <= MAX_BODY_BLOCKS
            && shape::<F>(msgs[wave[wave.len() - 1]].as_ref().len()) == (body, pad)
            && wave
                .iter()
                .all(|&i| shape::<F>(msgs[i].as_ref().len()) == (body, pad));
        if !uniform {
            if !tails.is_empty() {
                rest.extend_from_slice(wave);
            }
            continue;
        }
        if tails.is_empty() {
            rest.extend_from_slice(&order[..c * n]);
            tails = take_tails(n);
            state = vec![F::Word::default(); F::WORDS * n];
        }
        #[cfg(test)]
        WAVES.set(WAVES.get() + 1);
        for (w, &v) in iv.as_ref().iter().enumerate() {
            state[w * n..][..n].fill(v);
        }
        let cut = body * F::BLOCK;
        // Spare lanes of a partial wave repeat the first message; their state is never read.
        let used = wave.len();
        let mut ptrs: [&[u8]; N] = [&[]; N];
        if body > 0 {
            for (p, &i) in ptrs.iter_mut().zip(wave) {
                *p = &msgs[i].as_ref()[..cut];
            }
            let first = ptrs[0];
            ptrs[used..n].fill(first);
            k.compress(&mut state, F::WORDS, F::BLOCK, &ptrs[..n], body);
        }
        if len == cut && wave.iter().all(|&i| msgs[i].as_ref().len() == len) {
            // Whole blocks of one length: one padding for every lane.
            pad_final::<F>(&[], len as u64, &mut tails[0]);
            ptrs[..used].fill(&tails[0][..pad * F::BLOCK]);
        } else {
            for (tail, &i) in tails.iter_mut().zip(wave) {
                let m = msgs[i].as_ref();
                pad_final::<F>(&m[cut..], m.len() as u64, tail);
            }
            for (p, tail) in ptrs[..used].iter_mut().zip(&tails) {
                *p = &tail[..pad * F::BLOCK];
            }
        }
        let first = ptrs[0];
        ptrs[used..n].fill(first);
        k.compress(&mut state, F::WORDS, F::BLOCK, &ptrs[..n], pad);
        for (l, &i) in wave.iter().enumerate() {
            done(i, &lane_state::<F>(&state, n, l));
        }
    }
    if tails.is_empty() {
        return None;
    }
    keep_tails(tails);
    Some(rest)
}
