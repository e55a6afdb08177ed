//! The one place that reads inputs and computes digests.
//!
//! Output and check code ask [`hash_inputs`] for results and never open files themselves.
//! Consecutive regular files are read in windows (in parallel) and each window is hashed
//! with `lanesum::hash_many_par`: many files share the SIMD lanes and all cores. Standard
//! input, FIFOs, devices, directories and very large files are streamed one at a time.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};

use lanesum::{hash_many_par, Algorithm, Digest, Hasher};
use rayon::prelude::*;

/// Read size for streamed inputs: large enough that per-read overhead vanishes, small
/// enough to stay in L2.
const CHUNK: usize = 256 * 1024;
/// Files larger than this are streamed alone rather than read whole into a window.
const WINDOW_FILE_MAX: u64 = 128 << 20;
/// Files per window: enough to fill every lane of both cores many times over.
const WINDOW_FILES: usize = 2048;

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
}

/// The digests of one input, one per requested algorithm and in the same order.
#[derive(Clone, Debug)]
pub struct Hashed {
    pub size: u64,
    pub digests: Vec<Digest>,
}

/// Hash each input under every algorithm, yielding results in input order.
///
/// Each input is read once; all algorithms are computed from that one read. Results come
/// a window at a time, so callers print each window's lines before the next is read.
pub fn hash_inputs<'a>(
    inputs: &'a [Input],
    algs: &'a [Algorithm],
) -> impl Iterator<Item = io::Result<Hashed>> + 'a {
    let mut next = 0;
    let mut ready: VecDeque<io::Result<Hashed>> = VecDeque::new();
    std::iter::from_fn(move || {
        if ready.is_empty() && next < inputs.len() {
            next += fill(&inputs[next..], algs, &mut ready);
        }
        ready.pop_front()
    })
}

/// Hash the next window of `inputs` (at least one) into `ready`; returns how many.
///
/// A window is a run of paths, opened and loaded in parallel. Anything that is not a
/// regular file of at most `WINDOW_FILE_MAX` bytes (directories, FIFOs, devices, big
/// files) is left for `hash_streamed`, in its place in the order.
fn fill(inputs: &[Input], algs: &[Algorithm], ready: &mut VecDeque<io::Result<Hashed>>) -> usize {
    let window: Vec<&Input> = inputs
        .iter()
        .take(WINDOW_FILES)
        .take_while(|i| matches!(i, Input::Path(_)))
        .collect();
    if window.is_empty() {
        ready.push_back(hash_streamed(&inputs[0], algs));
        return 1;
    }
    let contents: Vec<io::Result<Option<Contents>>> = window
        .par_iter()
        .map(|input| match input {
            Input::Path(p) => load(p),
            Input::Stdin => unreachable!("stdin is never windowed"),
        })
        .collect();
    let msgs: Vec<&[u8]> = contents
        .iter()
        .filter_map(|c| match c {
            Ok(Some(v)) => Some(v.bytes()),
            _ => None,
        })
        .collect();
    let per_alg: Vec<Vec<Digest>> = algs.iter().map(|&a| hash_many_par(a, &msgs)).collect();
    let mut k = 0;
    for (c, input) in contents.into_iter().zip(&window) {
        ready.push_back(match c {
            Err(e) => Err(e),
            Ok(None) => hash_streamed(input, algs),
            Ok(Some(data)) => {
                let digests = per_alg.iter().map(|ds| ds[k].clone()).collect();
                k += 1;
                Ok(Hashed {
                    size: data.bytes().len() as u64,
                    digests,
                })
            }
        });
    }
    window.len()
}

/// A whole input in memory: read, or mapped when it is a large regular file.
pub enum Contents {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl Contents {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl std::ops::Deref for Contents {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Contents::Read(v) => v,
            Contents::Mapped(m) => m,
        }
    }
}

