//! Big files side by side: every worker thread hashes a window of several files at a time
//! in its lanes, with no round that waits for the other threads.
//!
//! There is one worker per thread of the pool (never more than streams), each holding up to
//! its share of [`GROUP`] streams at once, largest files first. A worker maps (or reads)
//! the next window of each stream it holds and hashes them in one lane pass per
//! algorithm, read in place.
//!
//! - MD5, SHA-1, SHA-2 and the other algorithms that never enter rayon inside a write:
//!   streams move ([`mover`]). Each stream keeps its state in its own hashers; when one
//!   ends, its worker starts the next file of a shared queue, and once none is left, a
//!   worker with nothing to hash is handed a stream by one holding several. A core that
//!   runs slower then holds back one file at the end, not its whole share. With several
//!   algorithms and too few files to fill every core's lanes, each file is a stream per
//!   algorithm, so that a worker's lanes run many chains of one algorithm
//!   ([`SPLIT_BELOW`]).
//! - SHA-3 and SHAKE (whose lanes live in a [`StreamBatch`]), and sets with BLAKE3 or a
//!   CRC: each worker keeps the files it started, and when one ends its stream takes the
//!   next file of the shared queue ([`worker`]).
//!
//! What the workers share is that queue behind one lock (taken once a file starts or
//! ends, or a stream is handed over) and nothing else: windows and buffers are the
//! stream's, lanes the worker's.
//! Adding threads adds throughput until memory bandwidth runs out, and two big files
//! keep two cores busy from start to end.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use lanesum::{Algorithm, Digest, Hasher, StreamBatch};
use rayon::prelude::*;

use crate::hashed::Hashed;
use crate::stream::{read_full_at, shrank};
use crate::{mapped, memory};

/// Big files streamed at once, over all workers: enough streams to fill the widest kernel
/// of each core (MD5 runs 64 lanes per core). Measured on 64 files of 16 MiB: on a Xeon
/// 16 streams 0.27 s, 32 or 64 streams 0.20 s; on Zen 5 (MD5) 32 streams 0.11 s, 64
/// streams 0.065 s. With files of many sizes more streams keep more lanes busy: `-r /usr`
/// (381 files over 1 MiB, 3.9 GB, among 130k), MD5 on Zen 4, 2.21-2.33 s with 64 streams
/// (and 4 MiB windows), 2.06-2.16 s with 128 (and 2 MiB windows, the same mapped bytes).
/// In tests, few enough that a test's big files make several groups.
pub(crate) const GROUP: usize = if cfg!(test) { 16 } else { 128 };
/// Bytes read from a big file per round where it is not mapped; allocated only for a
/// stream that reads (at most `GROUP * READ_CHUNK`, 64 MiB).
pub(crate) const READ_CHUNK: usize = 512 << 10;
/// Bytes of big files mapped at once, over all streams: each stream maps
/// `MAP_BUDGET / streams` at a time, between [`MAP_MIN`] and [`MAP_MAX`]. Each map and
/// unmap costs page-table work and a TLB flush on every core running this process, so
/// few streams map larger windows (64 x 16 MiB on Zen 5: SHA-256 0.135 -> 0.129 s, MD5
/// 0.076 -> 0.069 s from 1 to 4 MiB windows).
const MAP_BUDGET: usize = 256 << 20;
pub(crate) const MAP_MIN: usize = 2 << 20;
const MAP_MAX: usize = 16 << 20;

/// Bytes mapped per window when `streams` files are streamed at once: a multiple of
/// [`MAP_MIN`] (so every window's offset is page-aligned).
fn map_len(streams: usize) -> usize {
    let per = MAP_BUDGET / streams.max(1);
    (per / MAP_MIN * MAP_MIN).clamp(MAP_MIN, MAP_MAX)
}

