//! Big files side by side: each worker thread streams its share of the files through its
//! own lanes, with no round that waits for the other threads.
//!
//! The files are sorted largest first and dealt to the workers in turn (one worker per
//! thread of the pool, never more workers than files), each worker taking up to its share
//! of [`GROUP`] streams. A worker maps (or reads) the next window of each of its streams,
//! hashes them in one lane pass per algorithm ([`StreamBatch`], read in place), and when
//! a file ends gives its stream to the next file of a queue shared by all workers. What
//! the workers share is that queue (one lock per file started) and nothing else: their
//! batches, windows and buffers are their own, so adding threads adds throughput until
//! memory bandwidth runs out, and two big files keep two cores busy from start to end.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

use lanesum::{Algorithm, Digest, StreamBatch};
use rayon::prelude::*;

use crate::hashed::Hashed;
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

/// How many of `streams` may map a window of `map_len` bytes at once: all of them, or
/// under a `ulimit -v` those that fit a quarter of the address space left (the others
/// read); a map beyond that would succeed and leave nothing for the allocations after it.
fn mapping_streams(streams: usize, map_len: usize) -> usize {
    memory::within_address_space(streams * map_len, 4, 0) / map_len
}

/// A file waiting for a stream: its place among the files, and its size when stat'ed.
struct Pending {
    idx: usize,
    stat_len: u64,
    file: File,
}

/// A file being streamed.
struct Stream {
    idx: usize,
    file: File,
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
                self.failed = Some(io::Error::other("file shrank while it was read"));
            } else if self.size >= self.stat_len {
                // Mapped to its stat'ed end: read on only if it grew meanwhile.
                self.ended = self.file.metadata().map_or(true, |m| m.len() <= self.size);
            }
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
            file,
        })
        .collect();
    by_size.sort_by_key(|p| std::cmp::Reverse(p.stat_len));
    let workers = rayon::current_num_threads().clamp(1, count);
    let per = count.min(GROUP).div_ceil(workers);
    let map_len = map_len(workers * per);
    let maps = mapping_streams(workers * per, map_len);
    // Each worker's share of the maps: its first streams map, the others read.
    let maps_per = maps / workers;
    // Largest first, dealt in turn: the shares get similar byte counts, and the small
    // files fill the lanes the large ones leave, rather than one file running alone long.
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
    let done: Vec<Vec<(usize, io::Result<Hashed>)>> = shares
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
        .collect();
    let mut out: Vec<Option<io::Result<Hashed>>> = (0..count).map(|_| None).collect();
    for (idx, r) in done.into_iter().flatten() {
        out[idx] = Some(r);
    }
    out.into_iter()
        .map(|r| r.expect("a result per file"))
        .collect()
}

/// One worker: `per` streams in one [`StreamBatch`] per algorithm, started with `share`
/// and refilled from `queue` as files end, until both are empty.
fn worker(
    share: Vec<Pending>,
    per: usize,
    queue: &Mutex<VecDeque<Pending>>,
    algs: &[Algorithm],
    maps: Option<(usize, usize)>,
) -> Vec<(usize, io::Result<Hashed>)> {
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
                .map(|(s, buf)| match s {
                    Some(s) if s.failed.is_some() => &[][..],
                    Some(Stream {
                        map: Some(m), len, ..
                    }) => &m[..*len],
                    Some(s) => &buf[..s.len],
                    None => &[][..],
                })
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
            done.push((s.idx, s.result(digests)));
            *slot = next().map(Stream::new);
        }
    }
    done
}

/// Read into `buf` from `offset` until it is full or at end of file; returns the bytes read.
fn read_full_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
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
}
