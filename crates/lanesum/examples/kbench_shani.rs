//! GB/s per core of the SHA-NI kernels vs `x1` and the sha1/sha2 crates for small
//! batches (1-6 messages):
//! `cargo run --release -p lanesum --example kbench_shani [sha1|sha256] [size]`.

use lanesum::diagnostics::{hash_many_with, kernels};
use lanesum::{hash_many, Algorithm};
use std::time::Instant;

/// The sha1/sha2 crates, one message after another: the baseline we replaced.
fn crate_hash(alg: Algorithm, refs: &[&[u8]]) {
    use sha2::Digest;
    for m in refs {
        match alg {
            Algorithm::Sha1 => {
                std::hint::black_box(sha1::Sha1::digest(m));
            }
            _ => {
                std::hint::black_box(sha2::Sha256::digest(m));
            }
        }
    }
}

/// Best of many short timed runs (~512 KiB each): the machine is shared, so the best
/// short window is the closest to an idle core.
///
/// `kernel`: `None` = auto, `Some("crate")` = the sha1/sha2 crates, else a kernel name.
fn gbps(alg: Algorithm, kernel: Option<&str>, refs: &[&[u8]]) -> f64 {
    let bytes: usize = refs.iter().map(|m| m.len()).sum::<usize>().max(1);
    let reps = (512 << 10) / bytes + 1;
    let mut best = f64::MAX;
    for _ in 0..60 {
        let t = Instant::now();
        for _ in 0..reps {
            match kernel {
                Some("crate") => crate_hash(alg, refs),
                Some(k) => {
                    std::hint::black_box(hash_many_with(alg, k, refs).unwrap());
                }
                None => {
                    std::hint::black_box(hash_many(alg, refs));
                }
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    (bytes * reps) as f64 / best / 1e9
}

fn main() {
    let which = std::env::args().nth(1);
    let only_size: Option<usize> = std::env::args().nth(2).and_then(|s| s.parse().ok());
    for alg in [Algorithm::Sha256, Algorithm::Sha1] {
        if which.as_deref().is_some_and(|w| w != alg.to_string()) {
            continue;
        }
        let names: Vec<&str> = std::iter::once("crate")
            .chain(kernels(alg).into_iter().map(|k| k.name))
            .filter(|n| *n == "crate" || *n == "x1" || n.starts_with("shani"))
            .collect();
        print!("{alg:<8} size    n");
        for n in &names {
            print!(" {n:>9}");
        }
        println!(" {:>9}", "auto");
        for size in [64usize, 1 << 10, 16 << 10, 1 << 20] {
            if only_size.is_some_and(|o| o != size) {
                continue;
            }
            for count in [1usize, 2, 3, 4, 6] {
                let msgs: Vec<Vec<u8>> = (0..count)
                    .map(|i| (0..size).map(|j| (i * 31 + j * 7) as u8).collect())
                    .collect();
                let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
                print!("{:<8} {size:>7} {count}", "");
                for n in &names {
                    print!(" {:>9.2}", gbps(alg, Some(n), &refs));
                }
                println!(" {:>9.2}", gbps(alg, None, &refs));
            }
        }
    }
}
