//! The read pipeline: every input read once, in bounded memory, with both cores hashing.
//!
//! Jobs are taken a window at a time. The window's files are opened and stat'ed in
//! parallel, then handled in order:
//! * runs of small regular files are read (in parallel, into one reused arena of at most
//!   [`BUDGET`] bytes) and hashed together with `hash_many_par`, many files per lane set;
//! * big regular files wait, across windows, until [`GATHER`] are there (or an output
//!   needs them; the outputs after them wait too, in order), then are streamed side by
//!   side, up to [`GROUP`] at once, a [`GROUP_MAP`] window of each at a time mapped (see
//!   `mapped`), else a [`GROUP_CHUNK`] one read: each core hashes its share's windows in
//!   one lane pass (`lanesum::StreamBatch`, read in place), and a file that ends gives
//!   its stream to the next, as `hash_many` would whole files, in bounded memory;
//! * a lone big file, standard input, FIFOs and devices are streamed on their own, where
//!   BLAKE3 (and several algorithms) still use every core.
//!
//! Big files are memory-mapped a window at a time (see `mapped`, which survives
//! truncation); a file that shrinks or grows while it is read gives the digest of what was
//! read, or an error, never a crash. Peak memory: the arena, the group buffers, one
//! window of names, and the outputs held back behind gathering big files (see the
//! constants).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, Seek};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::sync::OnceLock;

use lanesum::{hash_many_par, Algorithm, Digest, MultiHasher, StreamBatch};
use rayon::prelude::*;

use crate::hashed::{by_input, Hashed, HashedFile};
use crate::input::{Input, Job};
use crate::options::Options;
use crate::stream::{hash_reader, hash_reader_from, hash_streamed, read_full};
use crate::{fds, mapped};

/// Jobs opened at once: enough files to fill every lane of both cores many times over.
/// Fewer where the limit on open files is lower (see [`Limits`]).
const WINDOW: usize = 512;
/// Fewer jobs than this are opened, and fewer files and bytes than this of small files
/// read, on the calling thread: starting the thread pool costs more (~0.3 ms of a 1.9 ms
/// run hashing one small file).
const PAR_MIN_JOBS: usize = 16;
const PAR_MIN_BYTES: usize = 1 << 20;
/// Outputs held back while big files gather for a group (each a name and digests).
const MAX_HELD: usize = 64 * WINDOW;
/// Regular files up to this size are read whole into the arena and hashed in lanes.
const SMALL_MAX: u64 = 1 << 20;
/// Arena size: the bytes of small files read before they are hashed.
const BUDGET: usize = 64 << 20;
/// Big files streamed side by side: enough streams to fill the widest kernel of each
/// core (MD5 runs 64 lanes per core). Measured on 64 files of 16 MiB: on a Xeon 16
/// streams 0.27 s, 32 or 64 streams 0.20 s; on Zen 5 (MD5) 32 streams 0.11 s, 64 streams
/// 0.065 s. With files of many sizes more streams keep more lanes busy: `-r /usr` (381
/// files over 1 MiB, 3.9 GB, among 130k), MD5 on Zen 4, 2.21-2.33 s with 64 streams (and
/// 4 MiB windows), 2.06-2.16 s with 128 (and 2 MiB windows, the same mapped bytes).
/// In tests, few enough that a test's big files make several groups.
const GROUP: usize = if cfg!(test) { 16 } else { 128 };
/// Big files gathered before they are hashed: more than [`GROUP`], so that the small
/// ones take over the streams the large ones leave (`-r /usr` as above: 2.37-2.73 s
/// gathering 64 for 64 streams, 2.21-2.33 s gathering 128 for 64). Fewer where the
/// limit on open files is lower.
const GATHER: usize = 2 * GROUP;
/// Descriptors left for everything else: standard streams, the walk's directories
/// (`walkdir` keeps up to 10 open), a check file.
const SPARE_FDS: usize = 16;

/// How many files are open at once: a window's, and the big files gathered (all of them
/// while a window is being handled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Limits {
    window: usize,
    gather: usize,
}

