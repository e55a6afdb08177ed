//! The lane engine against plain streaming hashers, after GitLab Workhorse's multihash
//! benchmarks: write sizes 8 B / 64 B / 8 KiB / 64 KiB, x1 and x1024, per algorithm and for
//! md5+sha1+sha256+sha512 (RustCrypto one after the other vs `MultiHasher`); the
//! noisy-neighbour case (32 threads, 64 MiB each in 32 KiB writes); 32 concurrent MD5
//! streams vs `hash_many_par` on the same data; a lone stream vs the single-stream path.
//!
//! `LANESUM_BENCH_MIB` shrinks the 64 MiB streams for a quick run.

use std::hint::black_box;
use std::thread;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use lanesum::{hash_many_par, Algorithm, Engine, Hasher, LaneHasher, MultiHasher};
use sha2::Digest as _;

const ALL4: [Algorithm; 4] = [
    Algorithm::Md5,
    Algorithm::Sha1,
    Algorithm::Sha256,
    Algorithm::Sha512,
];

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 % 251) as u8).collect()
}

fn stream_mib() -> usize {
    std::env::var("LANESUM_BENCH_MIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64)
}

/// What Workhorse does today: each write goes to md5, sha1, sha256 and sha512 in turn.
#[derive(Default)]
struct Sequential {
    md5: md5::Md5,
    sha1: sha1::Sha1,
    sha256: sha2::Sha256,
    sha512: sha2::Sha512,
}

impl Sequential {
    fn update(&mut self, d: &[u8]) {
        self.md5.update(d);
        self.sha1.update(d);
        self.sha256.update(d);
        self.sha512.update(d);
    }

    fn finalize(self) -> usize {
        self.md5.finalize()[0] as usize
            + self.sha1.finalize()[0] as usize
            + self.sha256.finalize()[0] as usize
            + self.sha512.finalize()[0] as usize
    }
}

fn writes(c: &mut Criterion) {
    let buf = data(64 * 1024);
    for (write, count) in [8usize, 64, 8192, 65536]
        .into_iter()
        .flat_map(|w| [(w, 1usize), (w, 1024)])
    {
        let mut g = c.benchmark_group(format!("engine/writes/{write}x{count}"));
        g.sample_size(10)
            .warm_up_time(std::time::Duration::from_millis(300))
            .measurement_time(std::time::Duration::from_secs(1))
            .throughput(Throughput::Bytes((write * count) as u64));
        let chunk = &buf[..write];
        for alg in ALL4 {
            g.bench_function(BenchmarkId::new("plain", alg), |b| {
                b.iter(|| {
                    let mut h = Hasher::new(alg);
                    for _ in 0..count {
                        h.update(black_box(chunk));
                    }
                    h.finalize()
                })
            });
            g.bench_function(BenchmarkId::new("lane", alg), |b| {
                b.iter(|| {
                    let mut h = LaneHasher::new(alg);
                    for _ in 0..count {
                        h.update(black_box(chunk));
                    }
                    h.finalize()
                })
            });
        }
        g.bench_function("all4/sequential-rustcrypto", |b| {
            b.iter(|| {
                let mut h = Sequential::default();
                for _ in 0..count {
                    h.update(black_box(chunk));
                }
                h.finalize()
            })
        });
        g.bench_function("all4/multi", |b| {
            b.iter(|| {
                let mut h = MultiHasher::new(&ALL4);
                for _ in 0..count {
                    h.update(black_box(chunk));
                }
                h.finalize()
            })
        });
        g.finish();
    }
}

/// `threads` threads each stream `len` bytes of `buf` in `write`-byte writes through `run`.
fn concurrent<F: Fn(&[u8]) + Sync>(threads: usize, buf: &[u8], run: F) {
    thread::scope(|s| {
        for t in 0..threads {
            let run = &run;
            let msg = &buf[t * 64..];
            s.spawn(move || run(msg));
        }
    });
}

fn noisy_neighbour(c: &mut Criterion) {
    let len = stream_mib() << 20;
    let threads = 32;
    let buf = data(len + threads * 64);
    let mut g = c.benchmark_group("engine/noisy-neighbour-32x");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Bytes((threads * len) as u64));
    g.bench_function("all4/sequential-rustcrypto", |b| {
        b.iter(|| {
            concurrent(threads, &buf, |m| {
                let mut h = Sequential::default();
                for w in m[..len].chunks(32 * 1024) {
                    h.update(w);
                }
                black_box(h.finalize());
            })
        })
    });
    g.bench_function("all4/multi", |b| {
        b.iter(|| {
            concurrent(threads, &buf, |m| {
                let mut h = MultiHasher::new(&ALL4);
                for w in m[..len].chunks(32 * 1024) {
                    h.update(w);
                }
                black_box(h.finalize());
            })
        })
    });
    g.finish();
}

fn streams_vs_batch(c: &mut Criterion) {
    let len = stream_mib() << 20;
    let threads = 32;
    let buf = data(len + threads * 64);
    let msgs: Vec<&[u8]> = (0..threads).map(|t| &buf[t * 64..][..len]).collect();
    for alg in [Algorithm::Md5, Algorithm::Sha256] {
        let mut g = c.benchmark_group(format!("engine/32-streams/{alg}"));
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Bytes((threads * len) as u64));
        g.bench_function("hash_many_par", |b| {
            b.iter(|| hash_many_par(alg, black_box(&msgs)))
        });
        g.bench_function("lane-streams-32KiB-writes", |b| {
            b.iter(|| {
                let engine = Engine::new();
                concurrent(threads, &buf, |m| {
                    let mut h = engine.hasher(alg);
                    for w in m[..len].chunks(32 * 1024) {
                        h.update(w);
                    }
                    black_box(h.finalize());
                })
            })
        });
        g.finish();
    }
}

fn lone_stream(c: &mut Criterion) {
    let len = stream_mib() << 20;
    let buf = data(len);
    for alg in [Algorithm::Md5, Algorithm::Sha256] {
        let mut g = c.benchmark_group(format!("engine/lone-stream/{alg}"));
        g.sample_size(10).throughput(Throughput::Bytes(len as u64));
        g.bench_function("plain", |b| {
            b.iter(|| {
                let mut h = Hasher::new(alg);
                for w in buf.chunks(64 * 1024) {
                    h.update(w);
                }
                h.finalize()
            })
        });
        g.bench_function("lane", |b| {
            b.iter(|| {
                let mut h = LaneHasher::new(alg);
                for w in buf.chunks(64 * 1024) {
                    h.update(w);
                }
                h.finalize()
            })
        });
        g.finish();
    }
}

criterion_group!(
    benches,
    writes,
    noisy_neighbour,
    streams_vs_batch,
    lone_stream
);
criterion_main!(benches);
