//! Engine tests: every result is compared with the one-shot `hash` of the same bytes.

use super::lane_hasher::{Engine, LaneHasher};
use super::multi::MultiHasher;
use super::pool::BATCH;
use super::stream::STAGE;
use crate::{hash, Algorithm};
use bytes::Bytes;
use rand::{Rng, SeedableRng};

/// What the engine runs in lanes: the Merkle–Damgård functions and the sponges.
fn in_lanes() -> Vec<Algorithm> {
    let sponges = crate::sha3::algorithms();
    Algorithm::LANED.iter().copied().chain(sponges).collect()
}

fn random_bytes(rng: &mut impl Rng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}

/// Feeds `data` to `h` in pieces of random sizes, some tiny, some larger than a batch,
/// about half as owned chunks (`update_bytes`).
fn feed(h: &mut LaneHasher, data: &[u8], rng: &mut impl Rng) {
    let mut rest = data;
    while !rest.is_empty() {
        let cap = match rng.random_range(0..4) {
            0 => 3,
            1 => 200,
            2 => 5000,
            _ => 150_000,
        };
        let n = rng.random_range(0..=cap).min(rest.len());
        if rng.random_bool(0.5) {
            h.update_bytes(Bytes::copy_from_slice(&rest[..n]));
        } else {
            h.update(&rest[..n]);
        }
        rest = &rest[n..];
    }
}

#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn lone_stream_every_length_and_split() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let data = random_bytes(&mut rng, 3000);
        for alg in in_lanes() {
            for len in (0..=1100).chain([2047, 2048, 2049, 3000]) {
                let mut h = engine.hasher(alg);
                feed(&mut h, &data[..len], &mut rng);
                assert_eq!(h.finalize(), hash(alg, &data[..len]), "{alg} len {len}");
            }
        }
    });
}

/// Many streams on one thread, written round-robin: every write after the first defers,
/// so rounds claim other streams' buffers, in-lane, at every fill level.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn interleaved_streams_on_one_thread() {
    crate::testing::each_level(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for alg in in_lanes() {
            let engine = Engine::new();
            for count in [2usize, 3, 17, 70, 150] {
                let msgs: Vec<Vec<u8>> = (0..count)
                    .map(|_| {
                        let n = rng.random_range(0..200_000);
                        random_bytes(&mut rng, n)
                    })
                    .collect();
                let mut hs: Vec<(usize, LaneHasher, usize)> =
                    (0..count).map(|i| (i, engine.hasher(alg), 0)).collect();
                while !hs.is_empty() {
                    let k = rng.random_range(0..hs.len());
                    let (i, h, pos) = &mut hs[k];
                    let msg = &msgs[*i];
                    // Some writes over a batch: a round then hashes part and keeps or re-rounds the rest.
                    let cap = if rng.random_bool(0.2) {
                        200_000
                    } else {
                        40_000
                    };
                    let n = rng.random_range(0..cap).min(msg.len() - *pos);
                    if rng.random_bool(0.3) {
                        h.update_bytes(Bytes::copy_from_slice(&msg[*pos..*pos + n]));
                    } else {
                        h.update(&msg[*pos..*pos + n]);
                    }
                    *pos += n;
                    if *pos == msg.len() && rng.random_bool(0.3) {
                        let (i, h, _) = hs.swap_remove(k);
                        assert_eq!(h.finalize(), hash(alg, &msgs[i]), "{alg} count {count}");
                    }
                }
                assert_eq!(engine.writers(), 0);
            }
        }
    });
}

/// Threads with random algorithms, write sizes and drops on one engine: the digests are
/// those of the scalar reference whatever the interleaving.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri; see concurrent_streams_small")]
fn concurrent_streams_random() {
    crate::testing::each_level(|| {
        concurrent_streams(12, 30, 300_000);
    });
}

/// The same at a size Miri can check for data races and undefined behaviour (about 4 min
/// per seed): `MIRIFLAGS=-Zmiri-many-seeds=0..4 cargo +nightly miri test -p lanesum --lib
/// engine::tests::concurrent_streams_small`.
#[test]
fn concurrent_streams_small() {
    crate::testing::each_level(|| {
        if cfg!(miri) {
            concurrent_streams(3, 4, 12_000);
        } else {
            concurrent_streams(3, 3, 150_000);
        }
    });
}

