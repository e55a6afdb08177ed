//! `lanesum speed`: throughput of every compression path, like `openssl speed`.
//!
//! `speed` is recognised only as the very first argument, so a file literally named
//! `speed` must be hashed as `lanesum ./speed` (or `lanesum -- speed`).
//!
//! Everything runs on the calling thread and is timed by that thread's CPU clock, so the
//! figures are GB/s per core even when other processes compete for the cores; each path is
//! timed in the same process on the same buffers, so ratios between paths are meaningful.
//!
//! The report goes through the command's `Reporter`, a line at a time as it is measured:
//! a closed pipe ends it by SIGPIPE, quietly (`lanesum speed | head -3`), any other write
//! error with `lanesum: write error`, exit 1 (`lanesum speed > /dev/full`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use lanesum::diagnostics::{hash_many_with, kernels};
use lanesum::{hash_many, Algorithm};

use crate::options::SpeedOptions;
use crate::report::Reporter;
use crate::sys::thread_cpu_time;

/// `--counts` measures 1..=COUNTS messages. Every count takes its messages in turn from
/// one ring of COUNTS messages, so all touch the same bytes: hashing the same few
/// messages again and again kept them in the L2 cache only while they fit (32 x 16 KiB
/// did, 33 did not on Zen 5), a 10% step between two counts that had nothing to do with
/// filling lanes.
const COUNTS: usize = 64;

fn size_label(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}MiB", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}KiB", n >> 10)
    } else {
        format!("{n}B")
    }
}

/// CPU seconds per call of `f`, the best of several rounds of at least `min / 3` each.
fn time_best(min: Duration, f: impl FnMut()) -> f64 {
    best_of(min, thread_cpu_time, f)
}

/// Seconds per call of `f` on `clock`, the best of several rounds of at least `min / 3`.
fn best_of(min: Duration, clock: fn() -> Duration, mut f: impl FnMut()) -> f64 {
    f(); // warm caches and lazy detection
    let mut best = f64::INFINITY;
    let deadline = Instant::now() + min * 20; // under heavy load, give up waiting eventually
    for _ in 0..3 {
        // Calls between clock reads double: reading the thread CPU clock is a system call
        // of ~0.3 us, 5% of hashing 64 messages of 1 KiB, so it is not done per call.
        let start = clock();
        let (mut calls, mut run) = (0u64, 1u64);
        loop {
            for _ in 0..run {
                f();
            }
            calls += run;
            if clock() - start >= min / 3 || Instant::now() >= deadline {
                break;
            }
            run *= 2;
        }
        best = best.min((clock() - start).as_secs_f64() / calls as f64);
    }
    best
}

/// Wall-clock time since the first call, for runs spread over several threads.
fn wall_time() -> Duration {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed()
}

struct Row {
    alg: Algorithm,
    path: String,
    lanes: usize,
    size: usize,
    count: usize,
    gbps: f64,
}

/// Measure what `opts` ask for, on the calling thread (main runs it in a pool of one
/// thread: paths that would spread work over rayon's threads, BLAKE3's large updates,
/// must stay on the thread whose CPU clock is measured). Returns the exit status.
pub fn run(opts: &SpeedOptions, rep: &mut Reporter) -> i32 {
    let SpeedOptions {
        ref algs,
        ref sizes,
        batch,
        min,
        json,
        counts,
        modes,
    } = *opts;
    if let Some(size) = modes {
        return run_modes(size, min, json, rep);
    }

    let features = match lanesum::isa::try_active() {
        Ok(f) => f,
        Err(e) => {
            rep.stderr(&format!("lanesum speed: {e}\n"));
            return 2;
        }
    };
    if !json {
        say(
            rep,
            &format!(
            "lanesum speed: instruction sets {features}; GB/s per core (1 thread), {} per batch",
            if counts {
                "1..=64 messages".to_string()
            } else {
                format!("{batch} messages")
            }
        ),
        );
    }

    let max_size = *sizes.iter().max().unwrap();
    let pool_len = max_size * if counts { COUNTS } else { batch };
    // One shared pool; message i starts at a different offset so lanes never alias.
    let pool: Vec<u8> = (0..pool_len + 4096)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
        .collect();
    let messages = |size: usize, count: usize| -> Vec<&[u8]> {
        (0..count)
            .map(|i| &pool[i * size + (i * 67) % 4096..][..size])
            .collect()
    };

    let mut rows = Vec::new();
    for &alg in algs {
        if counts {
            for &size in sizes {
                // The ring twice over, so that any `count` in turn are one slice.
                let ring = messages(size, COUNTS).repeat(2);
                for count in 1..=COUNTS {
                    let mut at = 0;
                    let t = time_best(min, || {
                        black_box(hash_many(alg, black_box(&ring[at..at + count])));
                        at = (at + count) % COUNTS;
                    });
                    rows.push(Row {
                        alg,
                        path: "auto".into(),
                        lanes: 0,
                        size,
                        count,
                        gbps: (size * count) as f64 / t / 1e9,
                    });
                    emit(rows.last().unwrap(), json, rep);
                }
            }
            continue;
        }
        let mut paths: Vec<(String, usize)> = kernels(alg)
            .into_iter()
            .map(|k| (k.name.to_string(), k.lanes))
            .collect();
        paths.push(("auto".into(), 0));
        for (path, lanes) in paths {
            for &size in sizes {
                let msgs = messages(size, batch);
                let t = time_best(min, || {
                    let d = if path == "auto" {
                        hash_many(alg, black_box(&msgs))
                    } else {
                        hash_many_with(alg, &path, black_box(&msgs)).expect("listed kernel")
                    };
                    black_box(d);
                });
                rows.push(Row {
                    alg,
                    path: path.clone(),
                    lanes,
                    size,
                    count: batch,
                    gbps: (size * batch) as f64 / t / 1e9,
                });
                if json {
                    emit(rows.last().unwrap(), true, rep);
                }
            }
        }
    }
    if !json && !counts {
        print_table(&rows, sizes, rep);
    }
    0
}

