//! The read pipeline: every input read once, in bounded memory, on every core, results in
//! order.
//!
//! Jobs are taken a window at a time, and the pool hashes two at once: while this thread
//! waits for one window's results, it takes the next from the walk and hands it over, so
//! the pool never waits for the slowest run of a window (the first windows are small, so
//! the pool starts after a short walk). A window is cut into runs of jobs, and each run is
//! opened, read and hashed on one core by one task (see `smalls`): small regular files in
//! lanes there, while big files, standard input, FIFOs and devices come back in their
//! places. Then, in order:
//! * big regular files wait, across windows, until [`GATHER`] are there (or an output
//!   needs them; the outputs after them wait too, in order), then are streamed side by
//!   side by one worker per thread, each with its own lanes and its own share of the
//!   files (see `bigs`), a mapped window of each at a time, in bounded memory;
//! * a lone big file, big files whose every algorithm spreads one input over the cores
//!   (BLAKE3, the CRCs: [`Algorithm::spreads_one_input`]), standard input, FIFOs and
//!   devices are streamed on their own, one after another, where BLAKE3 (and several
//!   algorithms) still use every core: BLAKE3 alone by pieces that each core reads and
//!   hashes at once, the others through windows read by every core (see `lone`).
//!
//! The pool is the caller's (the rayon pool `next` is called in: the global one unless
//! the caller installed another) or, with [`Options::threads`], one of the pipeline's own.
//!
//! Big files are memory-mapped a window at a time (see `mapped`, which survives
//! truncation); a file that shrinks or grows while it is read gives the digest of what was
//! read, or an error, never a crash. Peak memory, growing with the work and at most
//! linearly with the threads: a buffer per task of at most twice `smalls::task_bytes` (only as
//! large as its files need), the big-file windows (`bigs`), a lone big file's window
//! (or for BLAKE3 a piece per thread), three windows of names and one of jobs walked
//! ahead, and the outputs held back behind gathering big files (see the constants). A
//! buffer that can't be allocated is an error on the file that needed it, never an abort.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex, OnceLock, PoisonError};

use lanesum::Algorithm;

use crate::bigs::{self, GROUP};
use crate::hashed::{Hashed, HashedFile};
use crate::input::{Input, Job};
use crate::lone::hash_lone;
use crate::opened::SMALL_MAX;
use crate::options::Options;
use crate::smalls::{self, Buffers, Slot};
use crate::stream::hash_streamed;
use crate::{fds, mapped};

/// Jobs taken per window, at least: enough files to fill every lane of two cores many
/// times over. Larger pools take [`WINDOW_PER_THREAD`] per thread, up to
/// [`WINDOW_MAX`], so each thread still gets runs long enough to fill its lanes.
const WINDOW: usize = 512;
const WINDOW_PER_THREAD: usize = 256;
const WINDOW_MAX: usize = 8192;
/// The first window holds this many runs per thread (of `smalls::RUN_MIN` jobs), and each
/// next one twice as many, up to the full size: the pool waits for the first window's
/// walk only.
const FIRST_WINDOW_RUNS: usize = 2;
/// Windows whose big files may be open at once: the one whose results are being sorted
/// (its big files wait there, open, to join the gathered ones), and the two the pool
/// holds meanwhile (see [`Pipeline::fill`]).
const WINDOWS_OPEN: usize = 3;
/// Descriptors for the windows' files: [`WINDOWS_OPEN`] windows of [`WINDOW_MAX`] (less
/// a file per thread, which its task holds while it reads).
const WINDOW_FDS: usize = WINDOWS_OPEN * WINDOW_MAX;
/// Fewer jobs than this are opened, read and hashed on the calling thread: starting the
/// pool's threads costs more (a fifth of the CPU time of a run hashing one small file).
/// A program can ask [`hashes_on_caller`] whether its operands need a pool at all (its
/// doc gives this value).
const PAR_MIN_JOBS: usize = 16;
/// Outputs held back while big files gather for a group (each a name and digests).
const MAX_HELD: usize = 64 * WINDOW;
/// Big files gathered before they are hashed: more than [`GROUP`], so that the small
/// ones take over the streams the large ones leave (`-r /usr` (381 files over 1 MiB,
/// 3.9 GB, among 130k), MD5 on Zen 4: 2.37-2.73 s gathering 64 for 64 streams,
/// 2.21-2.33 s gathering 128 for 64). Fewer where the limit on open files is lower.
const GATHER: usize = 2 * GROUP;
/// Descriptors left for everything else: standard streams, the walk's directories
/// (`walkdir` keeps up to 10 open), a check file.
const SPARE_FDS: usize = 16;

/// How many files are open at once: the big files of the windows open (small ones are
/// closed as soon as they are read), and the big files gathered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Limits {
    window: usize,
    gather: usize,
}

