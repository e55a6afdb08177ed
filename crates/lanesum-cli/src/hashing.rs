//! The one place that reads inputs and computes digests.
//!
//! Output and check code ask [`hash_inputs`] or [`hash_jobs`] for results and never open
//! files themselves. The work is done by [`crate::pipeline`], in bounded memory: small
//! files are read in windows and hashed together in SIMD lanes, big files are streamed.
//! This module holds the types and the one-stream path (standard input, FIFOs, devices,
//! a lone big file).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};

use lanesum::{Algorithm, Digest, MultiHasher};

/// Read size for a streamed input: large enough that per-read overhead and BLAKE3's
/// hand-off to rayon vanish, small enough that a few of them stay cheap.
pub const CHUNK: usize = 1 << 20;

/// Something to hash: standard input (the operand `-`) or a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(OsString),
}

impl Input {
    /// `-` means standard input, as for every *sum tool.
    pub fn from_operand(op: &OsString) -> Input {
        if op == "-" {
            Input::Stdin
        } else {
            Input::Path(op.clone())
        }
    }

    /// The input's file: for standard input a duplicate of descriptor 0 ([`stdin_file`]).
    pub fn open(&self) -> io::Result<File> {
        match self {
            Input::Stdin => stdin_file(),
            Input::Path(p) => File::open(p),
        }
    }
}

/// Open the file an operand names, `-` being standard input (check files, name lists).
pub fn open_operand(op: &OsStr) -> io::Result<File> {
    Input::from_operand(&op.to_os_string()).open()
}

/// One thing to report: the name it is printed under, and what to hash, or the error met
/// while finding it (a directory the walk could not read, a symlink loop).
pub struct Job {
    pub name: OsString,
    pub input: io::Result<Input>,
    /// A directory walk saw a regular file here: open it at once, without a stat first.
    pub found_regular: bool,
}

/// The digests of one input, one per requested algorithm and in the same order.
#[derive(Clone, Debug)]
pub struct Hashed {
    pub size: u64,
    pub digests: Vec<Digest>,
}

/// Hash each input under every algorithm, yielding results in input order.
pub fn hash_inputs<'a>(
    inputs: &'a [Input],
    algs: &'a [Algorithm],
) -> impl Iterator<Item = io::Result<Hashed>> + 'a {
    let jobs = inputs.iter().map(|i| Job {
        name: match i {
            Input::Stdin => OsString::from("-"),
            Input::Path(p) => p.clone(),
        },
        input: Ok(i.clone()),
        found_regular: false,
    });
    hash_jobs(jobs, algs).map(|(_, r)| r)
}

/// Hash every job under every algorithm, yielding `(name, result)` in job order.
///
/// Each input is read once; all algorithms are computed from that one read. Jobs are
/// pulled a window at a time, so a caller prints each window's lines before the next is
/// read, and a job list of any length (a walk of a huge tree) takes bounded memory.
pub fn hash_jobs<'a>(
    jobs: impl Iterator<Item = Job> + 'a,
    algs: &'a [Algorithm],
) -> impl Iterator<Item = (OsString, io::Result<Hashed>)> + 'a {
    crate::pipeline::Pipeline::new(jobs, algs)
}

/// One digest list per algorithm (each in input order) turned into one list per input
/// (in algorithm order), as [`Hashed::digests`] holds them.
pub fn by_input(per_alg: &[Vec<Digest>]) -> Vec<Vec<Digest>> {
    let n = per_alg.first().map_or(0, Vec::len);
    (0..n)
        .map(|i| per_alg.iter().map(|d| d[i].clone()).collect())
        .collect()
}