fn concurrent_streams(threads: u64, rounds: usize, max_len: usize) {
    let engine = Engine::new();
    let seed: u64 = rand::rng().random();
    eprintln!("seed {seed}");
    let threads: Vec<_> = (0..threads)
        .map(|t| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ t);
                let algs = in_lanes();
                for round in 0..rounds {
                    let alg = algs[rng.random_range(0..algs.len())];
                    let n = rng.random_range(0..max_len);
                    let data = random_bytes(&mut rng, n);
                    let mut h = engine.hasher(alg);
                    feed(&mut h, &data, &mut rng);
                    if rng.random_bool(0.1) {
                        drop(h); // abandoned mid-stream
                        continue;
                    }
                    let want = hash(alg, &data);
                    assert_eq!(h.finalize(), want, "seed {seed} thread {t} round {round}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(engine.writers(), 0);
}

/// Many more writer threads than cores on one engine, as the 32-upload server case: lane
/// streams and MultiHashers side by side, ragged writes of borrowed slices and owned
/// chunks, some abandoned mid-stream. Rounds then take halves written on every CPU, and
/// writers yield to each other to fill the lanes; every digest is still the reference's.
/// Also with rounds sized for 16 cores (a few streams each, as on a large machine).
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn many_writers_on_more_threads_than_cores() {
    many_writers(Engine::new);
    many_writers(|| Engine::with_cores(16));
}

fn many_writers(engine: fn() -> Engine) {
    crate::testing::each_level(|| {
        let engine = engine();
        let seed: u64 = rand::rng().random();
        eprintln!("seed {seed}");
        let threads: Vec<_> = (0..32u64)
            .map(|t| {
                let engine = engine.clone();
                std::thread::spawn(move || {
                    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ t);
                    let n = rng.random_range(100_000..400_000);
                    let data = random_bytes(&mut rng, n);
                    if t % 4 == 3 {
                        let algs = [
                            Algorithm::Md5,
                            Algorithm::Sha256,
                            Algorithm::Sha512,
                            Algorithm::Sha3_256,
                        ];
                        let owned = Bytes::from(data.clone());
                        let mut m = MultiHasher::with_engine(&engine, &algs);
                        let mut at = 0;
                        while at < n {
                            let end = (at + rng.random_range(1..70_000)).min(n);
                            if rng.random_bool(0.5) {
                                m.update(&data[at..end]);
                            } else {
                                m.update_bytes(owned.slice(at..end));
                            }
                            at = end;
                        }
                        for (a, d) in algs.iter().zip(m.finalize()) {
                            assert_eq!(d, hash(*a, &data), "seed {seed} thread {t} {a}");
                        }
                        return;
                    }
                    let alg = [
                        Algorithm::Md5,
                        Algorithm::Sha256,
                        Algorithm::Sha1,
                        Algorithm::Sha3_256,
                        Algorithm::Shake128(40),
                    ][t as usize % 5];
                    let mut h = engine.hasher(alg);
                    if t % 8 == 5 {
                        // Abandoned after some halves went into rounds.
                        feed(&mut h, &data[..n / 2], &mut rng);
                        drop(h);
                        return;
                    }
                    feed(&mut h, &data, &mut rng);
                    assert_eq!(h.finalize(), hash(alg, &data), "seed {seed} thread {t}");
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(engine.writers(), 0);
    });
}

/// A stream never holds more than one batch unhashed, whatever its writers do.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn buffered_data_is_bounded() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let data = Bytes::from(random_bytes(&mut rng, 1 << 20));
        let mut hs: Vec<LaneHasher> = (0..5).map(|_| engine.hasher(Algorithm::Md5)).collect();
        for _ in 0..2000 {
            let k = rng.random_range(0..hs.len());
            let n = rng.random_range(0..70_000);
            let off = rng.random_range(0..data.len() - n);
            if rng.random_bool(0.5) {
                hs[k].update_bytes(data.slice(off..off + n));
            } else {
                hs[k].update(&data[off..off + n]);
            }
            for h in &hs {
                assert!(h.buffered() <= BATCH);
            }
        }
    });
}

/// Creating and dropping many hashers (unused, mid-stream, finished) leaks nothing: the
/// writer count returns to zero and the waiting list does not grow.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn churn_leaves_nothing_behind() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let mut keep = engine.hasher(Algorithm::Sha256);
        // A companion writer, so the others' writes defer (a write that fits the stage would
        // not count).
        keep.update(&[1; 2048]);
        let block = [7u8; 3000];
        for i in 0..200_000 {
            let mut h = engine.hasher(Algorithm::Sha256);
            match i % 3 {
                0 => {}
                1 => {
                    h.update(&block);
                }
                _ => {
                    h.update(&block);
                    let _ = h.finalize();
                    continue;
                }
            }
            drop(h);
        }
        drop(keep);
        assert_eq!(engine.writers(), 0);
        assert!(engine.waiting() <= 1);
    });
}