/// Streams per worker (of `per` wanted, for `workers`), and how many streams in all map
/// a window of `map_len` bytes, that fit the address space: all of them and all mapping,
/// or under a `ulimit -v` maps within a quarter of the space left (a map beyond that
/// would succeed and leave nothing for the allocations after it) and streams within
/// half, those that don't map each reading into a [`READ_CHUNK`] buffer; at least one
/// per worker. Without the second bound, 150 files of 1 MiB under `ulimit -v 81920` grew
/// 128 read buffers into all the space there was, and the next small allocation (a
/// hasher, a line of output) aborted the run. One reading of the limit for both.
fn streams_that_fit(workers: usize, per: usize, map_len: usize) -> (usize, usize) {
    let streams = workers * per;
    let Some(left) = memory::address_space_left() else {
        return (per, streams);
    };
    let maps = (left / 4 / map_len).min(streams);
    let room = (left / 2).saturating_sub(maps * map_len);
    let fit = maps + room / READ_CHUNK;
    ((fit / workers.max(1)).clamp(1, per.max(1)), maps)
}

/// Below this many big files per thread, a set of several algorithms is hashed as one
/// stream per file and algorithm (where streams move, see [`mover`]), taken in order of
/// algorithm, so that each worker runs many chains of one algorithm. MD5 and SHA-2 are
/// serial inside a file, and a core fills its lanes only with many chains of one
/// algorithm (one core of a 16-core Xeon VM, 1 MiB messages: MD5 1.89 GB/s with 4
/// streams, 8.7 with 16; SHA-256 1.55 and 2.84): 64 files on 16 cores were 4 chains of
/// each algorithm per core.
///
/// The workers' shares are then unequal (MD5's chains end long before SHA-512's), which
/// costs more than the fuller lanes win once each thread has enough files of its own.
/// On 2 cores (Zen 5, 64 MiB files, `md5,sha1,sha256,sha512` / `md5,sha256` /
/// `sha1,sha512`, old and split in turns): 8 files 420 -> 331 / 261 -> 194 / 202 -> 157
/// ms, 10 files 480 -> 458 / 291 -> 240, 12 files 491 -> 511 / 295 -> 293 / 248 -> 257,
/// 16 files 540 -> 582 / 346 -> 324 / 250 -> 288.
const SPLIT_BELOW: usize = 6;

/// A file waiting for a stream: its place among the files, its size when stat'ed, and
/// the algorithm (an index into the run's) this stream computes, or `None` for all.
#[derive(Clone)]
struct Pending {
    idx: usize,
    stat_len: u64,
    file: Arc<File>,
    alg: Option<usize>,
}

/// A file being streamed, under all the run's algorithms or one (`alg`).
struct Stream {
    idx: usize,
    alg: Option<usize>,
    file: Arc<File>,
    /// Size when stat'ed: mapped up to there, read beyond (a file that grew).
    stat_len: u64,
    /// Bytes hashed so far.
    size: u64,
    /// A read error, a buffer that could not be allocated, or a truncated map.
    failed: Option<io::Error>,
    /// The file ended with this round's window.
    ended: bool,
    map: Option<mapped::Guarded>,
    /// Bytes in this round's window (mapped or in the stream's buffer).
    len: usize,
}

impl Stream {
    fn new(p: Pending) -> Stream {
        Stream {
            idx: p.idx,
            alg: p.alg,
            file: p.file,
            stat_len: p.stat_len,
            size: 0,
            failed: None,
            ended: false,
            map: None,
            len: 0,
        }
    }

    /// Map the next window (no copy: a third of the time for MD5), or read it into `buf`:
    /// past the stat'ed size, or where a map is refused (a limit on address space).
    fn next_window(&mut self, buf: &mut Vec<u8>, may_map: bool, map_len: usize) {
        self.len = 0;
        if may_map && self.size < self.stat_len {
            let n = (self.stat_len - self.size).min(map_len as u64) as usize;
            self.map = mapped::map(&self.file, self.size, n);
            if self.map.is_some() {
                self.len = n;
                return;
            }
        }
        if let Err(e) = memory::grow_to(buf, READ_CHUNK) {
            self.failed = Some(e);
            return;
        }
        match read_full_at(&self.file, &mut buf[..READ_CHUNK], self.size) {
            Ok(n) => {
                self.len = n;
                self.ended = n < READ_CHUNK;
            }
            Err(e) => self.failed = Some(e),
        }
    }

