//! The workloads both engine benchmarks run: the criterion one (`engine.rs`) and the
//! alternating ratios of issue 4's targets (`engine_ratios.rs`).

use std::hint::black_box;
use std::thread;

use bytes::Bytes;
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

/// Each of `msgs` streamed on a thread of its own through `run`.
pub fn concurrent<F: Fn(&Bytes) + Sync>(msgs: &[Bytes], run: F) {
    thread::scope(|s| {
        for m in msgs {
            let run = &run;
            s.spawn(move || run(m));
        }
    });
}

/// The noisy-neighbour case, each stream through the RustCrypto hashers one after another.
pub fn noisy_sequential(msgs: &[Bytes]) {
    concurrent(msgs, |m| {
        let mut h = Sequential::default();
        for w in m.chunks(STREAM_WRITE) {
            h.update(w);
        }
        black_box(h.finalize());
    })
}

/// The noisy-neighbour case through `MultiHasher`s.
pub fn noisy_multi(engine: &Engine, msgs: &[Bytes], feed: Feed) {
    concurrent(msgs, |m| {
        let mut h = MultiHasher::with_engine(engine, &ALL4);
        for at in (0..m.len()).step_by(STREAM_WRITE) {
            let end = (at + STREAM_WRITE).min(m.len());
            match feed {
                Feed::Borrowed => h.update(&m[at..end]),
                Feed::Owned => h.update_bytes(m.slice(at..end)),
            };
        }
        black_box(h.finalize());
    })
}

/// The messages of the 32-stream and noisy-neighbour cases: each in a buffer of its own,
/// as uploads are.
pub fn stream_buffers(len: usize) -> Vec<Bytes> {
    let base = data(len + THREADS * 64);
    (0..THREADS)
        .map(|t| Bytes::copy_from_slice(&base[t * 64..][..len]))
        .collect()
}

/// How the 32-stream cases write.
#[derive(Clone, Copy, Debug)]
pub enum Feed {
    /// `update(&[u8])`: the engine copies what must wait for lanes.
    Borrowed,
    /// `update_bytes(Bytes)`: owned chunks wait where they are.
    Owned,
}

/// `msgs` as concurrent `alg` streams on a fresh engine, in [`STREAM_WRITE`] writes, on
/// `threads` threads: a thread per stream, or fewer threads each writing to its share of
/// the streams in turn (as an async server's workers do).
pub fn lane_streams(alg: Algorithm, msgs: &[Bytes], threads: usize, feed: Feed) {
    let engine = Engine::new();
    thread::scope(|s| {
        for t in 0..threads {
            let engine = &engine;
            s.spawn(move || {
                let mine: Vec<&Bytes> = msgs.iter().skip(t).step_by(threads).collect();
                let mut hs: Vec<LaneHasher> = mine.iter().map(|_| engine.hasher(alg)).collect();
                let len = mine.iter().map(|m| m.len()).max().unwrap_or(0);
                for at in (0..len).step_by(STREAM_WRITE) {
                    for (h, m) in hs.iter_mut().zip(&mine) {
                        let end = (at + STREAM_WRITE).min(m.len());
                        match feed {
                            Feed::Borrowed => h.update(&m[at.min(end)..end]),
                            Feed::Owned => h.update_bytes(m.slice(at.min(end)..end)),
                        };
                    }
                }
                for h in hs {
                    black_box(h.finalize());
                }
            });
        }
    })
}

/// Slices of `msgs`, for `hash_many_par`.
pub fn slices(msgs: &[Bytes]) -> Vec<&[u8]> {
    msgs.iter().map(|m| &m[..]).collect()
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