/// A stream dropped with a half waiting for a round (an aborted upload) takes it off the
/// waiting list. Before, its entry stayed there, with its slot and state, until a round
/// with room for it came by: never where rounds are of one stream (no more writers than
/// cores), and not while rounds were full. Each family (Merkle-Damgard of 64- and of
/// 128-byte blocks' pools, a sponge's) with a companion writer, so that writes defer.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn dropped_streams_leave_the_waiting_list() {
    use super::half::MAX_HALF;
    crate::testing::each_level(|| {
        let data = vec![3u8; MAX_HALF + 2 * STAGE];
        for alg in [Algorithm::Md5, Algorithm::Sha512, Algorithm::Sha3_256] {
            for cores in [1, 2, 64] {
                let engine = Engine::with_cores(cores);
                let mut keep = engine.hasher(alg);
                keep.update(&data);
                let waiting = engine.waiting();
                for _ in 0..50 {
                    let mut h = engine.hasher(alg);
                    h.update_bytes(Bytes::copy_from_slice(&data));
                    drop(h);
                }
                let now = engine.waiting();
                assert!(now <= waiting, "{alg}, {cores} cores: {now} waiting");
                keep.update(&data);
                assert_eq!(keep.finalize(), hash(alg, &[&data[..]; 2].concat()));
            }
        }
    });
}

/// A thread that panics while holding a stream (with blocks buffered) disturbs no other.
#[test]
fn panic_in_one_thread_spares_the_others() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let data = vec![0x5au8; 500_000];
        let e = engine.clone();
        let d = data.clone();
        let bad = std::thread::spawn(move || {
            let mut h = e.hasher(Algorithm::Md5);
            h.update(&d[..10_000]);
            panic!("a user's bug");
        });
        let good: Vec<_> = (0..4)
            .map(|_| {
                let e = engine.clone();
                let d = data.clone();
                std::thread::spawn(move || {
                    let mut h = e.hasher(Algorithm::Md5);
                    for c in d.chunks(30_000) {
                        h.update(c);
                    }
                    h.finalize()
                })
            })
            .collect();
        assert!(bad.join().is_err());
        for g in good {
            assert_eq!(g.join().unwrap(), hash(Algorithm::Md5, &data));
        }
        let mut h = engine.hasher(Algorithm::Md5);
        h.update(&data);
        assert_eq!(h.finalize(), hash(Algorithm::Md5, &data));
    });
}

#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn multi_hasher_matches_each_algorithm() {
    crate::testing::each_level(|| {
        let all: Vec<Algorithm> = [
            "md5",
            "sha1",
            "sha224",
            "sha256",
            "sha384",
            "sha512",
            "sha512-224",
            "sha512-256",
            "blake2b",
            "blake2s-160",
            "blake3",
            "sha3-256",
            "shake128-360",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let data = random_bytes(&mut rng, 3 << 20);
        for algs in [&all[..], &all[..1], &all[2..6], &all[8..]] {
            for (len, own) in [0usize, 1, 1000, 70_000, 3 << 20]
                .into_iter()
                .flat_map(|l| [(l, false), (l, true)])
            {
                // A private engine: alone on it, so writes are gathered and run side by side.
                let mut m = if own {
                    MultiHasher::with_engine(&Engine::new(), algs)
                } else {
                    MultiHasher::new(algs)
                };
                let mut rest = &data[..len];
                while !rest.is_empty() {
                    let cap = [10, 5000, 400_000, 2_000_000][rng.random_range(0..4)];
                    let n = rng.random_range(0..cap).min(rest.len());
                    if rng.random_bool(0.5) {
                        m.update_bytes(Bytes::copy_from_slice(&rest[..n]));
                    } else {
                        m.update(&rest[..n]);
                    }
                    rest = &rest[n..];
                }
                let got = m.finalize();
                for (a, d) in algs.iter().zip(got) {
                    assert_eq!(d, hash(*a, &data[..len]), "{a} len {len}");
                }
            }
        }
    });
}

