//! A window of jobs on every core: each task opens, reads and hashes its own run of
//! files, so no single thread opens or reads for the others.
//!
//! The window is cut into runs of consecutive jobs, one rayon task each (a few per
//! thread, so that the threads that finish early take the others' runs). A task opens and
//! stats each of its jobs, reads each small regular file into its own buffer and closes
//! it at once, and hashes what it read in lanes on its own core (`lanesum::hash_many`)
//! whenever [`task_bytes`] are buffered and at its end: the bytes are hashed while they
//! are still in that core's caches. Big files and non-regular inputs are handed back to
//! the pipeline in their places. What tasks share: the pool of buffers (one lock per
//! task) and nothing else; results go to each job's own slot.

use std::fs::File;
use std::io::{self, Seek};
use std::sync::Mutex;

use lanesum::{hash_many, Algorithm, Digest};
use rayon::prelude::*;

use crate::hashed::{by_input, Hashed};
use crate::input::{Input, Job};
use crate::memory;
use crate::opened::{open, Opened, SMALL_MAX};
use crate::stream::{hash_reader, read_full, read_once};

/// Bytes of small files a task reads before it hashes them: enough files to fill every
/// lane of a core many times over (64 KiB files: 64 to 128), few enough to stay in its
/// caches. A task's buffer grows with what its files need, up to this plus one small
/// file (less under a `ulimit -v` that leaves little room, but always room for one small
/// file); its capacity at most doubles at each step (`memory::grow_amortized`).
///
/// [`TASKS_BYTES`] shared by the threads, within [`TASK_MIN`] and [`TASK_MAX`]: the
/// threads share the last-level cache, and 8 MiB each on 16 cores (128 MiB) went past it.
/// 20,000 files of 1 B-128 KiB on a 16-core Xeon, 5 rounds alternating, best (median)
/// ms at 8, 4 and 2 MiB: MD5 86 (92), 73 (77), 75 (78); SHA-256 120 (129), 114 (118),
/// 104 (116); BLAKE3 95 (107), 82 (91), 80 (87). On 2 of its cores 4 MiB was no slower
/// than 8, and 2 MiB slower for MD5 (338 against 299 ms).
pub(crate) fn task_bytes(threads: usize) -> usize {
    (TASKS_BYTES / threads.max(1)).clamp(TASK_MIN, TASK_MAX)
}
const TASKS_BYTES: usize = 64 << 20;
const TASK_MIN: usize = 2 << 20;
const TASK_MAX: usize = 8 << 20;
/// Jobs per task: a window is cut into about two runs per thread, within these bounds.
pub(crate) const RUN_MIN: usize = 8;
const RUN_MAX: usize = 256;

/// What became of a job of a window.
#[derive(Debug)]
pub(crate) enum Slot {
    /// Hashed (a small file), or failed.
    Done(io::Result<Hashed>),
    /// A big regular file, open, for the big-file streams.
    Big(File),
    /// Standard input or a file that is not regular: streamed in its turn.
    Stream(Input),
}

/// The buffers of the tasks running at once, reused window after window; at most one
/// per task running at once, so memory grows with the threads, not the files.
#[derive(Debug, Default)]
pub(crate) struct Buffers(Mutex<Vec<Vec<u8>>>);

impl Buffers {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map_or(None, |mut v| v.pop())
            .unwrap_or_default()
    }

    fn give(&self, buf: Vec<u8>) {
        if let Ok(mut v) = self.0.lock() {
            v.push(buf);
        }
    }

    /// Bytes held by the buffers not in use (all of them between windows).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.0.lock().map_or(0, |v| v.iter().map(Vec::len).sum())
    }
}

/// Open, read and hash every job of `window` on the current rayon pool (or, with
/// `parallel` false, on this thread): a [`Slot`] per job, in order.
pub(crate) fn hash_window(
    window: Vec<Job>,
    algs: &[Algorithm],
    buffers: &Buffers,
    parallel: bool,
) -> Vec<Slot> {
    if !parallel {
        return hash_run(window, algs, buffers, room(1));
    }
    let (room, runs) = plan(window, rayon::current_num_threads());
    let runs: Vec<Vec<Slot>> = runs
        .into_par_iter()
        .map(|jobs| hash_run(jobs, algs, buffers, room))
        .collect();
    runs.into_iter().flatten().collect()
}

/// A window cut for `threads` threads: the bytes each run may buffer (its
/// `task_bytes`), and the runs, about two per thread, in order.
pub(crate) fn plan(window: Vec<Job>, threads: usize) -> (usize, Vec<Vec<Job>>) {
    let threads = threads.max(1);
    let run = (window.len() / (2 * threads)).clamp(RUN_MIN, RUN_MAX);
    let mut jobs = window.into_iter();
    let runs = std::iter::from_fn(|| Some(jobs.by_ref().take(run).collect::<Vec<Job>>()))
        .take_while(|r| !r.is_empty())
        .collect();
    (room(threads), runs)
}

/// The bytes a run may buffer on one of `threads` threads: [`task_bytes`], or under a
/// `ulimit -v` less, the threads' buffers taking at most a quarter of what is left.
fn room(threads: usize) -> usize {
    memory::within_address_space(task_bytes(threads), 4 * threads, SMALL_MAX as usize + 1)
}