impl Limits {
    /// [`WINDOW`] and [`GATHER`], or less when only `free` more files may be open (a
    /// hard `ulimit -n` below them): a third of them for the gathered files, at least
    /// one file each, so that no input fails with "Too many open files" that could be
    /// hashed one at a time.
    fn for_free(free: usize) -> Limits {
        if free >= WINDOW + GATHER {
            return Limits {
                window: WINDOW,
                gather: GATHER,
            };
        }
        let gather = (free / 3).clamp(1, GATHER);
        Limits {
            window: free.saturating_sub(gather).clamp(1, WINDOW),
            gather,
        }
    }
}

static LIMITS: OnceLock<Limits> = OnceLock::new();

/// This process's [`Limits`], from the limit on open files when first asked (after
/// [`reserve_descriptors`] raised it) and the descriptors open then.
fn limits() -> Limits {
    *LIMITS.get_or_init(|| {
        let max = fds::open_file_limit();
        // Less one: listing the directory takes a descriptor of its own.
        let open =
            std::fs::read_dir("/proc/self/fd").map_or(SPARE_FDS, |d| d.count().saturating_sub(1));
        Limits::for_free(max.saturating_sub(open + SPARE_FDS))
    })
}
/// Bytes read from each big file per round (`GROUP * GROUP_CHUNK` of buffers).
const GROUP_CHUNK: usize = 512 << 10;
/// Bytes mapped from each big file per round: each map and unmap costs page-table work
/// and a TLB flush on every core, so larger than a read window (64 x 16 MiB on Zen 5:
/// SHA-256 0.135 -> 0.129 s, MD5 0.076 -> 0.069 s from 1 to 4 MiB; on Zen 4, 2 and 4 MiB
/// alike), but `GROUP * GROUP_MAP` is what is mapped at once.
const GROUP_MAP: usize = 2 << 20;

/// A job after open and fstat.
enum Opened {
    Failed(io::Error),
    /// A regular file of at most `SMALL_MAX` bytes (its size when stat'ed).
    Small(File, u64),
    /// A larger regular file.
    Big(File),
    /// Standard input or a path that is not a regular file: opened (a FIFO may block
    /// until a writer comes) and read when its turn comes.
    Stream(Input),
}

/// The results of a sequence of jobs, in job order, as an iterator of [`HashedFile`]s:
/// see [`hash_jobs`]. Memory stays bounded however many jobs there are.
pub struct Pipeline<I> {
    jobs: I,
    algs: Vec<Algorithm>,
    /// Big files may be mapped (the options allow it and the SIGBUS handler is there).
    mmap: bool,
    /// Every opened job's output in order, `None` until it is hashed. A big file waits in
    /// `bigs` for companions, and the outputs after it wait with it.
    ready: VecDeque<(OsString, Option<io::Result<Hashed>>)>,
    /// Outputs taken from `ready` so far: `ready[0]` is output number `taken`.
    taken: usize,
    /// Big files waiting to be hashed side by side: (output number, file).
    bigs: Vec<(usize, File)>,
    /// `jobs` is exhausted.
    done: bool,
    arena: Vec<u8>,
    group_bufs: Vec<Vec<u8>>,
}

impl<I> fmt::Debug for Pipeline<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline")
            .field("algs", &self.algs)
            .field("mmap", &self.mmap)
            .field("taken", &self.taken)
            .field("held", &self.ready.len())
            .field("bigs", &self.bigs.len())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Hash every job under every algorithm, yielding a [`HashedFile`] per job, in job order.
///
/// Each input is read once; all algorithms are computed from that one read. Jobs are
/// pulled a window at a time, so a caller prints each window's lines before the next is
/// read, and a job list of any length (a walk of a huge tree) takes bounded memory. Only
/// [`Options::mmap`] is read from `opts` (the jobs are already found).
pub fn hash_jobs<I: Iterator<Item = Job>>(
    jobs: I,
    algs: &[Algorithm],
    opts: &Options,
) -> Pipeline<I> {
    Pipeline::new(jobs, algs, opts)
}

