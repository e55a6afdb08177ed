//! Per-kernel throughput for SHA-1 / SHA-256: `hash_many_with` over 64 messages of
//! 64 B, 1 KiB, 16 KiB and 1 MiB, single-threaded, best of several runs, in GB/s.
//!
//! Times are this thread's CPU time (the machine is shared, so wall time is noisy).
//!
//! `cargo run --release --example kbench_sha -- [sha256|sha1] [kernel...]`

use lanesum::diagnostics::{hash_many_with, kernels};
use lanesum::Algorithm;

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// This thread's CPU time in seconds (Linux `CLOCK_THREAD_CPUTIME_ID`).
fn cpu_now() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; clock id 3 is CLOCK_THREAD_CPUTIME_ID.
    let rc = unsafe { clock_gettime(3, &mut ts) };
    assert_eq!(rc, 0);
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// Rough core clock: a chain of dependent 64-bit multiplies (3-cycle latency on current
/// x86 cores) timed in CPU time.
fn clock_ghz() -> f64 {
    let n: u64 = 100_000_000;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = cpu_now();
        let mut x = 3u64;
        let mut i = n;
        // SAFETY: register-only arithmetic loop, no memory access.
        unsafe {
            std::arch::asm!("2:", "imul {x}, {x}", "dec {i}", "jnz 2b", x = inout(reg) x, i = inout(reg) i);
        }
        std::hint::black_box((x, i));
        best = best.min(cpu_now() - t);
    }
    3.0 * n as f64 / best / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let alg: Algorithm = args
        .first()
        .map_or("sha256", |s| s.as_str())
        .parse()
        .unwrap();
    let only: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    let sizes = [64usize, 1 << 10, 16 << 10, 1 << 20];
    let data: Vec<Vec<u8>> = sizes
        .iter()
        .map(|&n| (0..64 * n).map(|i| (i * 31 + i / 7) as u8).collect())
        .collect();
    println!(
        "{alg}: GB/s per core, 64 messages (clock ~{:.2} GHz)",
        clock_ghz()
    );
    println!(
        "{:>10} {:>8} {:>8} {:>8} {:>8}",
        "kernel", "64B", "1KiB", "16KiB", "1MiB"
    );
    for k in kernels(alg) {
        if !only.is_empty() && !only.contains(&k.name) {
            continue;
        }
        print!("{:>10}", k.name);
        for (&n, d) in sizes.iter().zip(&data) {
            let msgs: Vec<&[u8]> = d.chunks(n).collect();
            let total = (64 * n) as f64;
            let reps = ((64 << 20) as f64 / total).clamp(1.0, 4096.0) as usize;
            let mut best = f64::MAX;
            for _ in 0..5 {
                let t = cpu_now();
                for _ in 0..reps {
                    std::hint::black_box(hash_many_with(alg, k.name, &msgs).unwrap());
                }
                best = best.min((cpu_now() - t) / reps as f64);
            }
            print!(" {:>8.2}", total / best / 1e9);
        }
        println!();
    }
}
