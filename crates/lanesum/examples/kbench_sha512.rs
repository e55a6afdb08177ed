//! SHA-512 kernel throughput: `hash_many_with` on 64 messages per size, GB/s per core
//! (single thread, best of several runs). Args: kernel names (default: all listed).
use lanesum::{hash_many_with, kernels, Algorithm};
use std::time::Instant;

fn main() {
    let alg = Algorithm::Sha512;
    let names: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<String> = if names.is_empty() {
        kernels(alg).iter().map(|k| k.name.to_string()).collect()
    } else {
        names
    };
    let sizes = [64usize, 1 << 10, 16 << 10, 1 << 20];
    print!("{:>10}", "kernel");
    for s in sizes {
        print!("{:>10}", s);
    }
    println!();
    let bufs: Vec<Vec<Vec<u8>>> = sizes
        .iter()
        .map(|&s| (0..64).map(|i| vec![i as u8; s]).collect())
        .collect();
    for name in &names {
        print!("{name:>10}");
        for (si, &s) in sizes.iter().enumerate() {
            let msgs: Vec<&[u8]> = bufs[si].iter().map(|m| &m[..]).collect();
            let total = 64 * s;
            let reps = (256 << 20) / total / 4 + 1;
            let mut best = f64::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                for _ in 0..reps {
                    std::hint::black_box(hash_many_with(alg, name, &msgs).unwrap());
                }
                best = best.min(t.elapsed().as_secs_f64() / reps as f64);
            }
            print!("{:>10.2}", total as f64 / best / 1e9);
        }
        println!();
    }
}
