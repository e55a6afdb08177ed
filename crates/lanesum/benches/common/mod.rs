//! The workloads both engine benchmarks run: the criterion one (`engine.rs`) and the
//! alternating ratios of issue 4's targets (`engine_ratios.rs`).

use std::hint::black_box;
use std::thread;

use lanesum::{Algorithm, Engine, Hasher, LaneHasher, MultiHasher};
use sha2::Digest as _;

pub const ALL4: [Algorithm; 4] = [
    Algorithm::Md5,
    Algorithm::Sha1,
    Algorithm::Sha256,
    Algorithm::Sha512,
];

/// Concurrent streams in the noisy-neighbour and 32-stream cases.
pub const THREADS: usize = 32;
/// Their write size.
pub const STREAM_WRITE: usize = 32 * 1024;

pub fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 % 251) as u8).collect()
}

/// Bytes per stream: `LANESUM_BENCH_MIB` MiB, else `default` MiB.
pub fn stream_len(default: usize) -> usize {
    std::env::var("LANESUM_BENCH_MIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
        << 20
}

/// What Workhorse does today: each write goes to md5, sha1, sha256 and sha512 in turn.
#[derive(Default)]
pub struct Sequential {
    md5: md5::Md5,
    sha1: sha1::Sha1,
    sha256: sha2::Sha256,
    sha512: sha2::Sha512,
}

impl Sequential {
    pub fn update(&mut self, d: &[u8]) {
        self.md5.update(d);
        self.sha1.update(d);
        self.sha256.update(d);
        self.sha512.update(d);
    }

    pub fn finalize(self) -> usize {
        self.md5.finalize()[0] as usize
            + self.sha1.finalize()[0] as usize
            + self.sha256.finalize()[0] as usize
            + self.sha512.finalize()[0] as usize
    }
}

/// [`THREADS`] threads each stream `len` bytes of `buf` (at its own offset) through `run`.
/// `buf` must hold `len + THREADS * 64` bytes.
pub fn concurrent<F: Fn(&[u8]) + Sync>(buf: &[u8], len: usize, run: F) {
    thread::scope(|s| {
        for t in 0..THREADS {
            let run = &run;
            let msg = &buf[t * 64..][..len];
            s.spawn(move || run(msg));
        }
    });
}

/// The noisy-neighbour case, each stream through the RustCrypto hashers one after another.
pub fn noisy_sequential(buf: &[u8], len: usize) {
    concurrent(buf, len, |m| {
        let mut h = Sequential::default();
        for w in m.chunks(STREAM_WRITE) {
            h.update(w);
        }
        black_box(h.finalize());
    })
}

/// The noisy-neighbour case through `MultiHasher`s.
pub fn noisy_multi(buf: &[u8], len: usize) {
    concurrent(buf, len, |m| {
        let mut h = MultiHasher::new(&ALL4);
        for w in m.chunks(STREAM_WRITE) {
            h.update(w);
        }
        black_box(h.finalize());
    })
}

/// [`THREADS`] concurrent `alg` streams on a fresh engine.
pub fn lane_streams(alg: Algorithm, buf: &[u8], len: usize) {
    let engine = Engine::new();
    concurrent(buf, len, |m| {
        let mut h = engine.hasher(alg);
        for w in m.chunks(STREAM_WRITE) {
            h.update(w);
        }
        black_box(h.finalize());
    })
}

/// The messages of [`lane_streams`], for `hash_many_par`.
pub fn stream_messages(buf: &[u8], len: usize) -> Vec<&[u8]> {
    (0..THREADS).map(|t| &buf[t * 64..][..len]).collect()
}

/// One stream in 64 KiB writes, on the single-stream path or through the engine.
pub fn lone_stream(alg: Algorithm, buf: &[u8], lane: bool) {
    if lane {
        let mut h = LaneHasher::new(alg);
        for w in buf.chunks(64 * 1024) {
            h.update(w);
        }
        black_box(h.finalize());
    } else {
        let mut h = Hasher::new(alg);
        for w in buf.chunks(64 * 1024) {
            h.update(w);
        }
        black_box(h.finalize());
    }
}