    /// After this round's window was hashed: count it, and see whether a mapped file was
    /// truncated under the map or has been mapped to its end (and did not grow).
    fn account(&mut self) {
        self.size += self.len as u64;
        if let Some(map) = self.map.take() {
            if map.truncated(&self.file) {
                self.failed = Some(shrank());
            } else if self.size >= self.stat_len {
                // Mapped to its stat'ed end: read on only if it grew meanwhile.
                self.ended = self.file.metadata().map_or(true, |m| m.len() <= self.size);
            }
        }
    }

    /// This round's window: what was mapped, or read into `buf` (the stream's buffer);
    /// nothing after a failure.
    fn window<'a>(&'a self, buf: &'a [u8]) -> &'a [u8] {
        match self {
            s if s.failed.is_some() => &[],
            Stream {
                map: Some(m), len, ..
            } => &m[..*len],
            s => &buf[..s.len],
        }
    }

    fn result(self, digests: Vec<Digest>) -> io::Result<Hashed> {
        match self.failed {
            Some(e) => Err(e),
            None => Ok(Hashed {
                size: self.size,
                digests,
            }),
        }
    }
}

/// Hash `files` side by side under every algorithm of `algs` on the current rayon pool;
/// their results in the order given.
pub(crate) fn hash_side_by_side(
    files: Vec<File>,
    algs: &[Algorithm],
    may_map: bool,
) -> Vec<io::Result<Hashed>> {
    let count = files.len();
    if count == 0 {
        return Vec::new();
    }
    let mut by_size: Vec<Pending> = files
        .into_iter()
        .enumerate()
        .map(|(idx, file)| Pending {
            idx,
            stat_len: file.metadata().map_or(0, |m| m.len()),
            file: Arc::new(file),
            alg: None,
        })
        .collect();
    by_size.sort_by_key(|p| std::cmp::Reverse(p.stat_len));
    // Streams move only where no lanes live in a StreamBatch and no write enters rayon:
    // a worker waiting for a stream must never sit under another worker's frame, where
    // work stealing puts it when a window's hashing joins (BLAKE3, the CRCs).
    let moving = !algs
        .iter()
        .any(|a| a.lanes_need_stream_batch() || a.spreads_one_input());
    let threads = rayon::current_num_threads().max(1);
    // Too few files to fill the cores' lanes: a stream per file and algorithm, grouped by
    // algorithm, so that a worker's streams share one kernel (see `SPLIT_BELOW`).
    let split = moving && algs.len() > 1 && count < threads * SPLIT_BELOW;
    #[cfg(test)]
    SPLITS.fetch_add(usize::from(split), Ordering::SeqCst);
    let (by_size, group) = if split {
        let streams = (0..algs.len())
            .flat_map(|a| {
                by_size.iter().map(move |p| Pending {
                    alg: Some(a),
                    ..p.clone()
                })
            })
            .collect();
        (streams, GROUP * algs.len())
    } else {
        (by_size, GROUP)
    };
    let streams = by_size.len();
    let workers = threads.min(streams);
    let per = streams.min(group).div_ceil(workers);
    let map_len = map_len(workers * per);
    let (per, maps) = streams_that_fit(workers, per, map_len);
    let done: Vec<Vec<Done>> = if moving {
        // Largest first: the small files fill the lanes the large ones leave, rather
        // than one file running alone long.
        let pool = Pool {
            state: Mutex::new(Shared {
                ready: VecDeque::new(),
                pending: by_size.into(),
                live: 0,
                mapping: 0,
            }),
            handed: Condvar::new(),
            hungry: AtomicUsize::new(0),
        };
        (0..workers)
            .into_par_iter()
            .with_max_len(1)
            .map(|_| mover(&pool, per, algs, may_map.then_some((maps, map_len))))
            .collect()
    } else {
        // Each worker's share of the maps: its first streams map, the others read.
        let maps_per = maps / workers;
        // Largest first, dealt in turn: the shares get similar byte counts.
        let mut rest: VecDeque<Pending> = by_size.into();
        let mut shares: Vec<Vec<Pending>> = (0..workers).map(|_| Vec::with_capacity(per)).collect();
        'deal: for _ in 0..per {
            for share in &mut shares {
                match rest.pop_front() {
                    Some(p) => share.push(p),
                    None => break 'deal,
                }
            }
        }
        let queue = Mutex::new(rest);
        shares
            .into_par_iter()
            .with_max_len(1)
            .map(|share| {
                worker(
                    share,
                    per,
                    &queue,
                    algs,
                    may_map.then_some((maps_per, map_len)),
                )
            })
            .collect()
    };
    let mut out: Vec<Option<io::Result<Hashed>>> = (0..count).map(|_| None).collect();
    for (idx, alg, r) in done.into_iter().flatten() {
        merge(&mut out[idx], alg, r, algs.len());
    }
    out.into_iter()
        .map(|r| r.expect("a result per file"))
        .collect()
}