/// Hash each input under every algorithm, yielding results in input order.
pub fn hash_inputs<'a>(
    inputs: &'a [Input],
    algs: &[Algorithm],
    opts: &Options,
) -> impl Iterator<Item = io::Result<Hashed>> + 'a {
    let jobs = inputs.iter().map(|i| {
        let name = match i {
            Input::Stdin => OsString::from("-"),
            Input::Path(p) => p.clone(),
        };
        Job::new(name, Ok(i.clone()))
    });
    hash_jobs(jobs, algs, opts).map(|f| f.result)
}

impl<I: Iterator<Item = Job>> Pipeline<I> {
    fn new(jobs: I, algs: &[Algorithm], opts: &Options) -> Self {
        Pipeline {
            jobs,
            algs: algs.to_vec(),
            mmap: opts.mmap && mapped::handler_installed(),
            ready: VecDeque::new(),
            taken: 0,
            bigs: Vec::new(),
            done: false,
            arena: Vec::new(),
            group_bufs: Vec::new(),
        }
    }

    /// Output number `at` is `r`.
    fn set(&mut self, at: usize, r: io::Result<Hashed>) {
        self.ready[at - self.taken].1 = Some(r);
    }

    /// Open the next window of jobs and hash them into `ready`, except big files, which
    /// join `bigs` (hashed once [`GATHER`] are there, or when an output needs them).
    fn fill(&mut self) {
        let Limits {
            window: max,
            gather,
        } = limits();
        let mut window = Vec::new();
        for job in self.jobs.by_ref() {
            // Standard input may be a terminal: hash what came before it first.
            let stdin = matches!(job.input, Ok(Input::Stdin));
            window.push(job);
            if stdin || window.len() >= max {
                break;
            }
        }
        if window.is_empty() {
            self.done = true;
            return;
        }
        let open_job = |j: Job| (j.name, open(j.input, j.found_regular));
        let items: Vec<(OsString, Opened)> = if window.len() < PAR_MIN_JOBS {
            window.into_iter().map(open_job).collect()
        } else {
            window.into_par_iter().map(open_job).collect()
        };
        let in_lanes = self.algs.iter().any(|a| a.streams_in_lanes());
        // Small files, up to `BUDGET` bytes: (output number, file, size).
        let mut run: Vec<(usize, File, u64)> = Vec::new();
        let mut bytes = 0;
        for (name, item) in items {
            let at = self.taken + self.ready.len();
            self.ready.push_back((name, None));
            match item {
                Opened::Failed(e) => self.set(at, Err(e)),
                Opened::Small(f, len) => {
                    if bytes + len as usize + 1 > BUDGET {
                        self.small_run(std::mem::take(&mut run));
                        bytes = 0;
                    }
                    bytes += len as usize + 1;
                    run.push((at, f, len));
                }
                Opened::Big(f) if in_lanes => {
                    self.bigs.push((at, f));
                    if self.bigs.len() >= gather {
                        self.run_bigs();
                    }
                }
                Opened::Big(f) => {
                    let r = hash_lone(f, &self.algs, self.mmap);
                    self.set(at, r);
                }
                Opened::Stream(input) => {
                    // Everything before it first: it may block (a FIFO, a terminal).
                    self.small_run(std::mem::take(&mut run));
                    bytes = 0;
                    self.run_bigs();
                    let r = hash_streamed(&input, &self.algs);
                    self.set(at, r);
                }
            }
        }
        self.small_run(run);
    }

    /// Hash the waiting big files: side by side in lanes, or a lone one on its own.
    fn run_bigs(&mut self) {
        let (at, files): (Vec<usize>, Vec<File>) =
            std::mem::take(&mut self.bigs).into_iter().unzip();
        let results = match <[File; 1]>::try_from(files) {
            Ok([f]) => vec![hash_lone(f, &self.algs, self.mmap)],
            Err(files) if files.is_empty() => return,
            Err(files) => self.big_run(files),
        };
        for (at, r) in at.into_iter().zip(results) {
            self.set(at, r);
        }
    }

