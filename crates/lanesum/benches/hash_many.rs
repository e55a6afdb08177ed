//! Many messages at once: the auto path (`hash_many`) against the single-stream path
//! (`hash_many_with(.., "x1", ..)`) on the same 64 messages, per algorithm and size.
//! Single-threaded, so throughput is per core.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lanesum::diagnostics::hash_many_with;
use lanesum::{hash_many, Algorithm};
use std::hint::black_box;

const COUNT: usize = 64;

fn bench(c: &mut Criterion) {
    let sizes = [64usize, 1024, 16 * 1024, 1024 * 1024];
    let pool: Vec<u8> = (0..COUNT * (1 << 20) + 4096)
        .map(|i| (i * 131 % 251) as u8)
        .collect();
    for alg in ["md5", "sha1", "sha256", "sha512", "blake3"] {
        let alg: Algorithm = alg.parse().unwrap();
        let mut g = c.benchmark_group(format!("hash_many/{alg}"));
        g.sample_size(10);
        for size in sizes {
            let msgs: Vec<&[u8]> = (0..COUNT)
                .map(|i| &pool[i * size + i * 61..][..size])
                .collect();
            g.throughput(Throughput::Bytes((size * COUNT) as u64));
            g.bench_with_input(BenchmarkId::new("auto", size), &msgs, |b, m| {
                b.iter(|| hash_many(alg, black_box(m)))
            });
            g.bench_with_input(BenchmarkId::new("x1", size), &msgs, |b, m| {
                b.iter(|| hash_many_with(alg, "x1", black_box(m)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
