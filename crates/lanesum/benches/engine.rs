//! The lane engine against plain streaming hashers, after GitLab Workhorse's multihash
//! benchmarks: write sizes 8 B / 64 B / 8 KiB / 64 KiB, x1 and x1024, per algorithm and for
//! md5+sha1+sha256+sha512 (RustCrypto one after the other vs `MultiHasher`); the
//! noisy-neighbour case (32 threads, 64 MiB each in 32 KiB writes); 32 concurrent MD5
//! streams vs `hash_many_par` on the same data; a lone stream vs the single-stream path.
//!
//! `LANESUM_BENCH_MIB` shrinks the 64 MiB streams for a quick run. `engine_ratios` measures
//! the same cases in alternation, for ratios that hold on a noisy machine.

mod common;

use std::hint::black_box;

use common::*;
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use lanesum::{hash_many_par, Algorithm, Engine, Hasher, LaneHasher, MultiHasher};

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

fn noisy_neighbour(c: &mut Criterion) {
    let len = stream_len(64);
    let msgs = stream_buffers(len);
    let mut g = c.benchmark_group("engine/noisy-neighbour-32x");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Bytes((THREADS * len) as u64));
    g.bench_function("all4/sequential-rustcrypto", |b| {
        b.iter(|| noisy_sequential(&msgs))
    });
    for feed in [Feed::Borrowed, Feed::Owned] {
        g.bench_function(format!("all4/multi/{feed:?}"), |b| {
            b.iter(|| noisy_multi(Engine::global(), &msgs, feed))
        });
    }
    g.finish();
}

fn streams_vs_batch(c: &mut Criterion) {
    let len = stream_len(64);
    let msgs = stream_buffers(len);
    let slices = slices(&msgs);
    for alg in [Algorithm::Md5, Algorithm::Sha256] {
        let mut g = c.benchmark_group(format!("engine/32-streams/{alg}"));
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Bytes((THREADS * len) as u64));
        g.bench_function("hash_many_par", |b| {
            b.iter(|| hash_many_par(alg, black_box(&slices)))
        });
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for threads in [THREADS, cores] {
            for feed in [Feed::Borrowed, Feed::Owned] {
                let name = format!("lane-streams-32KiB-writes/{threads}-threads/{feed:?}");
                g.bench_function(name, |b| b.iter(|| lane_streams(alg, &msgs, threads, feed)));
            }
        }
        g.finish();
    }
}

fn lone(c: &mut Criterion) {
    let len = stream_len(64);
    let buf = data(len);
    for alg in [Algorithm::Md5, Algorithm::Sha256] {
        let mut g = c.benchmark_group(format!("engine/lone-stream/{alg}"));
        g.sample_size(10).throughput(Throughput::Bytes(len as u64));
        g.bench_function("plain", |b| b.iter(|| lone_stream(alg, &buf, false)));
        g.bench_function("lane", |b| b.iter(|| lone_stream(alg, &buf, true)));
        g.finish();
    }
}

criterion_group!(benches, writes, noisy_neighbour, streams_vs_batch, lone);
criterion_main!(benches);