    /// Read small files into the arena in parallel, then hash them all in lanes.
    fn small_run(&mut self, run: Vec<(usize, File, u64)>) {
        if run.is_empty() {
            return;
        }
        // One spare byte per file: if it fills, the file grew since it was stat'ed.
        let need: usize = run.iter().map(|(_, _, len)| *len as usize + 1).sum();
        if self.arena.len() < need {
            // Once, at full size: a fresh `vec![0; n]` is pages the kernel zeroes as they
            // are first read into, where growing it run by run copied and zero-filled it
            // (4-21 ms a time over the first windows of 5,000 small files).
            self.arena = vec![0; need.max(BUDGET)];
        }
        let mut slices: Vec<&mut [u8]> = Vec::with_capacity(run.len());
        let mut rest = &mut self.arena[..need];
        for (_, _, len) in &run {
            let (a, b) = rest.split_at_mut(*len as usize + 1);
            slices.push(a);
            rest = b;
        }
        // Each file is closed where it was read, on every core, unless it grew (it is
        // read again below); closing 5,000 files one after another took ~10 ms.
        let (ats, files): (Vec<usize>, Vec<File>) =
            run.into_iter().map(|(at, f, _)| (at, f)).unzip();
        let read = |(f, buf): (File, &mut &mut [u8])| {
            let r = read_full(&f, buf);
            let grew = matches!(r, Ok(n) if n == buf.len());
            (r, grew.then_some(f))
        };
        // Few files and few bytes: on this thread. Many tiny files are still worth both
        // cores: each costs a read and a close whatever its size.
        let serial = need < PAR_MIN_BYTES && files.len() < PAR_MIN_JOBS;
        let reads: Vec<(io::Result<usize>, Option<File>)> = if serial {
            files.into_iter().zip(slices.iter_mut()).map(read).collect()
        } else {
            files
                .into_par_iter()
                .zip(slices.par_iter_mut())
                .map(read)
                .collect()
        };
        let mut msgs: Vec<&[u8]> = Vec::with_capacity(ats.len());
        for (r, buf) in reads.iter().zip(&slices) {
            if let (Ok(n), None) = r {
                msgs.push(&buf[..*n]);
            }
        }
        let per_alg: Vec<Vec<Digest>> =
            self.algs.iter().map(|&a| hash_many_par(a, &msgs)).collect();
        let mut digests = by_input(&per_alg, msgs.len()).into_iter();
        for (at, r) in ats.into_iter().zip(reads) {
            let res = match r {
                (Err(e), _) => Err(e),
                // It grew: hash it again from the start, streamed to its (new) end.
                (Ok(_), Some(mut f)) => f.rewind().and_then(|()| hash_reader(&mut f, &self.algs)),
                (Ok(n), None) => {
                    let digests = digests.next().expect("a digest per file read");
                    Ok(Hashed {
                        size: n as u64,
                        digests,
                    })
                }
            };
            self.set(at, res);
        }
    }