/// Read an input whole, for the modes that need all of it at once (`--etag`, `--blocks`).
pub fn read_all(input: &Input) -> io::Result<Contents> {
    match input {
        Input::Stdin => {
            let mut v = Vec::new();
            io::stdin().lock().read_to_end(&mut v)?;
            Ok(Contents::Read(v))
        }
        Input::Path(p) => {
            let mut f = File::open(p)?;
            if let Some(map) = map_large(&f) {
                return Ok(Contents::Mapped(map));
            }
            let mut v = Vec::new();
            f.read_to_end(&mut v)?;
            Ok(Contents::Read(v))
        }
    }
}

/// Files at least this large are mapped when read whole: copying a window of many MiB
/// through read() (and faulting in fresh buffers for it) cost more than hashing it.
const MAP_WINDOW_MIN: u64 = 16 << 10;

/// Load a regular file whole; `None` leaves the input to be streamed. The file may change
/// while it is read; whatever is there then is what gets hashed, as with a streaming read.
fn load(p: &OsString) -> io::Result<Option<Contents>> {
    let mut f = File::open(p)?;
    let m = f.metadata()?;
    if !m.is_file() || m.len() > WINDOW_FILE_MAX {
        return Ok(None);
    }
    if mmap_allowed() && m.len() >= MAP_WINDOW_MIN {
        if let Some(map) = map_file(&f, m.len()) {
            return Ok(Some(Contents::Mapped(map)));
        }
    }
    let mut data = Vec::with_capacity(m.len() as usize + 1);
    f.read_to_end(&mut data)?;
    Ok(Some(Contents::Read(data)))
}

fn hash_streamed(input: &Input, algs: &[Algorithm]) -> io::Result<Hashed> {
    match input {
        Input::Stdin => hash_reader(io::stdin(), algs),
        Input::Path(p) => {
            let f = File::open(p)?;
            // Mapping pays only where it lets BLAKE3 (or the BitTorrent v2 tree) use every
            // core; for the serial hashes a read() copy overlapped with hashing (below) is
            // faster than page faults on the hashing thread.
            if algs
                .iter()
                .any(|a| matches!(a, Algorithm::Blake3(_) | Algorithm::Btv2))
            {
                if let Some(map) = map_large(&f) {
                    return Ok(hash_mapped(&map, algs));
                }
            }
            hash_reader(f, algs)
        }
    }
}

/// Regular files at least this large are memory-mapped: no copy through read(), and
/// BLAKE3 can split the whole file over every core as b3sum does.
const MMAP_MIN: u64 = 16 << 20;

/// Whether large files may be mapped; `LANESUM_NO_MMAP` (any value) turns it off.
fn mmap_allowed() -> bool {
    static ALLOWED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ALLOWED.get_or_init(|| std::env::var_os("LANESUM_NO_MMAP").is_none())
}

fn map_large(f: &File) -> Option<memmap2::Mmap> {
    let m = f.metadata().ok()?;
    if !mmap_allowed() || !m.is_file() || m.len() < MMAP_MIN {
        return None;
    }
    map_file(f, m.len())
}

fn map_file(f: &File, len: u64) -> Option<memmap2::Mmap> {
    let len = usize::try_from(len).ok()?;
    // SAFETY: the mapping is only read. If another process truncates the file while it is
    // mapped, reading the vanished pages raises SIGBUS, which main.rs turns into a clear
    // error message and exit status 1 (the same trade-off b3sum and ripgrep make); other
    // concurrent writes only change the bytes hashed, as they would with read().
    unsafe { memmap2::MmapOptions::new().len(len).map(f) }.ok()
}

/// Hash a mapped file. Several algorithms run side by side on the cores, a few MiB at a
/// time so each piece is still in cache for the next algorithm.
fn hash_mapped(map: &[u8], algs: &[Algorithm]) -> Hashed {
    const PIECE: usize = 4 << 20;
    let mut hashers: Vec<Hasher> = algs.iter().map(|&a| Hasher::new(a)).collect();
    if let [h] = &mut hashers[..] {
        h.update(map);
    } else {
        for piece in map.chunks(PIECE) {
            hashers.par_iter_mut().for_each(|h| {
                h.update(piece);
            });
        }
    }
    Hashed {
        size: map.len() as u64,
        digests: hashers.into_iter().map(Hasher::finalize).collect(),
    }
}