impl Limits {
    /// [`WINDOW_FDS`] and [`GATHER`], or less when only `free` more files may be open (a
    /// hard `ulimit -n` below them): a third of them for the gathered files, at least
    /// one file each, so that no input fails with "Too many open files" that could be
    /// hashed one at a time.
    fn for_free(free: usize) -> Limits {
        if free >= WINDOW_FDS + GATHER {
            return Limits {
                window: WINDOW_FDS,
                gather: GATHER,
            };
        }
        let gather = (free / 3).clamp(1, GATHER);
        Limits {
            window: free.saturating_sub(gather).clamp(1, WINDOW_FDS),
            gather,
        }
    }

    /// Jobs per window for a pool of `threads`: each task holds one more file open while
    /// it reads, so those come off what the limit allows, and the rest is shared by the
    /// [`WINDOWS_OPEN`] windows whose big files may be open at once.
    fn window_for(self, threads: usize) -> usize {
        let want = WINDOW.max(threads.saturating_mul(WINDOW_PER_THREAD));
        want.min(self.window.saturating_sub(threads) / WINDOWS_OPEN)
            .max(1)
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

/// The results of a sequence of jobs, in job order, as an iterator of [`HashedFile`]s:
/// see [`hash_jobs`]. Memory stays bounded however many jobs there are.
pub struct Pipeline<I> {
    jobs: I,
    algs: Arc<[Algorithm]>,
    /// Big files may be mapped (the options allow it and the SIGBUS handler is there).
    mmap: bool,
    /// The pipeline's own pool ([`Options::threads`]); `None`: the caller's.
    pool: Option<rayon::ThreadPool>,
    /// Every opened job's output in order, `None` until it is hashed. A big file waits in
    /// `bigs` for companions, and the outputs after it wait with it.
    ready: VecDeque<(OsString, Option<io::Result<Hashed>>)>,
    /// Outputs taken from `ready` so far: `ready[0]` is output number `taken`.
    taken: usize,
    /// Big files waiting to be hashed side by side: (output number, file).
    bigs: Vec<(usize, File)>,
    /// Windows taken from `jobs` and handed to the pool, oldest first: at most two, the
    /// one whose results are awaited and the next (see [`Pipeline::fill`]).
    windows: VecDeque<Window>,
    /// The next window, walked while the pool hashes, to be handed over the moment the
    /// oldest window is done.
    ahead: Option<Vec<Job>>,
    /// Windows taken so far: the first ones are small (see [`FIRST_WINDOW_RUNS`]).
    launched: u32,
    /// `jobs` is exhausted.
    exhausted: bool,
    /// `jobs` is exhausted and every window's results are in `ready`.
    done: bool,
    /// The small-file tasks' buffers, shared with the tasks in flight.
    buffers: Arc<Buffers>,
    /// A lone big file's window ([`hash_lone`]), kept for the next one.
    lone: Vec<u8>,
}

impl<I> fmt::Debug for Pipeline<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline")
            .field("algs", &self.algs)
            .field("mmap", &self.mmap)
            .field(
                "threads",
                &self.pool.as_ref().map(|p| p.current_num_threads()),
            )
            .field("taken", &self.taken)
            .field("held", &self.ready.len())
            .field("bigs", &self.bigs.len())
            .field("windows", &self.windows.len())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Hash every job under every algorithm, yielding a [`HashedFile`] per job, in job order.
///
/// Each input is read once; all algorithms are computed from that one read. Jobs are
/// pulled a window at a time, so a caller prints each window's lines before the next is
/// hashed, and a job list of any length (a walk of a huge tree) takes bounded memory.
/// Only [`Options::mmap`] and [`Options::threads`] are read from `opts` (the jobs are
/// already found).
pub fn hash_jobs<I: Iterator<Item = Job>>(
    jobs: I,
    algs: &[Algorithm],
    opts: &Options,
) -> Pipeline<I> {
    Pipeline::new(jobs, algs, opts)
}

/// Whether a pipeline over the operands `files` under `algs` needs no pool: fewer than
/// 16 of them, each
/// - a regular file small enough (1 MiB) to be hashed in lanes with the others, which
///   the pipeline then opens, reads and hashes on the calling thread (the size it has
///   now: a file that grows before it is read is still hashed right, on whatever pool the
///   caller has; if that is the calling thread alone, there);
/// - or a stream (standard input, whatever it is: a pipe, or a file bigger than that; a
///   FIFO or a device named), which is read and hashed on the calling thread (with a
///   reader thread of its own past the first MiB), where `algs` is one algorithm that
///   never spreads an input over the cores ([`Algorithm::spreads_one_input`]); several
///   would be hashed side by side on the pool;
/// - or an operand that can't be stat'ed: its job fails in place.
///
/// A directory, or a big regular file, makes it false. A program that knows this
/// before it starts a pool of threads can leave them unstarted: the command then makes
/// its pool the calling thread alone. Starting two threads took about a fifth of the
/// CPU time of a run hashing one small file (2-core Zen 5, `perf stat`: 1.15 ms with
/// them, 0.90 ms without; an empty Rust program takes 0.55 ms there).
pub fn hashes_on_caller(files: &[OsString], algs: &[Algorithm], opts: &Options) -> bool {
    let streams_here = matches!(algs, [a] if !a.spreads_one_input());
    files.len() < PAR_MIN_JOBS
        && files.iter().all(|f| {
            let stdin = opts.dash_is_stdin && f == "-";
            let found = if stdin {
                crate::input::stdin_file().and_then(|f| f.metadata())
            } else {
                std::fs::metadata(f)
            };
            match found {
                Err(_) => true,
                // Standard input is streamed whatever it is.
                Ok(m) if m.is_file() => m.len() <= SMALL_MAX || stdin && streams_here,
                Ok(m) => !m.is_dir() && streams_here,
            }
        })
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

/// A window of jobs handed to the pool: their names, in order, and their slots.
struct Window {
    names: Vec<OsString>,
    slots: Slots,
    /// It ends with standard input (see [`take_window`]).
    stdin: bool,
}

/// A window's slots: hashed already, or coming from the pool's tasks.
enum Slots {
    Now(Vec<Slot>),
    Coming(mpsc::Receiver<Hashing>),
}

/// Slots hashed on the pool, or the panic of the task that hashed them.
type Hashing = std::thread::Result<Vec<Slot>>;

/// The runs of a window, each hashed by a task of its own: each puts its slots in their
/// place, and the last to end sends the window's on, in order.
struct Gather {
    /// Each run's slots (or its panic), and how many runs have yet to put theirs.
    parts: Mutex<(Vec<Option<Hashing>>, usize)>,
    tx: mpsc::SyncSender<Hashing>,
}

impl Gather {
    fn new(runs: usize, tx: mpsc::SyncSender<Hashing>) -> Gather {
        Gather {
            parts: Mutex::new(((0..runs).map(|_| None).collect(), runs)),
            tx,
        }
    }

    /// Run `i` ended with `slots`.
    fn put(&self, i: usize, slots: Hashing) {
        let mut parts = self.parts.lock().unwrap_or_else(PoisonError::into_inner);
        parts.0[i] = Some(slots);
        parts.1 -= 1;
        if parts.1 > 0 {
            return;
        }
        let parts = std::mem::take(&mut parts.0);
        let window = parts
            .into_iter()
            .map(|p| p.expect("every run put its slots"))
            .collect::<std::thread::Result<Vec<Vec<Slot>>>>()
            .map(|runs| runs.into_iter().flatten().collect());
        // The receiver is gone only if the pipeline was dropped: nothing to do.
        let _ = self.tx.send(window);
    }
}

/// Whether `job` reads standard input.
fn is_stdin(job: &Job) -> bool {
    matches!(job.input, Ok(Input::Stdin))
}

/// Up to `max` jobs from `jobs`, ending early after standard input (it may be a
/// terminal: what comes before it is hashed first).
fn take_window(jobs: &mut impl Iterator<Item = Job>, max: usize) -> Vec<Job> {
    let mut window = Vec::new();
    for job in jobs.by_ref() {
        let stdin = is_stdin(&job);
        window.push(job);
        if stdin || window.len() >= max {
            break;
        }
    }
    window
}

impl<I: Iterator<Item = Job>> Pipeline<I> {
    fn new(jobs: I, algs: &[Algorithm], opts: &Options) -> Self {
        // A pool that can't be started (a limit on threads) leaves the caller's.
        let pool = (opts.threads > 0)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(opts.threads.min(crate::options::most_threads()))
                    .thread_name(|i| format!("lanesum-{i}"))
                    .build()
                    .ok()
            })
            .flatten();
        Pipeline {
            jobs,
            algs: algs.into(),
            mmap: opts.mmap && mapped::handler_installed(),
            pool,
            ready: VecDeque::new(),
            taken: 0,
            bigs: Vec::new(),
            windows: VecDeque::new(),
            ahead: None,
            launched: 0,
            exhausted: false,
            done: false,
            buffers: Arc::default(),
            lone: Vec::new(),
        }
    }

    /// Whether the next call to `next` returns at once, without hashing or waiting: a
    /// caller that buffers its output flushes it when this is false.
    pub fn next_is_ready(&self) -> bool {
        matches!(self.ready.front(), Some((_, Some(_))))
    }

    /// Threads of the pool the work runs on.
    fn threads(&self) -> usize {
        match &self.pool {
            Some(p) => p.current_num_threads(),
            None => rayon::current_num_threads(),
        }
        .max(1)
    }

    /// Run `op` on the pipeline's pool (its own, or the caller's).
    fn install<R: Send>(pool: &Option<rayon::ThreadPool>, op: impl FnOnce() -> R + Send) -> R {
        match pool {
            Some(p) => p.install(op),
            None => op(),
        }
    }

    /// Output number `at` is `r`.
    fn set(&mut self, at: usize, r: io::Result<Hashed>) {
        self.ready[at - self.taken].1 = Some(r);
    }

    /// Walk to the next window of jobs: `None` once `jobs` is exhausted.
    fn take(&mut self) -> Option<Vec<Job>> {
        if self.exhausted {
            return None;
        }
        let threads = self.threads();
        // The first windows grow from a few runs per thread to the full size, so that
        // the pool starts hashing after a short walk, not after a whole window's.
        let first = threads.saturating_mul(FIRST_WINDOW_RUNS * smalls::RUN_MIN);
        let max = limits()
            .window_for(threads)
            .min(first.saturating_mul(1 << self.launched.min(16)));
        let jobs = take_window(&mut self.jobs, max);
        if jobs.is_empty() {
            self.exhausted = true;
            return None;
        }
        self.launched += 1;
        Some(jobs)
    }

    /// Start hashing a window of jobs: on the pool (or, for a few jobs, on this thread),
    /// its results coming through a channel.
    fn start(&mut self, mut jobs: Vec<Job>) {
        let stdin = jobs.last().is_some_and(is_stdin);
        let names: Vec<OsString> = jobs
            .iter_mut()
            .map(|j| std::mem::take(&mut j.name))
            .collect();
        let slots = if jobs.len() < PAR_MIN_JOBS {
            // Few jobs: on this thread, where the pool's start would cost more.
            Slots::Now(smalls::hash_window(jobs, &self.algs, &self.buffers, false))
        } else if self.on_its_pool() {
            // A pool's thread can't wait for a task it might have to run: a caller on the
            // pool the tasks would run on hashes its windows in place.
            Slots::Now(smalls::hash_window(jobs, &self.algs, &self.buffers, true))
        } else {
            let (tx, rx) = mpsc::sync_channel(1);
            let (room, runs) = smalls::plan(jobs, self.threads());
            let gather = Arc::new(Gather::new(runs.len(), tx));
            for (i, jobs) in runs.into_iter().enumerate() {
                let (algs, buffers) = (Arc::clone(&self.algs), Arc::clone(&self.buffers));
                let gather = Arc::clone(&gather);
                let task = move || {
                    // A panic goes to the caller, as from a scope, not to the pool's handler.
                    let slots = panic::catch_unwind(AssertUnwindSafe(|| {
                        smalls::hash_run(jobs, &algs, &buffers, room)
                    }));
                    gather.put(i, slots);
                };
                // In order: the pool takes a window's runs before the next window's.
                match &self.pool {
                    Some(p) => p.spawn_fifo(task),
                    None => rayon::spawn_fifo(task),
                }
            }
            Slots::Coming(rx)
        };
        self.windows.push_back(Window {
            names,
            slots,
            stdin,
        });
    }

    /// Whether this thread is one of the pool that runs the windows' tasks (the caller's,
    /// when the pipeline has no pool of its own).
    fn on_its_pool(&self) -> bool {
        self.pool.is_none() && rayon::current_thread_index().is_some()
    }

    /// A window's slots from its tasks. On a thread of the pool that runs them (a
    /// pipeline moved onto the pool after its windows were started), this thread runs
    /// the pool's tasks while it waits, so that a pool of one thread still gets on.
    fn wait(&self, rx: &mpsc::Receiver<Hashing>) -> Hashing {
        if !self.on_its_pool() {
            return rx.recv().expect("a window's tasks always send");
        }
        loop {
            match rx.try_recv() {
                Ok(slots) => return slots,
                Err(mpsc::TryRecvError::Empty) => {
                    if rayon::yield_now() != Some(rayon::Yield::Executed) {
                        std::thread::yield_now();
                    }
                }
                Err(mpsc::TryRecvError::Disconnected) => {
                    unreachable!("a window's tasks always send")
                }
            }
        }
    }

    /// Whether another window may go to the pool: fewer than two are there, and none of
    /// them ends with standard input (the files after it are read after it).
    fn may_start(&self) -> bool {
        self.windows.len() < 2 && !self.windows.iter().any(|w| w.stdin)
    }

    /// Put the next window's results into `ready` (big files join `bigs`, hashed once
    /// [`GATHER`] are there or when an output needs them). The pool holds two windows at
    /// a time, each run a task of its own, taken in order (`spawn_fifo`): a thread that
    /// ends its share of the older window takes runs of the newer one rather than wait
    /// for the slowest. This thread walks to a third window while it waits, and hands it
    /// over as soon as the oldest is done, before it sorts that one's results.
    ///
    /// 20,000 files of 1 B-128 KiB on a 16-core Xeon VM (best / median ms, runs in turn):
    /// one window at a time, MD5 62 / 65, SHA-256 89 / 102, BLAKE3 78 / 85; two windows,
    /// each one rayon task, 58 / 61, 85 / 89, 70 / 73 (its threads were still idle a
    /// tenth of the run, at each window's end: the pool hashed both windows side by side,
    /// and they ended together); runs as tasks in order, in two later runs of 10 rounds
    /// against that (medians) 59 and 57 against 67 and 64, SHA-256 80 and 85 against 94
    /// and 98, BLAKE3 64 and 72 against 73 and 81.
    ///
    /// Not after standard input: the files named after `-` are read after it, as GNU's
    /// tools read them (`cmd | tee f | lanesum - f`). (A FIFO named as an operand is
    /// found only when opened, and the next window may be read before it.)
    fn fill(&mut self) {
        while self.may_start() {
            let Some(jobs) = self.ahead.take().or_else(|| self.take()) else {
                break;
            };
            self.start(jobs);
        }
        let Some(Window {
            names,
            slots,
            stdin,
        }) = self.windows.pop_front()
        else {
            self.done = true;
            return;
        };
        // Walk the next window while the pool hashes this one and the one after it...
        if self.ahead.is_none() {
            self.ahead = self.take();
        }
        let slots = match slots {
            Slots::Now(slots) => slots,
            Slots::Coming(rx) => match self.wait(&rx) {
                Ok(slots) => slots,
                Err(payload) => panic::resume_unwind(payload),
            },
        };
        // ...and hand it over the moment this one is done: the pool hashes the windows
        // it holds side by side, and they end close together.
        if !stdin && self.may_start() {
            if let Some(jobs) = self.ahead.take() {
                self.start(jobs);
            }
        }
        // Big files go side by side, a share per core, unless every algorithm spreads one
        // input over every core (BLAKE3, the CRCs): those are hashed one after another.
        // (XXH3 of 64 files of 64 MiB on 16 cores took 815 ms one after another, a core
        // at a time, where CRC32C, spread, took 216 ms.)
        let side_by_side = !self.algs.iter().all(|a| a.spreads_one_input());
        for (name, slot) in names.into_iter().zip(slots) {
            let at = self.taken + self.ready.len();
            self.ready.push_back((name, None));
            match slot {
                Slot::Done(r) => self.set(at, r),
                Slot::Big(f) if side_by_side => {
                    self.bigs.push((at, f));
                    if self.bigs.len() >= limits().gather {
                        self.run_bigs();
                    }
                }
                Slot::Big(f) => {
                    let (algs, lone) = (&self.algs, &mut self.lone);
                    let r = Self::install(&self.pool, || hash_lone(f, algs, lone));
                    self.set(at, r);
                }
                Slot::Stream(input) => {
                    // Everything before it first: it may block (a FIFO, a terminal).
                    self.run_bigs();
                    let algs = &self.algs;
                    let r = Self::install(&self.pool, || hash_streamed(&input, algs));
                    self.set(at, r);
                }
            }
        }
    }

    /// Hash the waiting big files: side by side in lanes, or a lone one on its own.
    fn run_bigs(&mut self) {
        let (at, files): (Vec<usize>, Vec<File>) =
            std::mem::take(&mut self.bigs).into_iter().unzip();
        let (algs, mmap, lone) = (&self.algs, self.mmap, &mut self.lone);
        let results = match <[File; 1]>::try_from(files) {
            Ok([f]) => vec![Self::install(&self.pool, || hash_lone(f, algs, lone))],
            Err(files) if files.is_empty() => return,
            Err(files) => Self::install(&self.pool, || bigs::hash_side_by_side(files, algs, mmap)),
        };
        for (at, r) in at.into_iter().zip(results) {
            self.set(at, r);
        }
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

/// Make room in the descriptor table for a window of open files and the big files
/// gathered, now, while the process has one thread; call before any other starts.
///
/// Linux grows the table by doubling, and in a multi-threaded process each growth waits
/// for an RCU grace period: opening the first window of 512 files took 13-16 ms instead
/// of 1.2 ms, a tenth of hashing 5,000 small files (when a window's files were all open
/// at once; now its big files and one file per thread are). Taking a descriptor above the window
/// (then closing it) grows the table once, without that wait; the table never shrinks.
/// The soft limit on open files is raised toward the hard one first where it is lower
/// than that (as Go programs do), so that those files can be open at once.
///
/// A program's call, made first thing: a library must not change process limits behind
/// its caller's back. Without it the pipeline still works, within the limits it finds
/// when it first runs.
pub fn reserve_descriptors() {
    let want = WINDOW_FDS + GATHER + 64;
    fds::raise_open_file_limit(want);
    // The windows fit what the limit allows now.
    limits();
    fds::grow_descriptor_table(want);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn limits_fit_the_free_descriptors() {
        let full = Limits {
            window: WINDOW_FDS,
            gather: GATHER,
        };
        assert_eq!(Limits::for_free(WINDOW_FDS + GATHER), full);
        assert_eq!(Limits::for_free(usize::MAX), full);
        for free in 0..WINDOW_FDS + GATHER {
            let l = Limits::for_free(free);
            assert!(l.window >= 1 && l.gather >= 1, "{free}: {l:?}");
            assert!(l.window + l.gather <= free.max(2), "{free}: {l:?}");
            for threads in [1, 2, 16, 1000] {
                let w = l.window_for(threads);
                assert!(w >= 1, "{free} {threads}");
                // The windows open at once fit, with a file per thread reading.
                assert!(
                    w == 1 || WINDOWS_OPEN * w <= l.window.saturating_sub(threads),
                    "{free} {threads}: {w}"
                );
            }
        }
        // Windows grow with the pool, so that every thread gets runs of its own.
        assert_eq!(full.window_for(2), WINDOW);
        assert_eq!(full.window_for(16), 16 * WINDOW_PER_THREAD);
        assert_eq!(full.window_for(32), (WINDOW_FDS - 32) / WINDOWS_OPEN);
        assert_eq!(full.window_for(1000), (WINDOW_FDS - 1000) / WINDOWS_OPEN);
    }
    use std::fs;
    use std::io::Write;

    /// Options with maps allowed, and the handler that allows them installed.
    fn opts() -> Options {
        mapped::install_sigbus_handler(mapped::tests::TEST_MESSAGE);
        Options::default()
    }

    pub(crate) fn data(n: usize, seed: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i * 7 + seed * 13 + i / 251) as u8)
            .collect()
    }

    /// Each result is its input's: an error where `want` has none, else its size and its
    /// digest under each of `algs`.
    pub(crate) fn check(out: &[io::Result<Hashed>], want: &[Option<Vec<u8>>], algs: &[Algorithm]) {
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

    /// Small, big (grouped and alone), missing and directory inputs, interleaved, in
    /// `dir`; and what each should hash (`None`: an error).
    fn every_kind(dir: &std::path::Path) -> (Vec<Input>, Vec<Option<Vec<u8>>>) {
        let mut inputs = Vec::new();
        let mut want: Vec<Option<Vec<u8>>> = Vec::new();
        let sizes = [
            0,
            1,
            crate::opened::SMALL_MAX as usize,
            crate::opened::SMALL_MAX as usize + 1,
            3 << 20,
            bigs::READ_CHUNK + 5,
            100,
            2 * bigs::READ_CHUNK,
            5 << 20,
            64,
            bigs::MAP_MIN,
            2 * bigs::MAP_MIN + 3,
        ];
        for (i, &n) in sizes.iter().enumerate() {
            let p = dir.join(format!("f{i}"));
            let d = data(n, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            inputs.push(Input::Path(p.into()));
            want.push(Some(d));
            if i == 4 {
                inputs.push(Input::Path(dir.join("missing").into()));
                want.push(None);
                inputs.push(Input::Path(dir.into()));
                want.push(None);
            }
        }
        (inputs, want)
    }

    /// [`every_kind`] under sets of algorithms that take every path: in lanes; one
    /// stream each, side by side; spread over the cores, one file after another; spread
    /// and not, together.
    fn hash_every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let (inputs, want) = every_kind(dir.path());
        for algs in [
            &[Algorithm::Md5][..],
            &[Algorithm::Sha1, Algorithm::Blake3(32), Algorithm::Sha512][..],
            &[Algorithm::Xxh3, Algorithm::Xxh64][..],
            &[Algorithm::Blake3(32), Algorithm::Crc32c][..],
            &[Algorithm::Crc64Nvme, Algorithm::Xxh128][..],
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

    #[test]
    fn every_kind_in_order() {
        hash_every_kind();
    }

    /// The command's pool where [`hashes_on_caller`] says so is its main thread alone
    /// (rayon's `use_current_thread`), where a task spawned and waited for would never
    /// run. Every kind of input still hashes there, big ones too (a small file may have
    /// grown before it is read).
    #[test]
    fn every_kind_on_a_pool_of_the_calling_thread_alone() {
        // Rayon keeps this thread a worker of the pool for good (the registry is leaked):
        // harmless, since each test runs on a thread of its own.
        let _pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        assert_eq!(rayon::current_thread_index(), Some(0));
        hash_every_kind();
        // A FIFO is streamed by a reader thread of its own, which never enters rayon (it
        // would wait there for this thread, which waits for it).
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let d = data(3 << 20, 9);
        let writer = {
            let (fifo, d) = (fifo.clone(), d.clone());
            std::thread::spawn(move || File::create(fifo).unwrap().write_all(&d).unwrap())
        };
        let algs = [Algorithm::Md5, Algorithm::Blake3(32), Algorithm::Sha256];
        let out: Vec<_> = hash_inputs(&[Input::Path(fifo.into())], &algs, &opts()).collect();
        writer.join().unwrap();
        check(&out, &[Some(d)], &algs);
    }

    /// A few small regular files (or missing ones) hash on the calling thread, and so do
    /// streams under one algorithm that never spreads; more files, a big one, a directory,
    /// or a stream under several algorithms or a spreading one do not (standard input:
    /// see the command's tests).
    #[test]
    fn few_small_files_hash_on_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, n: u64| {
            let p = dir.path().join(name);
            File::create(&p).unwrap().set_len(n).unwrap();
            p.into_os_string()
        };
        let (a, edge, big) = (
            file("a", 3),
            file("edge", SMALL_MAX),
            file("big", SMALL_MAX + 1),
        );
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("a", &link).unwrap();
        let link = link.into_os_string();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let (fifo, null) = (fifo.into_os_string(), OsString::from("/dev/null"));
        let opts = Options::default();
        let md5 = [Algorithm::Md5];
        let on_caller =
            |files: &[OsString], algs: &[Algorithm]| hashes_on_caller(files, algs, &opts);
        assert!(on_caller(std::slice::from_ref(&a), &md5));
        assert!(on_caller(&[a.clone(), edge.clone(), link], &md5));
        let few = vec![a.clone(); PAR_MIN_JOBS - 1];
        assert!(on_caller(&few, &[Algorithm::Md5, Algorithm::Blake3(32)]));
        assert!(!on_caller(&[few, vec![a.clone()]].concat(), &md5));
        // A missing file fails in place: no pool needed.
        assert!(on_caller(
            &[a.clone(), dir.path().join("missing").into()],
            &md5
        ));
        for other in [big, dir.path().into()] {
            assert!(!on_caller(&[a.clone(), other.clone()], &md5), "{other:?}");
        }
        for stream in [fifo, null] {
            let both = [a.clone(), stream.clone()];
            for algs in [&md5[..], &[Algorithm::Sha3_256], &[Algorithm::Xxh3]] {
                assert!(on_caller(&both, algs), "{stream:?} {algs:?}");
            }
            for algs in [
                &[Algorithm::Blake3(32)][..],
                &[Algorithm::Crc32c],
                &[Algorithm::Md5, Algorithm::Sha1],
            ] {
                assert!(!on_caller(&both, algs), "{stream:?} {algs:?}");
            }
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
                crate::opened::SMALL_MAX as usize + 1 + i * 97
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
                .filter(|d| d.len() as u64 > crate::opened::SMALL_MAX)
                .count()
                > GATHER
        );
        for algs in [
            &[Algorithm::Md5][..],
            &[Algorithm::Sha1, Algorithm::Blake3(32)][..],
            &[Algorithm::Xxh3][..],
            &[Algorithm::Crc32][..],
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
        // Streams that move between workers (the first three; the third, on 64 threads,
        // a stream per file and algorithm), and kept by one worker (SHA-3, whose lanes
        // are a StreamBatch's).
        let splits = bigs::SPLITS.load(std::sync::atomic::Ordering::SeqCst);
        for algs in [
            &[Algorithm::Md5][..],
            &[Algorithm::Sha256, Algorithm::Blake3(32)][..],
            &[Algorithm::Sha1, Algorithm::Sha512, Algorithm::Xxh3][..],
            &[Algorithm::Sha3_256, Algorithm::Md5][..],
        ] {
            for threads in [1, 2, 5, 64] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let opened = files.iter().map(|p| File::open(p).unwrap()).collect();
                let mmap = opts().mmap && threads != 5;
                let out = pool.install(|| bigs::hash_side_by_side(opened, algs, mmap));
                check(&out, &want, algs);
            }
        }
        assert!(bigs::SPLITS.load(std::sync::atomic::Ordering::SeqCst) > splits);
    }

    /// Two workers, two big files and two tiny ones: the worker that started the tiny
    /// ones runs out of work at once and is handed one of the big streams mid-file
    /// (read, so that a file is many windows), and every digest is still its file's.
    #[test]
    fn a_worker_left_without_files_is_handed_a_stream() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [9 << 20, 1000, 7 << 20, 3];
        let mut want = Vec::new();
        let mut files = Vec::new();
        for (i, &n) in sizes.iter().enumerate() {
            let p = dir.path().join(format!("f{i}"));
            let d = data(n, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            files.push(p);
            want.push(Some(d));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let algs = [Algorithm::Md5, Algorithm::Sha256];
        let before = bigs::HANDED.load(std::sync::atomic::Ordering::SeqCst);
        for _ in 0..4 {
            let opened = files.iter().map(|p| File::open(p).unwrap()).collect();
            let out = pool.install(|| bigs::hash_side_by_side(opened, &algs, false));
            check(&out, &want, &algs);
        }
        assert!(bigs::HANDED.load(std::sync::atomic::Ordering::SeqCst) > before);
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

    /// Every mix on pools of many sizes (more threads than cores included): small, big,
    /// missing and empty files over several windows, each result in its place.
    #[test]
    fn many_threads_keep_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        let mut want: Vec<Option<Vec<u8>>> = Vec::new();
        for i in 0..(WINDOW + 700) {
            let p = dir.path().join(format!("f{i}"));
            if i % 97 == 13 {
                inputs.push(Input::Path(p.into()));
                want.push(None);
                continue;
            }
            let n = match i % 50 {
                7 => crate::opened::SMALL_MAX as usize + 1 + i * 31,
                8 => 3 << 20,
                _ => i * 11 % 70_000,
            };
            let d = data(n, i);
            File::create(&p).unwrap().write_all(&d).unwrap();
            inputs.push(Input::Path(p.into()));
            want.push(Some(d));
        }
        for threads in [1, 3, 16, 40] {
            for algs in [
                &[Algorithm::Md5][..],
                &[Algorithm::Sha256, Algorithm::Blake3(32), Algorithm::Sha1][..],
            ] {
                let o = Options { threads, ..opts() };
                let out: Vec<_> = hash_inputs(&inputs, algs, &o).collect();
                check(&out, &want, algs);
            }
        }
    }

    /// The pipeline's own pool has the threads asked for; without one, the caller's.
    #[test]
    fn threads_choose_the_pool() {
        let jobs = std::iter::empty::<Job>();
        let o = Options {
            threads: 7,
            ..opts()
        };
        assert_eq!(Pipeline::new(jobs, &[], &o).threads(), 7);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let n = pool.install(|| Pipeline::new(std::iter::empty::<Job>(), &[], &opts()).threads());
        assert_eq!(n, 3);
    }

    /// A window's runs end in any order on the pool: their slots arrive once, in run
    /// order, when the last ends; a run's panic arrives in their place.
    #[test]
    fn gathered_runs_arrive_in_order() {
        let done = |n: u64| {
            Ok(vec![Slot::Done(Ok(Hashed {
                size: n,
                digests: Vec::new(),
            }))])
        };
        let (tx, rx) = mpsc::sync_channel(1);
        let g = Gather::new(3, tx);
        g.put(2, done(2));
        g.put(0, done(0));
        assert!(rx.try_recv().is_err(), "sent before the last run ended");
        g.put(1, done(1));
        let sizes: Vec<u64> = rx
            .try_recv()
            .unwrap()
            .unwrap()
            .into_iter()
            .map(|s| match s {
                Slot::Done(Ok(h)) => h.size,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(sizes, [0, 1, 2]);

        let (tx, rx) = mpsc::sync_channel(1);
        let g = Gather::new(2, tx);
        g.put(1, Err(Box::new("boom")));
        g.put(0, done(0));
        let e = rx.try_recv().unwrap().unwrap_err();
        assert_eq!(e.downcast_ref::<&str>(), Some(&"boom"));
    }

    /// Buffers grow with the files, not to a fixed size: a tiny file takes a few bytes;
    /// a window of many takes at most one task buffer per thread.
    #[test]
    fn buffers_grow_with_the_work() {
        let dir = tempfile::tempdir().unwrap();
        let tiny = dir.path().join("tiny");
        fs::write(&tiny, b"abc").unwrap();
        let inputs = [Input::Path(tiny.into())];
        let jobs = inputs.iter().map(|i| Job::new("x".into(), Ok(i.clone())));
        let mut pipe = Pipeline::new(jobs, &[Algorithm::Md5], &opts());
        let h = pipe.next().unwrap().result.unwrap();
        assert_eq!(h.digests[0], lanesum::hash(Algorithm::Md5, b"abc"));
        assert!(pipe.buffers.bytes() <= 4, "{}", pipe.buffers.bytes());

        let mut inputs = Vec::new();
        for i in 0..300 {
            let p = dir.path().join(format!("f{i}"));
            fs::write(&p, data(1 << 19, i)).unwrap();
            inputs.push(Input::Path(p.into()));
        }
        let threads = 3;
        let o = Options { threads, ..opts() };
        let jobs = inputs.iter().map(|i| Job::new("x".into(), Ok(i.clone())));
        let mut pipe = Pipeline::new(jobs, &[Algorithm::Md5], &o);
        assert_eq!(pipe.by_ref().filter(|f| f.result.is_ok()).count(), 300);
        let held = pipe.buffers.bytes();
        assert!(
            held > 0 && held <= threads * smalls::task_bytes(threads),
            "{held}"
        );
    }
}