    /// Stream big files side by side so their blocks share the lanes; their results in
    /// the order given.
    ///
    /// Each core keeps up to its share of [`GROUP`] files going in one [`StreamBatch`]
    /// per algorithm, a window of each at a time, read in place; a file that ends gives
    /// its stream to the next of that core's files. Largest first, dealt to the cores in
    /// turn: the shares get similar byte counts, and the small files fill the lanes the
    /// large ones leave, rather than one file running alone for long.
    fn big_run(&mut self, files: Vec<File>) -> Vec<io::Result<Hashed>> {
        struct Stream {
            /// The file's place in `files`.
            idx: usize,
            file: File,
            /// Size when stat'ed: mapped up to there, read beyond (a file that grew).
            stat_len: u64,
            size: u64,
            /// A read error, or a mapped window that was truncated.
            failed: Option<io::Error>,
            map: Option<mapped::Guarded>,
            len: usize,
        }
        let may_map = self.mmap;
        let cores = rayon::current_num_threads().max(1);
        let mut by_size: Vec<(usize, u64, File)> = files
            .into_iter()
            .enumerate()
            .map(|(i, f)| (i, f.metadata().map_or(0, |m| m.len()), f))
            .collect();
        let count = by_size.len();
        by_size.sort_by_key(|&(_, len, _)| std::cmp::Reverse(len));
        let mut queues: Vec<VecDeque<(usize, u64, File)>> =
            (0..cores).map(|_| VecDeque::new()).collect();
        for (k, f) in by_size.into_iter().enumerate() {
            queues[k % cores].push_back(f);
        }
        let per_core = queues[0].len().min(GROUP.div_ceil(cores));
        let slots = per_core * cores;
        while self.group_bufs.len() < slots {
            self.group_bufs.push(vec![0; GROUP_CHUNK]);
        }
        let mut batches: Vec<Vec<StreamBatch>> = (0..cores)
            .map(|_| {
                self.algs
                    .iter()
                    .map(|&a| StreamBatch::new(a, per_core))
                    .collect()
            })
            .collect();
        let mut streams: Vec<Option<Stream>> = (0..slots).map(|_| None).collect();
        let mut out: Vec<Option<io::Result<Hashed>>> = (0..count).map(|_| None).collect();
        loop {
            // Idle streams take their core's next file.
            for (share, queue) in streams.chunks_mut(per_core).zip(&mut queues) {
                for s in share.iter_mut().filter(|s| s.is_none()) {
                    let Some((idx, stat_len, file)) = queue.pop_front() else {
                        break;
                    };
                    *s = Some(Stream {
                        idx,
                        file,
                        stat_len,
                        size: 0,
                        failed: None,
                        map: None,
                        len: 0,
                    });
                }
            }
            if streams.iter().all(Option::is_none) {
                break;
            }
            // Map the next window of each file (no copy: a third of the time for MD5), or
            // read it: past the stat'ed size, or when a map is refused.
            streams
                .par_iter_mut()
                .zip(self.group_bufs.par_iter_mut())
                .for_each(|(s, buf)| {
                    let Some(s) = s else { return };
                    s.len = 0;
                    if may_map && s.size < s.stat_len {
                        let n = (s.stat_len - s.size).min(GROUP_MAP as u64) as usize;
                        s.map = mapped::map(&s.file, s.size, n);
                        if s.map.is_some() {
                            s.len = n;
                            return;
                        }
                    }
                    match read_full_at(&s.file, &mut buf[..], s.size) {
                        Ok(n) => s.len = n,
                        Err(e) => s.failed = Some(e),
                    }
                });
            let bufs = &self.group_bufs;
            streams
                .par_chunks_mut(per_core)
                .zip(bufs.par_chunks(per_core))
                .zip(batches.par_iter_mut())
                .for_each(|((share, bufs), algs)| {
                    let chunks: Vec<&[u8]> = share
                        .iter()
                        .zip(bufs)
                        .map(|(s, buf)| match s {
                            Some(Stream {
                                map: Some(m), len, ..
                            }) => &m[..*len],
                            Some(s) => &buf[..s.len],
                            None => &[][..],
                        })
                        .collect();
                    for b in algs.iter_mut() {
                        b.update(&chunks);
                    }
                });
            for (i, slot) in streams.iter_mut().enumerate() {
                let Some(s) = slot else { continue };
                s.size += s.len as u64;
                // At end of file (a short read), or failed: its digests are taken and
                // its stream restarted.
                let mut ended = false;
                if let Some(map) = s.map.take() {
                    if map.truncated(&s.file) {
                        s.failed = Some(io::Error::other("file shrank while it was read"));
                    }
                } else {
                    ended = s.len < GROUP_CHUNK;
                }
                if !ended && s.failed.is_none() {
                    continue;
                }
                let digests: Vec<Digest> = batches[i / per_core]
                    .iter_mut()
                    .map(|b| b.restart(i % per_core))
                    .collect();
                let s = slot.take().expect("a stream");
                out[s.idx] = Some(match s.failed {
                    Some(e) => Err(e),
                    None => Ok(Hashed {
                        size: s.size,
                        digests,
                    }),
                });
            }
        }
        out.into_iter()
            .map(|r| r.expect("a result per file"))
            .collect()
    }
}

impl<I: Iterator<Item = Job>> Iterator for Pipeline<I> {
    type Item = HashedFile;