/// Algorithms that each spread a large write over the cores (the CRCs, BLAKE3) take it in
/// cache-sized pieces, one algorithm after another: equal to the `crc` crate's CRCs and
/// the `blake3` crate for writes across pieces, whole and ragged, at every level.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn multi_hasher_of_spreading_algorithms() {
    let algs: Vec<Algorithm> = ["crc32", "crc32c", "crc64nvme", "crc", "blake3"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    let data = random_bytes(&mut rng, (21 << 20) + 5);
    let be32 = |v: u32| v.to_be_bytes().to_vec();
    let cksum = {
        let c = crc::Crc::<u32>::new(&crc::CRC_32_CKSUM);
        let mut d = c.digest();
        d.update(&data);
        let len = data.len() as u64;
        let used = 8 - len.leading_zeros() as usize / 8;
        d.update(&len.to_le_bytes()[..used]);
        d.finalize()
    };
    let want: Vec<Vec<u8>> = vec![
        be32(crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(&data)),
        be32(crc::Crc::<u32>::new(&crc::CRC_32_ISCSI).checksum(&data)),
        crc::Crc::<u64>::new(&crc::CRC_64_NVME)
            .checksum(&data)
            .to_be_bytes()
            .to_vec(),
        be32(cksum),
        blake3::hash(&data).as_bytes().to_vec(),
    ];
    crate::testing::each_level(|| {
        for cuts in [vec![], vec![13 << 20], vec![1, (9 << 20) + 3, 20 << 20]] {
            let mut m = MultiHasher::with_engine(&Engine::new(), &algs);
            let mut at = 0;
            for cut in cuts.into_iter().chain([data.len()]) {
                m.update(&data[at..cut]);
                at = cut;
            }
            for ((a, d), w) in algs.iter().zip(m.finalize()).zip(&want) {
                assert_eq!(d.as_bytes(), &w[..], "{a}");
            }
        }
    });
}

/// A MultiHasher alone on its engine hashes a batch in the background while it gathers the
/// next; another stream starting meanwhile turns it to sharing lanes, and back when that
/// stream ends, with batches in flight at each change.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn multi_hasher_background_batches_across_mode_changes() {
    crate::testing::each_level(|| {
        let algs = [Algorithm::Md5, Algorithm::Sha256, Algorithm::Sha512];
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let data = random_bytes(&mut rng, 5 << 20);
        let other = random_bytes(&mut rng, 1 << 20);
        let engine = Engine::new();
        let mut m = MultiHasher::with_engine(&engine, &algs);
        let mut rest = &data[..];
        let mut step = 0;
        let mut lane: Option<LaneHasher> = None;
        while !rest.is_empty() {
            let n = rng.random_range(50_000..150_000).min(rest.len());
            m.update(&rest[..n]);
            rest = &rest[n..];
            step += 1;
            match step {
                10 => lane = Some(engine.hasher(Algorithm::Md5)),
                11..=30 => {
                    if let Some(l) = lane.as_mut() {
                        l.update(&other[(step - 11) * 50_000..(step - 10) * 50_000]);
                    }
                }
                31 => {
                    let l = lane.take().expect("made at step 10");
                    assert_eq!(l.finalize(), hash(Algorithm::Md5, &other[..1_000_000]));
                }
                _ => {}
            }
        }
        for (a, d) in algs.iter().zip(m.finalize()) {
            assert_eq!(d, hash(*a, &data), "{a}");
        }
        // Dropped with a batch in flight: nothing hangs or leaks a writer.
        let mut m = MultiHasher::with_engine(&engine, &algs);
        m.update(&data[..1 << 20]);
        drop(m);
        let mut m = MultiHasher::with_engine(&engine, &algs);
        m.update(&data[..1 << 20]);
        assert_eq!(m.finalize()[0], hash(Algorithm::Md5, &data[..1 << 20]));
    });
}