/// Standard input as a file of its own (a duplicate of descriptor 0). The standard
/// library's `Stdin` takes the error EBADF (descriptor 0 open for writing only) for the
/// end of input, which would give the digest of nothing where coreutils says "Bad file
/// descriptor". Every reader of standard input uses this, so none of its bytes wait in
/// `Stdin`'s buffer where another would miss them.
pub fn stdin_file() -> io::Result<File> {
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

/// Stream one input that is not a regular file (or is one too big for a window).
pub fn hash_streamed(input: &Input, algs: &[Algorithm]) -> io::Result<Hashed> {
    hash_reader(input.open()?, algs)
}

/// Read into `buf` until it is full or at end of input; returns the bytes read.
pub fn read_full(mut r: impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match read_once(&mut r, &mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// One read() into `buf`, retried if interrupted.
fn read_once(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Stream `r` through every algorithm. A reader thread fills the next buffer while this
/// thread hashes the current one, so the copy out of the page cache (or the wait on a
/// pipe) overlaps the hashing; where no thread can be started (a process limit) this one
/// reads and hashes in turn. At most three buffers of [`CHUNK`]: memory stays bounded
/// however long the input is, and a file that grows or shrinks meanwhile gives the digest
/// of exactly what was read.
pub fn hash_reader(r: impl Read + Send, algs: &[Algorithm]) -> io::Result<Hashed> {
    hash_reader_from(r, MultiHasher::new(algs), 0)
}

/// [`hash_reader`] continuing `hasher`, which has taken `size` bytes already.
pub fn hash_reader_from(
    mut r: impl Read + Send,
    mut hasher: MultiHasher,
    mut size: u64,
) -> io::Result<Hashed> {
    use std::sync::mpsc::sync_channel;
    const BUFFERS: usize = 3;
    let (full_tx, full_rx) = sync_channel::<io::Result<(Vec<u8>, usize)>>(BUFFERS);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(BUFFERS);
    for _ in 0..BUFFERS {
        empty_tx.send(vec![0u8; CHUNK]).expect("receiver alive");
    }
    let reader = &mut r;
    let overlapped = std::thread::scope(|scope| -> io::Result<bool> {
        let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
            while let Ok(mut buf) = empty_rx.recv() {
                // One read() per buffer: a pipe hands over what it has at once.
                let res = read_once(&mut *reader, &mut buf);
                let done = !matches!(res, Ok(n) if n > 0);
                if full_tx.send(res.map(|n| (buf, n))).is_err() || done {
                    return;
                }
            }
        });
        if spawned.is_err() {
            return Ok(false);
        }
        loop {
            let (buf, n) = full_rx.recv().expect("reader sends until done")?;
            if n == 0 {
                return Ok(true);
            }
            size += n as u64;
            hasher.update(&buf[..n]);
            // The reader may have stopped after an error; then nobody needs the buffer.
            let _ = empty_tx.send(buf);
        }
    })?;
    if !overlapped {
        // No thread to spare (a process limit): read and hash in turn.
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = read_once(&mut r, &mut buf)?;
            if n == 0 {
                break;
            }
            size += n as u64;
            hasher.update(&buf[..n]);
        }
    }
    Ok(Hashed {
        size,
        digests: hasher.finalize(),
    })
}

/// A whole input in memory: read, or mapped when it is a large regular file (kept with
/// the file, to see whether it shrank).
pub enum Contents {
    Mapped(memmap2::Mmap, File),
    Read(Vec<u8>),
}

impl Contents {
    /// Whether a mapped file now ends before `end`. Pages past a truncation fault (SIGBUS,
    /// see `open_source`), but the bytes past the new end within its last page read as
    /// zeros without a fault: only the size tells. Asked after those bytes were hashed.
    pub fn shrank_below(&self, end: usize) -> bool {
        match self {
            Contents::Mapped(_, f) => crate::mapped::ends_before(f, end as u64),
            Contents::Read(_) => false,
        }
    }
}

impl std::ops::Deref for Contents {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Contents::Read(v) => v,
            Contents::Mapped(m, _) => m,
        }
    }
}

static NO_MMAP: AtomicBool = AtomicBool::new(false);

/// Read files with read() only, never map them (b3sum's `--no-mmap`).
pub fn forbid_mmap() {
    NO_MMAP.store(true, Ordering::Relaxed);
}

/// Whether files may be mapped: not after [`forbid_mmap`] or with `LANESUM_NO_MMAP` set.
pub fn may_map() -> bool {
    !NO_MMAP.load(Ordering::Relaxed) && std::env::var_os("LANESUM_NO_MMAP").is_none()
}

/// Regular files at least this large are mapped by [`open_source`].
const MMAP_MIN: u64 = 16 << 20;

/// An input for the modes that work on whole inputs (`--etag`, `--blocks`,
/// `--torrent-pieces`, b3sum's keyed modes): a regular file whole (mapped when large),
/// anything else (standard input, FIFOs, devices, large files that may not be mapped)
/// as a reader to take a chunk at a time, in bounded memory.
pub enum Source {
    Whole(Contents),
    Stream(Box<dyn Read>),
}

/// Open `input` for the whole-input modes. Large files are mapped (main.rs turns a SIGBUS
/// from a file truncated under the mapping into a message), or streamed where they may
/// not be mapped.
pub fn open_source(input: &Input) -> io::Result<Source> {
    open_source_with(input, may_map())
}

fn open_source_with(input: &Input, may_map: bool) -> io::Result<Source> {
    let mut f = input.open()?;
    if *input == Input::Stdin {
        return Ok(Source::Stream(Box::new(f)));
    }
    let m = f.metadata()?;
    if !m.is_file() {
        return Ok(Source::Stream(Box::new(f)));
    }
    if m.len() >= MMAP_MIN {
        if let (true, Ok(len)) = (may_map, usize::try_from(m.len())) {
            // SAFETY: the mapping is only read. If another process truncates the file
            // while it is mapped, reading the vanished pages raises SIGBUS, which main.rs
            // turns into a clear error message and exit status 1; other concurrent
            // writes only change the bytes hashed.
            if let Ok(map) = unsafe { memmap2::MmapOptions::new().len(len).map(&f) } {
                return Ok(Source::Whole(Contents::Mapped(map, f)));
            }
        }
        // Not mapped: read a chunk at a time rather than all of it into memory.
        return Ok(Source::Stream(Box::new(f)));
    }
    let mut v = Vec::new();
    f.read_to_end(&mut v)?;
    Ok(Source::Whole(Contents::Read(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file is mapped, or streamed where it may not be (it was read whole).
    #[test]
    fn large_files_map_or_stream() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        File::create(&path).unwrap().set_len(MMAP_MIN).unwrap();
        let input = Input::Path(path.into_os_string());
        assert!(matches!(
            open_source_with(&input, true).unwrap(),
            Source::Whole(Contents::Mapped(..))
        ));
        assert!(matches!(
            open_source_with(&input, false).unwrap(),
            Source::Stream(_)
        ));
    }
}