    fn next(&mut self) -> Option<HashedFile> {
        loop {
            match self.ready.front() {
                Some((_, Some(_))) => {
                    let (path, r) = self.ready.pop_front()?;
                    self.taken += 1;
                    return r.map(|result| HashedFile { path, result });
                }
                // A big file waits for companions: open more jobs, up to a group or a
                // bound on the outputs held back.
                Some((_, None))
                    if !self.done
                        && self.bigs.len() < limits().gather
                        && self.ready.len() < MAX_HELD =>
                {
                    self.fill()
                }
                Some((_, None)) => {
                    // Only big files leave `fill` unhashed.
                    assert!(!self.bigs.is_empty(), "a held output without a big file");
                    self.run_bigs()
                }
                None if self.done => return None,
                None => self.fill(),
            }
        }
    }
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

/// Files at least this large, hashed alone with BLAKE3, BitTorrent v2, a CRC or XXH3,
/// are mapped.
const MAP_MIN: u64 = 16 << 20;
/// Bytes mapped at once: BLAKE3 splits each window over every core, and resident memory
/// stays bounded.
const MAP_WINDOW: usize = 64 << 20;

/// Hash a big file that has no companions. BLAKE3 splits a mapped file over every core
/// (see `mapped`; only with `may_map`); otherwise a helper thread reads while the cores
/// hash.
fn hash_lone(f: File, algs: &[Algorithm], may_map: bool) -> io::Result<Hashed> {
    // BLAKE3 spreads a map over the cores; a CRC or xxHash runs faster than read() can
    // copy from the page cache, so a map is what keeps up with it.
    let parallel = algs.iter().any(|a| {
        matches!(
            a,
            Algorithm::Blake3(_)
                | Algorithm::Btv2
                | Algorithm::Crc32
                | Algorithm::Crc32c
                | Algorithm::Crc64Nvme
                | Algorithm::Crc
                | Algorithm::Xxh3
                | Algorithm::Xxh128
        )
    });
    let len = f.metadata()?.len();
    if !parallel || len < MAP_MIN || !may_map {
        return hash_reader(f, algs);
    }
    let mut h = MultiHasher::new(algs);
    let mut off = 0u64;
    while off < len {
        let n = (len - off).min(MAP_WINDOW as u64) as usize;
        let Some(map) = mapped::map(&f, off, n) else {
            // No map: read the rest (a seek to `off` keeps what was hashed).
            let mut f = f;
            f.seek(io::SeekFrom::Start(off))?;
            return hash_reader_from(f, h, off);
        };
        if algs.len() == 1 {
            h.update(&map);
        } else {
            // Several algorithms side by side, a few MiB at a time so each piece is still
            // in cache for the next algorithm.
            for piece in map.chunks(4 << 20) {
                h.update(piece);
            }
        }
        if map.truncated(&f) {
            return Err(io::Error::other("file shrank while it was read"));
        }
        off += n as u64;
    }
    Ok(Hashed {
        size: len,
        digests: h.finalize(),
    })
}

/// Make room in the descriptor table for a window of open files and the big files
/// gathered, now, while the process has one thread; call before any other starts.
///
/// Linux grows the table by doubling, and in a multi-threaded process each growth waits
/// for an RCU grace period: opening the first window of 512 files took 13-16 ms instead
/// of 1.2 ms, a tenth of hashing 5,000 small files. Taking a descriptor above the window
/// (then closing it) grows the table once, without that wait; the table never shrinks.
/// The soft limit on open files is raised toward the hard one first where it is lower
/// than that (as Go programs do), so that those files can be open at once.
///
/// A program's call, made first thing: a library must not change process limits behind
/// its caller's back. Without it the pipeline still works, within the limits it finds
/// when it first runs.
pub fn reserve_descriptors() {
    let want = WINDOW + GATHER + 64;
    fds::raise_open_file_limit(want);
    // The windows fit what the limit allows now.
    limits();
    fds::grow_descriptor_table(want);
}

/// Open and stat one job. An operand is stat'ed first and opened only if it is a regular
/// file: opening a FIFO would block, or (without blocking) connect to its writer and lose
/// what it wrote; anything else is opened when its turn comes. A file the walk found is
/// opened at once (one path lookup fewer per file), without blocking in case it was
/// replaced by a FIFO meanwhile.
fn open(input: io::Result<Input>, found_regular: bool) -> Opened {
    let p = match input {
        Err(e) => return Opened::Failed(e),
        Ok(Input::Stdin) => return Opened::Stream(Input::Stdin),
        Ok(Input::Path(p)) => p,
    };
    let opened = if found_regular {
        File::options()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&p)
            .and_then(|f| Ok((f.metadata()?, Some(f))))
    } else {
        std::fs::metadata(&p).map(|m| (m, None))
    };
    let (m, f) = match opened {
        Ok(v) => v,
        Err(e) => return Opened::Failed(e),
    };
    if m.is_dir() {
        // As coreutils, which opens it and fails to read it: an unreadable directory
        // is "Permission denied".
        return Opened::Failed(match File::open(&p) {
            Err(e) => e,
            Ok(_) => io::Error::from_raw_os_error(libc::EISDIR),
        });
    }
    if !m.is_file() {
        if f.is_some() {
            return Opened::Failed(io::Error::other("no longer a regular file"));
        }
        return Opened::Stream(Input::Path(p));
    }
    // The size may change before or while the file is read; small_run and big_run read
    // to the end whatever it is.
    let f = match f {
        Some(f) => f,
        None => match File::open(&p) {
            Ok(f) => f,
            Err(e) => return Opened::Failed(e),
        },
    };
    if m.len() <= SMALL_MAX {
        Opened::Small(f, m.len())
    } else {
        Opened::Big(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_fit_the_free_descriptors() {
        let full = Limits {
            window: WINDOW,
            gather: GATHER,
        };
        assert_eq!(Limits::for_free(WINDOW + GATHER), full);
        assert_eq!(Limits::for_free(usize::MAX), full);
        for free in 0..WINDOW + GATHER {
            let l = Limits::for_free(free);
            assert!(l.window >= 1 && l.gather >= 1, "{free}: {l:?}");
            assert!(l.window + l.gather <= free.max(2), "{free}: {l:?}");
        }
    }
    use std::io::Write;

    /// Options with maps allowed, and the handler that allows them installed.
    fn opts() -> Options {
        mapped::install_sigbus_handler(mapped::tests::TEST_MESSAGE);
        Options::default()
    }

    fn data(n: usize, seed: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i * 7 + seed * 13 + i / 251) as u8)
            .collect()
    }

