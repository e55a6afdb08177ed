//! Many small messages (the Arrow-column case): ns per message of `hash_many` on its
//! own choice of kernel (also copied out flat, and `hash_many_into`) and of each kernel
//! forced, alternated in one process (best of
//! `ROUNDS`, default 5) and timed by the thread's CPU clock, so that load from other
//! processes hits all alike:
//! `cargo run --release -p lanesum --example small_batch [count] [alg ...] [-s size]`.
//! Defaults: 1,000,000 messages of 64 B and 1 KiB, MD5 and SHA-256.

use lanesum::diagnostics::{hash_many_with, kernels};
use lanesum::{hash_many, hash_many_into, Algorithm};
use std::hint::black_box;

/// This thread's CPU time in seconds (`/proc/thread-self/schedstat`, nanoseconds first):
/// other processes' load on the shared machine then slows a path only through the
/// caches, not by taking the core away mid-run. 0 where the file can't be read.
fn cpu_time() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 * 1e-9)
}

/// Rounds, each path once per round (`ROUNDS` in the environment to change).
fn rounds() -> usize {
    std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
}

fn main() {
    let mut count = 1_000_000usize;
    let mut algs = Vec::new();
    let mut sizes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-s" {
            sizes.push(args.next().and_then(|s| s.parse().ok()).expect("-s SIZE"));
        } else if let Ok(n) = a.parse() {
            count = n;
        } else {
            algs.push(a.parse::<Algorithm>().expect("an algorithm name"));
        }
    }
    if algs.is_empty() {
        algs = vec![Algorithm::Md5, Algorithm::Sha256];
    }
    if sizes.is_empty() {
        sizes = vec![64, 1024];
    }
    for &size in &sizes {
        // Values back to back, as in an Arrow column's data buffer.
        let pool: Vec<u8> = (0..count * size).map(|i| (i * 131 % 251) as u8).collect();
        let msgs: Vec<&[u8]> = pool.chunks_exact(size).collect();
        let msgs = &msgs;
        for &alg in &algs {
            let want = hash_many(alg, &msgs[..1000]);
            let mut paths: Vec<(String, Box<dyn Fn() -> usize + '_>)> = vec![
                ("auto".into(), Box::new(|| hash_many(alg, msgs).len())),
                // What a caller wanting flat bytes did before `hash_many_into`.
                (
                    "auto+copy".into(),
                    Box::new(|| {
                        let size = alg.digest_len();
                        let mut out = vec![0u8; msgs.len() * size];
                        let ds = hash_many(alg, msgs);
                        for (d, o) in ds.iter().zip(out.chunks_exact_mut(size)) {
                            o.copy_from_slice(d.as_bytes());
                        }
                        out.len()
                    }),
                ),
                (
                    "into".into(),
                    Box::new(|| {
                        let mut out = vec![0u8; msgs.len() * alg.digest_len()];
                        hash_many_into(alg, msgs, &mut out);
                        out.len()
                    }),
                ),
            ];
            for k in kernels(alg) {
                let name = k.name;
                let got = hash_many_with(alg, name, &msgs[..1000]).expect("a kernel here");
                assert!(got == want, "{alg} {name}: digests differ from auto");
                paths.push((
                    name.into(),
                    Box::new(move || hash_many_with(alg, name, msgs).map_or(0, |d| d.len())),
                ));
            }
            let mut best = vec![f64::INFINITY; paths.len()];
            for _ in 0..rounds() {
                for (b, (_, f)) in best.iter_mut().zip(&paths) {
                    let t = cpu_time();
                    black_box(f());
                    *b = b.min(cpu_time() - t);
                }
            }
            for (b, (name, _)) in best.iter().zip(&paths) {
                println!(
                    "{alg:>7} {count} x {size:>5} B {name:>10}: {:7.1} ns/msg {:6.2} GB/s",
                    b * 1e9 / count as f64,
                    (count * size) as f64 / b / 1e9
                );
            }
        }
    }
}