/// Many MultiHashers on several threads share each family's lanes.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn multi_hashers_on_many_threads() {
    crate::testing::each_level(|| {
        let algs = [
            Algorithm::Md5,
            Algorithm::Sha1,
            Algorithm::Sha256,
            Algorithm::Sha512,
        ];
        let threads: Vec<_> = (0..8u8)
            .map(|t| {
                std::thread::spawn(move || {
                    let data: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7) as u8 ^ t).collect();
                    let owned = Bytes::from(data.clone());
                    let mut m = MultiHasher::new(&algs);
                    // Half the threads write owned chunks.
                    for (k, c) in data.chunks(32 * 1024 + t as usize).enumerate() {
                        if t % 2 == 0 {
                            m.update(c);
                        } else {
                            let at = k * (32 * 1024 + t as usize);
                            m.update_bytes(owned.slice(at..at + c.len()));
                        }
                    }
                    let got = m.finalize();
                    for (a, d) in algs.iter().zip(got) {
                        assert_eq!(d, hash(*a, &data), "{a} thread {t}");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    });
}

/// Two MultiHashers' threads per core, as 32 on 16 cores: a writer whose half is in a
/// round hashes other streams' waiting halves, of any family, rather than sleep. Every
/// digest stays right, and helping must happen (on some run) where it can: with lanes
/// to share, and two cores, so that one writer finds halves waiting while another's
/// round runs (on one CPU that needs the round preempted).
///
/// How soon it happens depends on the scheduler: alone, on the first run; beside the
/// rest of the suite on 2 cores, once not in 20 runs (the other tests' threads held the
/// second core). So the runs go on for 30 s, at least 20 of them, before it fails.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn blocked_writers_help_other_rounds() {
    let algs = [
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha256,
        Algorithm::Sha512,
    ];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seed: u64 = rand::rng().random();
    eprintln!("seed {seed}");
    crate::testing::each_level(|| {
        let engine = Engine::with_cores(cores);
        let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut attempt = 0u64;
        loop {
            let threads: Vec<_> = (0..2 * cores as u64)
                .map(|t| {
                    let engine = engine.clone();
                    std::thread::spawn(move || {
                        let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ attempt << 8 ^ t);
                        let n = rng.random_range(500_000..1_000_000);
                        let data = random_bytes(&mut rng, n);
                        let mut m = MultiHasher::with_engine(&engine, &algs);
                        for w in data.chunks(rng.random_range(4_000..40_000)) {
                            m.update(w);
                        }
                        for (a, d) in algs.iter().zip(m.finalize()) {
                            assert_eq!(d, hash(*a, &data), "seed {seed} thread {t} {a}");
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            assert_eq!(engine.writers(), 0);
            let level = crate::isa::active();
            let widest = [
                crate::family::Kernels::<crate::md5::Md5>::new(level).widest(),
                crate::family::Kernels::<crate::sha1::Sha1>::new(level).widest(),
                crate::family::Kernels::<crate::sha256::Sha256>::new(level).widest(),
                crate::family::Kernels::<crate::sha512::Sha512>::new(level).widest(),
            ];
            let can_help = cores >= 2 && widest.iter().any(|&w| w > 1);
            if engine.helped() > 0 || !can_help {
                return;
            }
            attempt += 1;
            if attempt >= 20 && std::time::Instant::now() > until {
                panic!("no writer helped in {attempt} runs over 30 s (seed {seed})");
            }
        }
    });
}

/// MultiHashers and plain lane streams written round-robin on one thread: the multis hand
/// shared halves to their streams, fall back to copies behind partial blocks, and change
/// modes (alone, shared) as idle writers come and go.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn multi_hashers_interleaved_on_one_thread() {
    crate::testing::each_level(|| {
        let all: Vec<Algorithm> = [
            "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake3",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..6 {
            let engine = Engine::new();
            let count = rng.random_range(2..10);
            let msgs: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let max = [400_000, 1_500_000][rng.random_range(0..2)];
                    let n = rng.random_range(0..max);
                    random_bytes(&mut rng, n)
                })
                .collect();
            // Streams that wrote some blocks and wait: while there are enough, the multis are
            // not alone on the engine.
            let some = [b'x'; 2048];
            let mut idle: Vec<LaneHasher> = Vec::new();
            enum H {
                Multi(MultiHasher, Vec<Algorithm>),
                Lane(Box<LaneHasher>),
            }
            let mut hs: Vec<(usize, H, usize)> = (0..count)
                .map(|i| {
                    let h = if rng.random_bool(0.75) {
                        let algs: Vec<Algorithm> = all
                            .iter()
                            .copied()
                            .filter(|_| rng.random_bool(0.6))
                            .collect();
                        H::Multi(MultiHasher::with_engine(&engine, &algs), algs)
                    } else {
                        H::Lane(Box::new(engine.hasher(all[rng.random_range(0..all.len())])))
                    };
                    (i, h, 0)
                })
                .collect();
            while !hs.is_empty() {
                if rng.random_bool(0.02) {
                    for _ in 0..rng.random_range(0..10) {
                        let mut l = engine.hasher(all[rng.random_range(0..all.len())]);
                        l.update(&some);
                        idle.push(l);
                    }
                } else if rng.random_bool(0.02) {
                    for l in idle.drain(..rng.random_range(0..=idle.len())) {
                        let a = l.algorithm();
                        assert_eq!(l.finalize(), hash(a, &some));
                    }
                }
                let k = rng.random_range(0..hs.len());
                let (i, h, pos) = &mut hs[k];
                let msg = &msgs[*i];
                let cap = [3, 200, 5000, 40_000, 200_000][rng.random_range(0..5)];
                let n = rng.random_range(0..=cap).min(msg.len() - *pos);
                match h {
                    H::Multi(m, _) if rng.random_bool(0.3) => {
                        m.update_bytes(Bytes::copy_from_slice(&msg[*pos..*pos + n]));
                    }
                    H::Multi(m, _) => {
                        m.update(&msg[*pos..*pos + n]);
                    }
                    H::Lane(l) => {
                        l.update(&msg[*pos..*pos + n]);
                    }
                }
                *pos += n;
                if *pos == msg.len() && rng.random_bool(0.3) {
                    let (i, h, _) = hs.swap_remove(k);
                    match h {
                        H::Multi(m, algs) => {
                            for (a, d) in algs.iter().zip(m.finalize()) {
                                assert_eq!(d, hash(*a, &msgs[i]), "{a} multi");
                            }
                        }
                        H::Lane(l) => {
                            let a = l.algorithm();
                            assert_eq!(l.finalize(), hash(a, &msgs[i]), "{a} lane");
                        }
                    }
                }
            }
            drop(idle);
            assert_eq!(engine.writers(), 0);
        }
    });
}

/// A message that fits the stage never reaches the pool: no slot, not counted as a writer
/// (so it costs what a plain `Hasher` does); one more byte and it is.
#[test]
fn short_messages_stay_off_the_pool() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let data = [0xa5u8; STAGE];
        for alg in [
            Algorithm::Md5,
            Algorithm::Sha1,
            Algorithm::Sha256,
            Algorithm::Sha384,
        ] {
            for len in [0, 1, 55, 56, 64, 111, 112, 128, STAGE - 1] {
                let mut h = engine.hasher(alg);
                h.update(&data[..len / 2]);
                h.update(&data[len / 2..len]);
                assert_eq!(engine.writers(), 0, "{alg} len {len}");
                assert_eq!(h.finalize(), hash(alg, &data[..len]), "{alg} len {len}");
            }
            let mut h = engine.hasher(alg);
            h.update(&data);
            assert_eq!(engine.writers(), 1, "{alg}");
            assert_eq!(h.finalize(), hash(alg, &data), "{alg}");
            assert_eq!(engine.writers(), 0, "{alg}");
        }
        // The same for a MultiHasher, whose streams are made only once data reaches them.
        let algs = [Algorithm::Md5, Algorithm::Sha512, Algorithm::Blake3(32)];
        for len in [0, 1, 200, STAGE - 1, STAGE] {
            let mut m = MultiHasher::with_engine(&engine, &algs);
            m.update(&data[..len / 3]);
            m.update(&data[len / 3..len]);
            let lanes = if len < STAGE { 0 } else { 2 };
            assert_eq!(engine.writers(), lanes, "len {len}");
            for (a, d) in algs.iter().zip(m.finalize()) {
                assert_eq!(d, hash(*a, &data[..len]), "{a} len {len}");
            }
            assert_eq!(engine.writers(), 0, "len {len}");
        }
    });
}

