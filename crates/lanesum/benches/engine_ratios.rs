//! Issue 4's engine targets as ratios to their baselines, each pair run back to back and in
//! alternating order, round after round, so that a shared machine's slow spells (which
//! come and go over seconds) fall on both sides of a ratio. Prints every round's ratio and
//! the median:
//!
//! - `MultiHasher` md5+sha1+sha256+sha512, 64 KiB x 1024 writes, against RustCrypto's
//!   four one after another (target >= 2x);
//! - noisy neighbour: 32 threads each streaming in 32 KiB writes through `MultiHasher`s
//!   (borrowed slices, and owned chunks), against the sequential reference on the same
//!   threads (>= 4x); and with rounds sized as on 16 cores (`Engine::with_cores`), which
//!   shows on a small machine what each core of a large one gets from its lanes; and on
//!   two threads per core, as 32 threads are on 16 cores, where cores go idle whenever
//!   writers sleep (issue 31's 16-core target, >= 3x);
//! - 32 concurrent MD5 and SHA-256 streams (64 MiB each, in buffers of their own) through
//!   the engine in 32 KiB writes against `hash_many_par` on the same data (>= 0.8): on a
//!   thread each, and (MD5) on as many threads as cores, writing borrowed slices
//!   (`update`) or owned chunks (`update_bytes`);
//! - the floor under `update` for MD5 and SHA-256: `hash_many_par`, then a copy of every
//!   32 KiB write into halves as the engine makes (on as many threads as cores), against
//!   `hash_many_par` alone. No engine that copies borrowed writes can beat this ratio, so
//!   where it is below a target, that target can be met only through `update_bytes`;
//! - 32 SHA3-256 streams through the engine against a plain `Hasher` each, what a SHA-3
//!   `LaneHasher` was before its sponges shared lanes;
//! - a lone MD5 / SHA-256 / SHA3-256 stream through the engine against the single-stream
//!   path (>= 0.95).
//!
//! `cargo bench -p lanesum --bench engine_ratios`; `LANESUM_BENCH_MIB` (default 64) sets
//! the bytes per stream, `LANESUM_BENCH_ROUNDS` (default 7) the rounds and
//! `LANESUM_BENCH_ONLY` a part of the names of the comparisons to run. Under `cargo
//! test` it runs one small round, to check that it works. Beside the wall-time ratio, each
//! line shows the median ratio of CPU times (baseline over new), steadier on a shared
//! machine.

mod common;

use std::hint::black_box;
use std::time::Instant;

use bytes::Bytes;
use common::*;
use lanesum::{hash_many_par, Algorithm, Engine, Hasher, MultiHasher};

fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// CPU seconds this process has used (all its threads, ended ones too) where Linux says,
/// else NaN: on a machine shared with other work, where a 32-thread side gets more of the
/// cores than a 2-thread one, the ratio of CPU times is the steadier measure of the
/// work each side does.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // utime and stime, the 14th and 15th fields, in clock ticks (100 a second); the
    // command name before them may hold spaces, so count from its closing parenthesis.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .map(|x| x.parse::<f64>().unwrap_or(f64::NAN))
        .sum::<f64>()
        / 100.0
}

/// Wall and CPU seconds of `f`.
fn timed(f: impl FnOnce()) -> (f64, f64) {
    let c = cpu_seconds();
    let w = seconds(f);
    (w, cpu_seconds() - c)
}

/// Runs `base` and `new` once each per round (alternating which goes first) and prints
/// the rounds' speed-ups of `new` over `base` with their median, and `new`'s median rate.
fn compare(name: &str, target: f64, bytes: usize, rounds: usize, base: impl Fn(), new: impl Fn()) {
    if std::env::var("LANESUM_BENCH_ONLY").is_ok_and(|only| !name.contains(&only)) {
        return;
    }
    let mut ratios = Vec::new();
    let mut cpu = Vec::new();
    let mut rates = Vec::new();
    for r in 0..rounds {
        let ((b, b_cpu), (n, n_cpu)) = if r % 2 == 0 {
            let b = timed(&base);
            (b, timed(&new))
        } else {
            let n = timed(&new);
            (timed(&base), n)
        };
        ratios.push(b / n);
        cpu.push(b_cpu / n_cpu);
        rates.push(bytes as f64 / n / f64::from(1 << 30));
    }
    let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
    println!(
        "{name:<44} median {:.2}x (target {target}x; {:.2} GiB/s; CPU time {:.2}x)  rounds: {}",
        median(&mut ratios),
        median(&mut rates),
        median(&mut cpu),
        each.join(" ")
    );
}