/// Fold a finished stream's result `r` into its file's `slot`: the whole result for a
/// stream of every algorithm, else its digest in place `alg` of `algs` digests. Any
/// stream's error is the file's; streams of one file that read to different ends (it
/// grew meanwhile) are an error too, never digests of different contents.
fn merge(
    slot: &mut Option<io::Result<Hashed>>,
    alg: Option<usize>,
    r: io::Result<Hashed>,
    algs: usize,
) {
    match (alg, slot.as_mut(), r) {
        (None, _, r) | (Some(_), None, r @ Err(_)) => *slot = Some(r),
        (Some(a), None, Ok(h)) => {
            let mut digests = vec![Digest::from_bytes(&[]); algs];
            digests[a] = one_digest(h.digests);
            *slot = Some(Ok(Hashed {
                size: h.size,
                digests,
            }));
        }
        (Some(_), Some(Err(_)), _) => {}
        (Some(_), Some(Ok(_)), Err(e)) => *slot = Some(Err(e)),
        (Some(a), Some(Ok(have)), Ok(h)) if have.size == h.size => {
            have.digests[a] = one_digest(h.digests);
        }
        (Some(_), Some(Ok(_)), Ok(_)) => {
            *slot = Some(Err(io::Error::other("file changed while it was read")));
        }
    }
}

/// A finished stream: its file's place, its algorithm (`None`: all), and its result.
type Done = (usize, Option<usize>, io::Result<Hashed>);

/// The digest of a stream of one algorithm.
fn one_digest(digests: Vec<Digest>) -> Digest {
    digests.into_iter().next().expect("a stream's digest")
}

/// A hasher for each algorithm a stream computes: all of `algs`, or the one of `alg`.
fn hashers_for(algs: &[Algorithm], alg: Option<usize>) -> Vec<Hasher> {
    match alg {
        Some(a) => vec![Hasher::new(algs[a])],
        None => algs.iter().map(|&a| Hasher::new(a)).collect(),
    }
}

/// Runs split into a stream per file and algorithm so far, for the tests.
#[cfg(test)]
pub(crate) static SPLITS: AtomicUsize = AtomicUsize::new(0);

/// Streams handed over so far, for the tests.
#[cfg(test)]
pub(crate) static HANDED: AtomicUsize = AtomicUsize::new(0);

/// The streams of a [`mover`] run, shared by its workers.
struct Pool {
    state: Mutex<Shared>,
    /// Signalled when streams are handed over or the last one finishes.
    handed: Condvar,
    /// Workers waiting for a stream (read without the lock at every window).
    hungry: AtomicUsize,
}

struct Shared {
    /// Streams handed over by a worker, for the hungry ones.
    ready: VecDeque<Moving>,
    /// Files not started yet, largest first.
    pending: VecDeque<Pending>,
    /// Streams started and not finished: held by a worker or in `ready`.
    live: usize,
    /// Of those, the ones that map their windows.
    mapping: usize,
}

/// A stream that any worker may take on between two windows: the file, a hasher per
/// algorithm, and its read buffer (grown only if it reads).
struct Moving {
    stream: Stream,
    hashers: Vec<Hasher>,
    buf: Vec<u8>,
    maps: bool,
}

