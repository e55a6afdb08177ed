//! MD5 kernel throughput: `hash_many_with` on 64 messages per size, every kernel vs x1,
//! GB/s per core (single thread, best of several runs).
//!
//! `cargo run --release -p lanesum --example kbench_md5 [kernel-substring [size]]`

use lanesum::diagnostics::{hash_many_with, kernels};
use lanesum::Algorithm;

/// Seconds of CPU time this thread has used: other engineers share the machine, and
/// wall time would count the time we sit descheduled.
fn cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: libc's clock_gettime writes one timespec (two i64 on x86-64 Linux) into `ts`.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0);
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let all = [
        (64usize, "64 B"),
        (1 << 10, "1 KiB"),
        (16 << 10, "16 KiB"),
        (1 << 20, "1 MiB"),
    ];
    // Optional second argument: one message size in bytes (e.g. for `perf record`).
    let sizes: Vec<(usize, &str)> = match std::env::args().nth(2) {
        Some(n) => vec![(n.parse().unwrap(), "bytes")],
        None => all.to_vec(),
    };
    let names: Vec<&str> = kernels(Algorithm::Md5)
        .iter()
        .map(|k| k.name)
        .filter(|n| n.contains(&*filter))
        .collect();
    print!("{:>10}", "kernel");
    for (_, label) in &sizes {
        print!("{label:>9}");
    }
    println!();
    // Messages are back to back (`KBENCH_GAP` extra bytes apart, default 0): lanes a
    // multiple of 4 KiB apart share L1 sets, the hard case for a wide kernel.
    let gap: usize = std::env::var("KBENCH_GAP").map_or(0, |g| g.parse().unwrap());
    let data: Vec<Vec<u8>> = sizes
        .iter()
        .map(|&(len, _)| {
            (0..64 * (len + gap))
                .map(|i| (i * 131 + i / 977) as u8)
                .collect()
        })
        .collect();
    for name in names {
        print!("{name:>10}");
        for (&(len, _), buf) in sizes.iter().zip(&data) {
            let msgs: Vec<&[u8]> = buf.chunks(len + gap).map(|m| &m[..len]).collect();
            let total = (64 * len) as f64;
            // About 0.2 s of work per cell, best of 5 repeats.
            let probe = cpu_seconds();
            hash_many_with(Algorithm::Md5, name, &msgs).unwrap();
            let once = (cpu_seconds() - probe).max(1e-7);
            let iters = ((0.04 / once) as usize).clamp(1, 100_000);
            let mut best = f64::MAX;
            for _ in 0..5 {
                let t = cpu_seconds();
                for _ in 0..iters {
                    std::hint::black_box(hash_many_with(Algorithm::Md5, name, &msgs));
                }
                best = best.min((cpu_seconds() - t) / iters as f64);
            }
            print!("{:>9.2}", total / best / 1e9);
        }
        println!();
    }
}
