//! SHA-512 kernel throughput: `hash_many_with` on 64 messages per size, GB/s per core
//! (single thread, best of several runs). Args: kernel names (default: all listed).
//!
//! Timed by this thread's CPU time (`/proc/thread-self/stat`, 10 ms ticks, so each run
//! lasts >= 0.3 s) because the machine is shared and wall time counts other processes.
use lanesum::diagnostics::{hash_many_with, kernels};
use lanesum::Algorithm;

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
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t0 = cpu_secs();
                let batch = (4 << 20) / total + 1;
                let mut reps = 0usize;
                while cpu_secs() - t0 < 0.3 {
                    for _ in 0..batch {
                        std::hint::black_box(hash_many_with(alg, name, &msgs).unwrap());
                    }
                    reps += batch;
                }
                best = best.min((cpu_secs() - t0) / reps as f64);
            }
            print!("{:>10.2}", total as f64 / best / 1e9);
        }
        println!();
    }
}

/// User + system CPU seconds of the calling thread.
fn cpu_secs() -> f64 {
    let st = std::fs::read_to_string("/proc/thread-self/stat").expect("procfs");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &st[st.rfind(')').expect("stat format") + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}