/// One worker of a run whose streams can move: it starts up to `per` files, hashes a
/// window of each side by side in lanes (`Hasher::update_many`), and starts the next
/// file when one ends. Once no file is left to start, a worker with nothing to hash
/// waits, and the others hand it streams (keeping one each) at their next window.
///
/// Each stream's state is its own hashers, not a worker's lanes, so the files dealt at
/// the start are not a worker's to the end: on a 16-core Xeon VM, 64 files of 64 MiB
/// dealt 4 per worker had 2 to 4 workers finishing 1.4-1.7x after the rest in every run
/// (SHA-256: most at 210-285 ms, those at 370), on cores that ran slower (other VMs on
/// the host), while the others sat idle.
///
/// The wait is safe because a window never enters rayon (the caller keeps BLAKE3 and the
/// CRCs, which spread a write over the pool, out of this path): a worker holding streams
/// is always running, never suspended under another worker's frame by work stealing.
fn mover(pool: &Pool, per: usize, algs: &[Algorithm], maps: Option<(usize, usize)>) -> Vec<Done> {
    // (streams that may map at once, bytes per map)
    let (max_maps, map_len) = maps.unwrap_or((0, 0));
    let lock = || pool.state.lock().unwrap_or_else(PoisonError::into_inner);
    let mut done = Vec::new();
    let mut held: Vec<Moving> = Vec::with_capacity(per);
    // Files ended or handed over since the last take: whether to take more.
    let mut room = true;
    loop {
        if room {
            room = false;
            let mut sh = lock();
            loop {
                while held.len() < per {
                    let Some(p) = sh.pending.pop_front() else {
                        break;
                    };
                    let maps = sh.mapping < max_maps;
                    sh.mapping += usize::from(maps);
                    sh.live += 1;
                    held.push(Moving {
                        hashers: hashers_for(algs, p.alg),
                        stream: Stream::new(p),
                        buf: Vec::new(),
                        maps,
                    });
                }
                if !held.is_empty() {
                    break;
                }
                // One handed-over stream at a time, so that each hungry worker gets one.
                if let Some(m) = sh.ready.pop_front() {
                    held.push(m);
                    break;
                }
                if sh.live == 0 {
                    return done;
                }
                pool.hungry.fetch_add(1, Ordering::SeqCst);
                sh = pool.handed.wait(sh).unwrap_or_else(PoisonError::into_inner);
                pool.hungry.fetch_sub(1, Ordering::SeqCst);
            }
        }
        for m in &mut held {
            m.stream.next_window(&mut m.buf, m.maps, map_len);
        }
        {
            // Every stream's hashers in one call, which runs each family's in its lanes.
            let mut hashers: Vec<&mut Hasher> = Vec::with_capacity(held.len() * algs.len());
            let mut chunks: Vec<&[u8]> = Vec::with_capacity(held.len() * algs.len());
            for m in &mut held {
                let window = m.stream.window(&m.buf);
                for h in &mut m.hashers {
                    hashers.push(h);
                    chunks.push(window);
                }
            }
            Hasher::update_many(&mut hashers, &chunks);
        }
        let (mut finished, mut unmapped) = (0, 0);
        let mut i = 0;
        while i < held.len() {
            let s = &mut held[i].stream;
            s.account();
            if !s.ended && s.failed.is_none() {
                i += 1;
                continue;
            }
            let m = held.swap_remove(i);
            finished += 1;
            unmapped += usize::from(m.maps);
            let digests: Vec<Digest> = m.hashers.into_iter().map(Hasher::finalize).collect();
            done.push((m.stream.idx, m.stream.alg, m.stream.result(digests)));
        }
        let hungry = pool.hungry.load(Ordering::SeqCst);
        if finished == 0 && (hungry == 0 || held.len() < 2) {
            continue;
        }
        // Hand the hungry the streams with the most left to hash, keeping one.
        let give = hungry.min(held.len().saturating_sub(1));
        if give > 0 {
            held.sort_by_key(|m| m.stream.stat_len.saturating_sub(m.stream.size));
        }
        #[cfg(test)]
        HANDED.fetch_add(give, Ordering::SeqCst);
        let mut sh = lock();
        sh.ready.extend(held.drain(held.len() - give..));
        sh.live -= finished;
        sh.mapping -= unmapped;
        drop(sh);
        // Something was handed over or finished (else the round went on above).
        pool.handed.notify_all();
        room = finished > 0 || held.is_empty();
    }
}