/// One task: its jobs opened, read and hashed in turn, on this thread, hashing whenever
/// `task_bytes` are read.
pub(crate) fn hash_run(
    jobs: Vec<Job>,
    algs: &[Algorithm],
    buffers: &Buffers,
    task_bytes: usize,
) -> Vec<Slot> {
    let mut buf = buffers.take();
    let mut slots: Vec<Option<Slot>> = Vec::with_capacity(jobs.len());
    // Files read and not yet hashed: (slot, offset in `buf`, length).
    let mut pending: Vec<(usize, usize, usize)> = Vec::new();
    let mut used = 0;
    for job in jobs {
        let at = slots.len();
        let slot = match open(job.input, job.found_regular) {
            Opened::Failed(e) => Slot::Done(Err(e)),
            Opened::Big(f) => Slot::Big(f),
            Opened::Stream(input) => Slot::Stream(input),
            Opened::Small(f, len) => {
                // One spare byte: if it fills, the file grew since it was stat'ed.
                let room = len as usize + 1;
                if used + room > task_bytes && !pending.is_empty() {
                    hash_pending(&buf, &mut pending, &mut slots, algs);
                    used = 0;
                }
                match read_small(f, &mut buf, used, room, algs) {
                    Ok(Read::Whole(n)) => {
                        pending.push((at, used, n));
                        used += n;
                        slots.push(None);
                        continue;
                    }
                    Ok(Read::Grew(r)) => Slot::Done(r),
                    Err(e) => Slot::Done(Err(e)),
                }
            }
        };
        slots.push(Some(slot));
    }
    hash_pending(&buf, &mut pending, &mut slots, algs);
    buffers.give(buf);
    slots
        .into_iter()
        .map(|s| s.expect("every job has its slot"))
        .collect()
}

/// A small file read: whole (its length), or it grew and was hashed on its own.
enum Read {
    Whole(usize),
    Grew(io::Result<Hashed>),
}

/// Read the small file `f` into `buf` at `at`, with `room` bytes for it (its stat'ed
/// size and one more); the file is closed here, on the task's thread, unless it grew.
fn read_small(
    mut f: File,
    buf: &mut Vec<u8>,
    at: usize,
    room: usize,
    algs: &[Algorithm],
) -> io::Result<Read> {
    memory::grow_amortized(buf, at + room)?;
    let dst = &mut buf[at..at + room];
    let first = read_once(&mut &f, dst)?;
    // A first read that returns the stat'ed size (asked for a byte more) has the whole
    // file as it was stat'ed, without the read() of its end: a file grown since fills
    // the spare byte, unless its file system cut the read short, and then it is hashed
    // as stat'ed. A shorter count reads on to the end; a full one is a grown file.
    let n = if first + 1 == room || first == 0 {
        first
    } else {
        first + read_full(&f, &mut dst[first..])?
    };
    if n < room {
        return Ok(Read::Whole(n));
    }
    // It grew: hash it again from the start, streamed to its (new) end.
    Ok(Read::Grew(
        f.rewind().and_then(|()| hash_reader(&mut f, algs)),
    ))
}

/// Hash the files read into `buf` in lanes, on this core, into their slots.
fn hash_pending(
    buf: &[u8],
    pending: &mut Vec<(usize, usize, usize)>,
    slots: &mut [Option<Slot>],
    algs: &[Algorithm],
) {
    if pending.is_empty() {
        return;
    }
    let msgs: Vec<&[u8]> = pending
        .iter()
        .map(|&(_, off, n)| &buf[off..off + n])
        .collect();
    let per_alg: Vec<Vec<Digest>> = algs.iter().map(|&a| hash_many(a, &msgs)).collect();
    for (&(at, _, n), digests) in pending.iter().zip(by_input(&per_alg, msgs.len())) {
        slots[at] = Some(Slot::Done(Ok(Hashed {
            size: n as u64,
            digests,
        })));
    }
    pending.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Sizes that changed between stat and read: what is read is what is hashed.
    #[test]
    fn grown_and_shrunk_files_hash_what_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let d: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        File::create(&p).unwrap().write_all(&d).unwrap();
        let algs = [Algorithm::Md5, Algorithm::Sha256];
        let mut buf = Vec::new();
        // Stat'ed at 10 bytes (it grew since): hashed again, streamed, all of it.
        match read_small(File::open(&p).unwrap(), &mut buf, 5, 11, &algs).unwrap() {
            Read::Grew(r) => {
                let h = r.unwrap();
                assert_eq!(h.size, 1000);
                assert_eq!(h.digests[1], lanesum::hash(Algorithm::Sha256, &d));
            }
            Read::Whole(n) => panic!("read {n} bytes of a grown file as whole"),
        }
        // Stat'ed at 5000 (it shrank since): the 1000 bytes read, after what was there.
        match read_small(File::open(&p).unwrap(), &mut buf, 5, 5001, &algs).unwrap() {
            Read::Whole(n) => assert_eq!((n, &buf[5..1005]), (1000, &d[..])),
            Read::Grew(_) => panic!("a shrunk file read as grown"),
        }
        assert_eq!(buf.len(), 5006, "the buffer is what the files needed");
    }

    /// A buffer that can't be had is the file's error; the run goes on.
    #[test]
    fn a_refused_buffer_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"abc").unwrap();
        let mut buf = Vec::new();
        let e = read_small(File::open(&p).unwrap(), &mut buf, usize::MAX / 4, 4, &[])
            .err()
            .expect("no buffer of that size");
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
    }
}