/// Writers enough that a round takes another stream's half (a core's share: two).
struct Companions(Vec<LaneHasher>);

impl Companions {
    fn new(engine: &Engine, alg: Algorithm) -> Self {
        let mut all: Vec<LaneHasher> = (0..3).map(|_| engine.hasher(alg)).collect();
        for c in &mut all {
            c.update(&[1; 2 * STAGE]);
        }
        Companions(all)
    }

    /// Give each a half that waits, so the next final round is not alone.
    fn wait(&mut self) {
        for c in &mut self.0 {
            c.update(&[2; BATCH / 2]);
        }
    }
}

/// Owned chunks at every offset from a block boundary and with every kind of staged bytes
/// before them, with companions so that the chunks wait in halves for a shared final
/// round: two chunks, each with its stitched head, then the staged blocks.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn owned_chunks_every_stitch() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let data = Bytes::from(random_bytes(&mut rng, 40_000));
        for alg in in_lanes() {
            let mut companions = Companions::new(&engine, alg);
            let b = alg.block_len();
            for staged in [0, 1, 63, 64, 100, 127, 128, 129, b - 1, b, b + 1, STAGE - 1] {
                for chunk in [STAGE, 4999, 5000, 5120, 7000] {
                    let mut h = engine.hasher(alg);
                    let mut at = 0;
                    let mut msg = Vec::new();
                    // Staged bytes, a chunk, staged bytes, a chunk, staged bytes.
                    for step in 0..5 {
                        let n = if step % 2 == 0 { staged } else { chunk };
                        let piece = data.slice(at..at + n);
                        msg.extend_from_slice(&piece);
                        if step % 2 == 0 {
                            h.update(&piece);
                        } else {
                            h.update_bytes(piece);
                        }
                        at += n + 7;
                    }
                    companions.wait();
                    let got = h.finalize();
                    assert_eq!(got, hash(alg, &msg), "{alg} staged {staged} chunk {chunk}");
                }
            }
            drop(companions);
            assert_eq!(engine.writers(), 0);
        }
    });
}