/// `--modes`: each mode and the plain hash it is measured against, on one `size`-byte
/// buffer: per core (CPU time of one thread) with the ratio to that plain hash, then on
/// every core (wall time, rayon's default pool) with the same ratio.
fn run_modes(size: usize, min: Duration, json: bool, rep: &mut Reporter) -> i32 {
    use lanesum::{hash, modes};
    let buf: Vec<u8> = (0..size)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
        .collect();
    let data = &buf[..];
    type Job<'a> = (&'a str, Option<&'a str>, Box<dyn Fn() + Sync + 'a>);
    let jobs: Vec<Job> = vec![
        (
            "md5",
            None,
            Box::new(|| {
                black_box(hash(Algorithm::Md5, black_box(data)));
            }),
        ),
        (
            "md5p8",
            Some("md5"),
            Box::new(|| {
                black_box(modes::md5p8(black_box(data)));
            }),
        ),
        (
            "blocks-128K-md5",
            Some("md5"),
            Box::new(|| {
                black_box(modes::blocks(Algorithm::Md5, black_box(data), 128 << 10));
            }),
        ),
        (
            "s3-etag-8M",
            Some("md5"),
            Box::new(|| {
                black_box(modes::s3_etag(black_box(data), 8 << 20));
            }),
        ),
        (
            "blake2b",
            None,
            Box::new(|| {
                black_box(hash(Algorithm::Blake2b(64), black_box(data)));
            }),
        ),
        (
            "blake2bp",
            Some("blake2b"),
            Box::new(|| {
                black_box(modes::blake2bp(black_box(data), 64));
            }),
        ),
        (
            "blake2s",
            None,
            Box::new(|| {
                black_box(hash(Algorithm::Blake2s(32), black_box(data)));
            }),
        ),
        (
            "blake2sp",
            Some("blake2s"),
            Box::new(|| {
                black_box(modes::blake2sp(black_box(data), 32));
            }),
        ),
        (
            "sha1",
            None,
            Box::new(|| {
                black_box(hash(Algorithm::Sha1, black_box(data)));
            }),
        ),
        (
            "torrent-v1-256K",
            Some("sha1"),
            Box::new(|| {
                black_box(modes::torrent_v1_pieces(black_box(data), 256 << 10));
            }),
        ),
        (
            "sha256",
            None,
            Box::new(|| {
                black_box(hash(Algorithm::Sha256, black_box(data)));
            }),
        ),
        (
            "btv2",
            Some("sha256"),
            Box::new(|| {
                black_box(modes::torrent_v2_pieces_root(black_box(data)));
            }),
        ),
    ];
    let all = match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => pool,
        Err(e) => {
            rep.stderr(&format!("lanesum speed: {e}\n"));
            return 1;
        }
    };
    let cores = all.current_num_threads();
    if !json {
        say(rep, &format!(
            "lanesum speed --modes: {} buffer, GB/s on 1 core (CPU time) and on {cores} cores (wall)",
            size_label(size)
        ));
        say(
            rep,
            &format!(
                "{:<16} {:>8} {:>7}  {:>8} {:>7}  baseline",
                "mode", "1 core", "ratio", "all", "ratio"
            ),
        );
    }
    let mut done: Vec<(&str, f64, f64)> = Vec::new();
    for (name, base, f) in &jobs {
        let one = size as f64 / time_best(min, f) / 1e9;
        let many = size as f64 / all.install(|| best_of(min, wall_time, f)) / 1e9;
        let b = base.and_then(|b| done.iter().find(|(n, _, _)| *n == b));
        let ratio1 = b.map(|&(_, g, _)| one / g);
        let ratio_n = b.map(|&(_, _, g)| many / g);
        let fmt = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}x"));
        if json {
            say(rep, &format!(
                "{{\"mode\":\"{name}\",\"size\":{size},\"gbps\":{one:.3},\"baseline\":{},\"ratio\":{},\"cores\":{cores},\"gbps_all_cores\":{many:.3},\"ratio_all_cores\":{}}}",
                base.map_or("null".to_string(), |b| format!("\"{b}\"")),
                ratio1.map_or("null".to_string(), |r| format!("{r:.2}")),
                ratio_n.map_or("null".to_string(), |r| format!("{r:.2}"))
            ));
        } else {
            say(
                rep,
                &format!(
                    "{name:<16} {one:>8.2} {:>7}  {many:>8.2} {:>7}  {}",
                    fmt(ratio1),
                    fmt(ratio_n),
                    base.unwrap_or("")
                ),
            );
        }
        done.push((name, one, many));
    }
    0
}