/// Each of `msgs` copied in [`STREAM_WRITE`] writes into two halves of its own, as the
/// engine copies borrowed writes for 32 streams (halves of 8 MiB / 32 streams), on
/// `threads` threads each writing to its share of the streams in turn.
fn copy_writes(msgs: &[Bytes], threads: usize) {
    const HALVES: usize = 2 * (8 << 20) / THREADS;
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mine: Vec<&Bytes> = msgs.iter().skip(t).step_by(threads).collect();
                let mut halves: Vec<Vec<u8>> = mine.iter().map(|_| vec![0; HALVES]).collect();
                let len = mine.iter().map(|m| m.len()).max().unwrap_or(0);
                for at in (0..len).step_by(STREAM_WRITE) {
                    for (h, m) in halves.iter_mut().zip(&mine) {
                        let w = &m[at.min(m.len())..(at + STREAM_WRITE).min(m.len())];
                        let to = at % HALVES;
                        h[to..to + w.len()].copy_from_slice(w);
                    }
                }
                black_box(&halves);
            });
        }
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let rounds = std::env::var("LANESUM_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if full { 7 } else { 1 });
    let len = stream_len(if full { 64 } else { 1 });
    let writes = len / (64 * 1024);
    let buf = data(len);
    let chunk = &buf[..64 * 1024];
    if !full {
        println!("(a smoke run of one small round: these numbers measure nothing)");
    }

    compare(
        "multihasher all4, 64 KiB writes",
        2.0,
        len,
        rounds,
        || {
            let mut h = Sequential::default();
            for _ in 0..writes {
                h.update(black_box(chunk));
            }
            black_box(h.finalize());
        },
        || {
            let mut h = MultiHasher::new(&ALL4);
            for _ in 0..writes {
                h.update(black_box(chunk));
            }
            black_box(h.finalize());
        },
    );
    let msgs = stream_buffers(len);
    let slices = slices(&msgs);
    for feed in [Feed::Borrowed, Feed::Owned] {
        compare(
            &format!("noisy neighbour, 32 threads all4, {feed:?}"),
            4.0,
            THREADS * len,
            rounds,
            || noisy_sequential(&msgs),
            || noisy_multi(Engine::global(), &msgs, feed),
        );
    }
    // Rounds sized as on a 16-core machine (the round size falls as cores are added):
    // what each core gets from its lanes there, measured on however many this one has.
    let sixteen = Engine::with_cores(16);
    compare(
        "noisy neighbour, rounds as on 16 cores",
        4.0,
        THREADS * len,
        rounds,
        || noisy_sequential(&msgs),
        || noisy_multi(&sixteen, &msgs, Feed::Borrowed),
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let two_per_core = &msgs[..(2 * cores).min(msgs.len())];
    compare(
        "noisy neighbour, 2 threads per core",
        3.0,
        two_per_core.len() * len,
        rounds,
        || noisy_sequential(two_per_core),
        || noisy_multi(Engine::global(), two_per_core, Feed::Borrowed),
    );
    let shapes = [
        (Algorithm::Md5, THREADS, Feed::Borrowed),
        (Algorithm::Md5, THREADS, Feed::Owned),
        (Algorithm::Md5, cores, Feed::Borrowed),
        (Algorithm::Md5, cores, Feed::Owned),
        (Algorithm::Sha256, THREADS, Feed::Borrowed),
        (Algorithm::Sha256, THREADS, Feed::Owned),
        (Algorithm::Sha3_256, THREADS, Feed::Borrowed),
    ];
    for (alg, threads, feed) in shapes {
        compare(
            &format!("32 {alg} streams, {threads} threads, {feed:?}"),
            0.8,
            THREADS * len,
            rounds,
            || {
                black_box(hash_many_par(alg, &slices));
            },
            || lane_streams(alg, &msgs, threads, feed),
        );
    }
    // The floor under `update`: a borrowed write that must wait for lanes is copied, and
    // when the messages are in memory rather than in cache that copy is a pass over
    // memory that hashing in place never makes. Hashing in place, then copying every
    // write as the engine does (on as many threads as cores, with no scheduling at all),
    // bounds what any engine that copies can reach against `hash_many_par`.
    for alg in [Algorithm::Md5, Algorithm::Sha256] {
        compare(
            &format!("{alg} floor under update (hash, then copy)"),
            0.8,
            THREADS * len,
            rounds,
            || {
                black_box(hash_many_par(alg, &slices));
            },
            || {
                black_box(hash_many_par(alg, &slices));
                copy_writes(&msgs, cores);
            },
        );
    }
    // What a SHA-3 `LaneHasher` was before its streams shared lanes: a plain hasher.
    compare(
        "32 sha3-256 streams vs a Hasher each",
        2.0,
        THREADS * len,
        rounds,
        || {
            concurrent(&msgs, |m| {
                let mut h = Hasher::new(Algorithm::Sha3_256);
                for w in m.chunks(STREAM_WRITE) {
                    h.update(w);
                }
                black_box(h.finalize());
            })
        },
        || lane_streams(Algorithm::Sha3_256, &msgs, THREADS, Feed::Borrowed),
    );
    for alg in [Algorithm::Md5, Algorithm::Sha256, Algorithm::Sha3_256] {
        compare(
            &format!("lone {alg} stream vs single-stream path"),
            0.95,
            len,
            rounds,
            || lone_stream(alg, &buf[..len], false),
            || lone_stream(alg, &buf[..len], true),
        );
    }
}