/// Two halves of many small chunks and staged blocks after them are more slices than a
/// lane job has: the final round copies chunks to make them fit.
#[test]
#[cfg_attr(miri, ignore = "too slow under Miri")]
fn final_round_with_more_slices_than_a_job() {
    crate::testing::each_level(|| {
        let engine = Engine::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        let data = Bytes::from(random_bytes(&mut rng, 200_000));
        for alg in in_lanes() {
            let mut companions = Companions::new(&engine, alg);
            // Chunks of exactly the stage (one slice each) or a little over (then the next
            // one's stitched head is a slice too), as many as two halves take.
            for (chunk, count) in [(STAGE, 16), (STAGE + 7, 8), (3000, 6)] {
                for staged in [0, 100] {
                    let mut h = engine.hasher(alg);
                    let mut msg = Vec::new();
                    for k in 0..count {
                        let piece = data.slice(k * chunk..(k + 1) * chunk);
                        msg.extend_from_slice(&piece);
                        h.update_bytes(piece);
                    }
                    let last = &data[100_000..100_000 + staged];
                    msg.extend_from_slice(last);
                    h.update(last);
                    companions.wait();
                    let got = h.finalize();
                    assert_eq!(got, hash(alg, &msg), "{alg} chunk {chunk} staged {staged}");
                }
            }
            drop(companions);
            assert_eq!(engine.writers(), 0);
        }
    });
}