fn emit(r: &Row, json: bool, rep: &mut Reporter) {
    if json {
        say(rep, &format!(
            "{{\"algorithm\":\"{}\",\"path\":\"{}\",\"lanes\":{},\"size\":{},\"messages\":{},\"gbps\":{:.3}}}",
            r.alg, r.path, r.lanes, r.size, r.count, r.gbps
        ));
    } else {
        say(
            rep,
            &format!(
                "{:<12} {:>8} x{:<3} {:>8.2} GB/s",
                r.alg.to_string(),
                size_label(r.size),
                r.count,
                r.gbps
            ),
        );
    }
}

/// One line per (algorithm, path), one column per size, then the auto path's ratio to the
/// single-stream path measured in this same run.
fn print_table(rows: &[Row], sizes: &[usize], rep: &mut Reporter) {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<12} {:<12} {:>5}",
        "algorithm", "path", "lanes"
    ));
    for &s in sizes {
        out.push_str(&format!(" {:>9}", size_label(s)));
    }
    out.push('\n');
    let mut i = 0;
    while i < rows.len() {
        let r = &rows[i];
        let line = &rows[i..i + sizes.len()];
        let lanes = if r.lanes == 0 {
            "-".to_string()
        } else {
            r.lanes.to_string()
        };
        out.push_str(&format!(
            "{:<12} {:<12} {:>5}",
            r.alg.to_string(),
            r.path,
            lanes
        ));
        for x in line {
            out.push_str(&format!(" {:>9.2}", x.gbps));
        }
        out.push('\n');
        if r.path == "auto" {
            let single = rows[..i]
                .iter()
                .rev()
                .take_while(|x| x.alg == r.alg)
                .filter(|x| x.path == "x1")
                .collect::<Vec<_>>();
            if single.len() == sizes.len() {
                out.push_str(&format!("{:<12} {:<12} {:>5}", "", "auto/x1", ""));
                for (a, s) in line.iter().zip(single.iter().rev()) {
                    out.push_str(&format!(" {:>8.1}x", a.gbps / s.gbps));
                }
                out.push('\n');
            }
        }
        i += sizes.len();
    }
    rep.write(out.as_bytes());
}

/// A line of the report, out at once: it is printed as it is measured.
fn say(rep: &mut Reporter, line: &str) {
    rep.write(line.as_bytes());
    rep.write(b"\n");
    rep.flush_now();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lanesum speed > /dev/full` reports `lanesum: write error` and exits 1, as every
    /// other output does, rather than panicking (exit 101). Run in a child process (this
    /// test binary again, this test alone) whose standard output is /dev/full.
    #[test]
    fn speed_into_dev_full_is_a_write_error() {
        const CHILD: &str = "LANESUM_TEST_SPEED_CHILD";
        if std::env::var_os(CHILD).is_some() {
            let full = std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap();
            crate::sys::stdout_to(&full);
            let opts = SpeedOptions {
                algs: vec![Algorithm::Md5],
                sizes: vec![64],
                batch: 1,
                min: Duration::from_millis(10),
                json: true,
                counts: false,
                modes: None,
            };
            let mut rep = Reporter::new("lanesum");
            let code = run(&opts, &mut rep);
            drop(rep);
            std::process::exit(code);
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "speed::tests::speed_into_dev_full_is_a_write_error",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.ends_with("lanesum: write error\n"), "{err}");
        assert_eq!(out.status.code(), Some(1), "{err}");
    }
}