    /// Each result is its input's: an error where `want` has none, else its size and its
    /// digest under each of `algs`.
    fn check(out: &[io::Result<Hashed>], want: &[Option<Vec<u8>>], algs: &[Algorithm]) {
        assert_eq!(out.len(), want.len());
        for (i, (o, w)) in out.iter().zip(want).enumerate() {
            match w {
                None => assert!(o.is_err(), "input {i}"),
                Some(d) => {
                    let h = o.as_ref().unwrap();
                    assert_eq!(h.size, d.len() as u64, "input {i}");
                    for (got, &a) in h.digests.iter().zip(algs) {
                        assert_eq!(*got, lanesum::hash(a, d), "{a:?} of input {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_kind_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        let mut want: Vec<Option<Vec<u8>>> = Vec::new();
        // Small, big (grouped and alone), missing and directory entries, interleaved.
        let sizes = [
            0,
            1,
            SMALL_MAX as usize,
            SMALL_MAX as usize + 1,
            3 << 20,
            GROUP_CHUNK + 5,
            100,
            2 * GROUP_CHUNK,
            5 << 20,
            64,
            GROUP_MAP,
            2 * GROUP_MAP + 3,
        ];
        for (i, &n) in sizes.iter().enumerate() {
            let p = dir.path().join(format!("f{i}"));
            let d = data(n, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            inputs.push(Input::Path(p.into()));
            want.push(Some(d));
            if i == 4 {
                inputs.push(Input::Path(dir.path().join("missing").into()));
                want.push(None);
                inputs.push(Input::Path(dir.path().into()));
                want.push(None);
            }
        }
        for algs in [
            &[Algorithm::Md5][..],
            &[Algorithm::Sha1, Algorithm::Blake3(32), Algorithm::Sha512][..],
        ] {
            let out: Vec<_> = hash_inputs(&inputs, algs, &opts()).collect();
            check(&out, &want, algs);
        }
        let out: Vec<_> = hash_inputs(&inputs, &[Algorithm::Md5], &opts()).collect();
        assert_eq!(
            out[6].as_ref().unwrap_err().raw_os_error(),
            Some(libc::EISDIR)
        );
    }

    /// Sizes that changed between stat and read: what is read is what is hashed.
    #[test]
    fn grown_and_shrunk_files_hash_what_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let d = data(1000, 1);
        File::create(&p).unwrap().write_all(&d).unwrap();
        let algs = [Algorithm::Md5, Algorithm::Sha256];
        let mut pipe = Pipeline::new(std::iter::empty::<Job>(), &algs, &opts());
        for name in ["grew", "shrank"] {
            pipe.ready.push_back((name.into(), None));
        }
        // Stat'ed at 10 bytes (it grew since) and at 5000 (it shrank since).
        pipe.small_run(vec![
            (0, File::open(&p).unwrap(), 10),
            (1, File::open(&p).unwrap(), 5000),
        ]);
        for (name, r) in pipe.ready.drain(..) {
            let h = r.expect("hashed").unwrap();
            assert_eq!(h.size, 1000, "{name:?}");
            assert_eq!(h.digests[1], lanesum::hash(Algorithm::Sha256, &d));
        }
    }

    /// Big files scattered among small ones wait for companions across windows, more
    /// than a group of them, and every output still comes in its place.
    #[test]
    fn scattered_big_files_grouped_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        let mut want: Vec<Option<Vec<u8>>> = Vec::new();
        for i in 0..(2 * WINDOW + 50) {
            let p = dir.path().join(format!("f{i}"));
            if i == WINDOW + 7 {
                inputs.push(Input::Path(p.into()));
                want.push(None); // missing
                continue;
            }
            let n = if i % 15 == 4 {
                SMALL_MAX as usize + 1 + i * 97
            } else {
                i * 5
            };
            let d = data(n, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            inputs.push(Input::Path(p.into()));
            want.push(Some(d));
        }
        assert!(
            want.iter()
                .flatten()
                .filter(|d| d.len() as u64 > SMALL_MAX)
                .count()
                > GATHER
        );
        for algs in [
            &[Algorithm::Md5][..],
            &[Algorithm::Sha1, Algorithm::Blake3(32)][..],
        ] {
            let out: Vec<_> = hash_inputs(&inputs, algs, &opts()).collect();
            check(&out, &want, algs);
        }
    }

    /// More big files than streams, of many sizes (none at all included): each ends
    /// when it ends and gives its stream to the next, and each result is its file's.
    #[test]
    fn big_run_hands_streams_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut want = Vec::new();
        let mut files = Vec::new();
        for i in 0..(2 * GROUP + 22) {
            let p = dir.path().join(format!("f{i}"));
            let d = data(i * 7919 % 300_000, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            files.push(p);
            want.push(Some(d));
        }
        for algs in [
            &[Algorithm::Md5][..],
            &[Algorithm::Sha256, Algorithm::Blake3(32)][..],
        ] {
            let mut pipe = Pipeline::new(std::iter::empty::<Job>(), algs, &opts());
            let opened = files.iter().map(|p| File::open(p).unwrap()).collect();
            check(&pipe.big_run(opened), &want, algs);
        }
    }

    /// Many more small files than one window, each in its place.
    #[test]
    fn windows_keep_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        let mut want = Vec::new();
        for i in 0..(WINDOW + 300) {
            let p = dir.path().join(format!("f{i}"));
            let d = data(i * 3, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            inputs.push(Input::Path(p.into()));
            want.push(d);
        }
        let out: Vec<_> = hash_inputs(&inputs, &[Algorithm::Sha256], &opts()).collect();
        for (o, d) in out.iter().zip(&want) {
            assert_eq!(
                o.as_ref().unwrap().digests[0],
                lanesum::hash(Algorithm::Sha256, d)
            );
        }
    }
}