/// One worker: `per` streams in one [`StreamBatch`] per algorithm, started with `share`
/// and refilled from `queue` as files end, until both are empty.
fn worker(
    share: Vec<Pending>,
    per: usize,
    queue: &Mutex<VecDeque<Pending>>,
    algs: &[Algorithm],
    maps: Option<(usize, usize)>,
) -> Vec<Done> {
    // (streams that map, bytes per map)
    let (mapping, map_len) = maps.unwrap_or((0, 0));
    let mut batches: Vec<StreamBatch> = algs.iter().map(|&a| StreamBatch::new(a, per)).collect();
    let mut slots: Vec<Option<Stream>> = share.into_iter().map(|p| Some(Stream::new(p))).collect();
    slots.resize_with(per, || None);
    // Grown only for streams that read (see `READ_CHUNK`).
    let mut bufs: Vec<Vec<u8>> = (0..per).map(|_| Vec::new()).collect();
    let mut done = Vec::new();
    let next = || queue.lock().map_or(None, |mut q| q.pop_front());
    while slots.iter().any(Option::is_some) {
        for (i, (s, buf)) in slots.iter_mut().zip(&mut bufs).enumerate() {
            if let Some(s) = s {
                s.next_window(buf, i < mapping, map_len);
            }
        }
        {
            let chunks: Vec<&[u8]> = slots
                .iter()
                .zip(&bufs)
                .map(|(s, buf)| s.as_ref().map_or(&[][..], |s| s.window(buf)))
                .collect();
            for b in &mut batches {
                b.update(&chunks);
            }
        }
        for (i, slot) in slots.iter_mut().enumerate() {
            let Some(s) = slot else { continue };
            s.account();
            if !s.ended && s.failed.is_none() {
                continue;
            }
            // Its digests are taken and its stream restarted for the next file.
            let digests: Vec<Digest> = batches.iter_mut().map(|b| b.restart(i)).collect();
            let s = slot.take().expect("a stream");
            done.push((s.idx, None, s.result(digests)));
            *slot = next().map(Stream::new);
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_windows_fit_the_budget_and_pages() {
        for streams in [1, 2, 3, 16, 64, 128, 1000] {
            let n = map_len(streams);
            assert_eq!(n % MAP_MIN, 0, "{streams}");
            assert!((MAP_MIN..=MAP_MAX).contains(&n), "{streams}");
            assert!(streams.min(GROUP_REAL) * n <= MAP_BUDGET.max(GROUP_REAL * MAP_MIN));
        }
    }
    const GROUP_REAL: usize = 128;

    /// A file split into a stream per algorithm gets each digest in its algorithm's
    /// place, and an error if any stream failed or the streams read different lengths.
    #[test]
    fn split_streams_merge_into_one_result() {
        let ok = |size: u64, d: u8| -> io::Result<Hashed> {
            Ok(Hashed {
                size,
                digests: vec![Digest::from_bytes(&[d])],
            })
        };
        let mut slot = None;
        merge(&mut slot, Some(1), ok(5, 11), 3);
        merge(&mut slot, Some(0), ok(5, 10), 3);
        merge(&mut slot, Some(2), ok(5, 12), 3);
        let h = slot.unwrap().unwrap();
        assert_eq!(h.size, 5);
        let want: Vec<Digest> = [10, 11, 12]
            .iter()
            .map(|&d| Digest::from_bytes(&[d]))
            .collect();
        assert_eq!(h.digests, want);

        let mut slot = None;
        merge(&mut slot, Some(0), ok(5, 10), 2);
        merge(&mut slot, Some(1), ok(6, 11), 2);
        let e = slot.unwrap().unwrap_err();
        assert_eq!(e.to_string(), "file changed while it was read");

        for failing in [0, 1] {
            let mut slot = None;
            for a in 0..2 {
                let r = if a == failing {
                    Err(io::Error::other("file shrank while it was read"))
                } else {
                    ok(5, 10)
                };
                merge(&mut slot, Some(a), r, 2);
            }
            let e = slot.unwrap().unwrap_err();
            assert_eq!(e.to_string(), "file shrank while it was read");
        }
    }
}