/// Stream `r` through every algorithm. A reader thread fills the next buffer while this
/// thread hashes the current one, so the copy out of the page cache (or the wait on a
/// pipe) overlaps the hashing; several algorithms hash each buffer side by side.
fn hash_reader(mut r: impl Read + Send, algs: &[Algorithm]) -> io::Result<Hashed> {
    use std::sync::mpsc::sync_channel;
    const BUFFERS: usize = 3;
    let mut hashers: Vec<Hasher> = algs.iter().map(|&a| Hasher::new(a)).collect();
    let mut size = 0u64;
    let (full_tx, full_rx) = sync_channel::<io::Result<(Vec<u8>, usize)>>(BUFFERS);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(BUFFERS);
    for _ in 0..BUFFERS {
        empty_tx.send(vec![0u8; CHUNK]).expect("receiver alive");
    }
    std::thread::scope(|scope| -> io::Result<()> {
        scope.spawn(move || {
            while let Ok(mut buf) = empty_rx.recv() {
                let res = loop {
                    match r.read(&mut buf) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        other => break other,
                    }
                };
                let done = !matches!(res, Ok(n) if n > 0);
                if full_tx.send(res.map(|n| (buf, n))).is_err() || done {
                    return;
                }
            }
        });
        loop {
            let (buf, n) = full_rx.recv().expect("reader sends until done")?;
            if n == 0 {
                return Ok(());
            }
            size += n as u64;
            if let [h] = &mut hashers[..] {
                h.update(&buf[..n]);
            } else {
                hashers.par_iter_mut().for_each(|h| {
                    h.update(&buf[..n]);
                });
            }
            // The reader may have stopped after an error; then nobody needs the buffer.
            let _ = empty_tx.send(buf);
        }
    })?;
    Ok(Hashed {
        size,
        digests: hashers.into_iter().map(Hasher::finalize).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn one_read_many_algorithms_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..(CHUNK * 2 + 17)).map(|i| (i * 7) as u8).collect();
        File::create(&p).unwrap().write_all(&data).unwrap();
        let algs = [Algorithm::Md5, Algorithm::Sha256, Algorithm::Blake2b(32)];
        let inputs = [
            Input::Path(p.clone().into()),
            Input::Path(dir.path().join("missing").into()),
            Input::Path(dir.path().into()),
            Input::Path(p.clone().into()),
        ];
        let out: Vec<_> = hash_inputs(&inputs, &algs).collect();
        assert_eq!(out.len(), 4);
        for i in [0, 3] {
            let h = out[i].as_ref().unwrap();
            assert_eq!(h.size, data.len() as u64);
            for (d, &a) in h.digests.iter().zip(&algs) {
                assert_eq!(*d, lanesum::hash(a, &data));
            }
        }
        assert_eq!(out[1].as_ref().unwrap_err().kind(), io::ErrorKind::NotFound);
        assert_eq!(
            out[2].as_ref().unwrap_err().raw_os_error(),
            Some(libc::EISDIR)
        );
    }

    /// Many files of every small size in one window, in order, errors in place.
    #[test]
    fn windows_keep_order_and_digests() {
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        let mut want = Vec::new();
        for i in 0..300usize {
            let p = dir.path().join(format!("f{i}"));
            if i % 37 == 5 {
                inputs.push(Input::Path(p.into())); // missing
                want.push(None);
                continue;
            }
            let data: Vec<u8> = (0..i * 13).map(|j| (i + j) as u8).collect();
            File::create(&p).unwrap().write_all(&data).unwrap();
            inputs.push(Input::Path(p.into()));
            want.push(Some(data));
        }
        let algs = [Algorithm::Md5, Algorithm::Sha1, Algorithm::Blake3(32)];
        let out: Vec<_> = hash_inputs(&inputs, &algs).collect();
        assert_eq!(out.len(), want.len());
        for (o, w) in out.iter().zip(&want) {
            match w {
                None => assert!(o.is_err()),
                Some(data) => {
                    let h = o.as_ref().unwrap();
                    for (d, &a) in h.digests.iter().zip(&algs) {
                        assert_eq!(*d, lanesum::hash(a, data));
                    }
                }
            }
        }
    }
}
