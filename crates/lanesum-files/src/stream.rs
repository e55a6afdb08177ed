//! Streaming one input: standard input, FIFOs, devices, a lone big file, or any reader.
//!
//! The caller reads the first [`CHUNK`] itself; past it, a reader thread fills the next
//! buffer while the caller hashes the current one, in at most three buffers of about
//! [`CHUNK`] bytes, so memory stays bounded however long the input.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use lanesum::{Algorithm, MultiHasher};

use crate::hashed::Hashed;
use crate::input::Input;
use crate::memory;

/// Read size for a streamed input: large enough that per-read overhead and BLAKE3's
/// hand-off to rayon vanish, small enough that a few of them stay cheap.
pub const CHUNK: usize = 1 << 20;

/// Stream one input that is not a regular file (or is one too big for a window).
pub(crate) fn hash_streamed(input: &Input, algs: &[Algorithm]) -> io::Result<Hashed> {
    hash_reader(input.open()?, algs)
}

/// The error of a file that ended before the size it had when it was stat'ed.
pub(crate) fn shrank() -> io::Error {
    io::Error::other("file shrank while it was read")
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

/// Read up to `max` bytes of `r` into `buf`, from its start; returns how many (fewer only
/// at the end of the input). `buf` grows as the bytes come, doubling from 64 KiB, so a
/// short input never reserves `max` (three bytes of standard input took a 64 MiB chunk,
/// and aborted under `ulimit -v 65536`). A growth that can't be had is an
/// [`io::ErrorKind::OutOfMemory`] error; `buf` is kept (and never shrinks) for the next
/// chunk. Size `max` with [`within_address_space`](crate::within_address_space).
pub fn read_chunk(mut r: impl Read, buf: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    let mut n = 0;
    while n < max {
        if n == buf.len() {
            memory::grow_to(buf, (n.max(32 << 10) * 2).min(max))?;
        }
        let end = buf.len().min(max);
        match read_once(&mut r, &mut buf[n..end])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// One read() into `buf`, retried if interrupted.
pub(crate) fn read_once(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
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
/// reads and hashes in turn. At most three buffers of about [`CHUNK`]: memory stays
/// bounded however long the input is (a buffer that can't be allocated is an
/// [`io::ErrorKind::OutOfMemory`] error, not an abort), and a file that grows or shrinks
/// meanwhile gives the digest of exactly what was read.
///
/// The first chunk (and a byte, to see an input of exactly [`CHUNK`] end) is read on this
/// thread, into a buffer that grows as the bytes come: an input that ends within it (most
/// standard inputs, as in `echo abc | md5sum`) is hashed with no reader thread and no
/// chunk-sized buffers. `echo abc | md5sum` took 0.1-0.2 ms less CPU time so, about 5-10%
/// of its run with `sh` and `echo` (2-core Zen 5).
pub fn hash_reader(r: impl Read + Send, algs: &[Algorithm]) -> io::Result<Hashed> {
    hash_reader_on(r, algs, true)
}

/// [`hash_reader`], with a reader thread past the first chunk only if `thread` (else as
/// where none can be started).
fn hash_reader_on(mut r: impl Read + Send, algs: &[Algorithm], thread: bool) -> io::Result<Hashed> {
    let mut hasher = MultiHasher::new(algs);
    let mut first = Vec::new();
    let n = read_chunk(&mut r, &mut first, CHUNK + 1)?;
    let mut size = n as u64;
    hasher.update(&first[..n]);
    if n <= CHUNK {
        return Ok(Hashed {
            size,
            digests: hasher.finalize(),
        });
    }
    use std::sync::mpsc::sync_channel;
    const BUFFERS: usize = 3;
    let (full_tx, full_rx) = sync_channel::<io::Result<(Vec<u8>, usize)>>(BUFFERS);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(BUFFERS);
    // The first chunk's buffer is the third.
    for _ in 0..BUFFERS - 1 {
        empty_tx
            .send(memory::zeroed(CHUNK)?)
            .expect("receiver alive");
    }
    let reader = &mut r;
    // The first chunk's buffer, given back if no reader thread started.
    let unstarted = std::thread::scope(|scope| -> io::Result<Option<Vec<u8>>> {
        let started = thread
            && std::thread::Builder::new()
                .spawn_scoped(scope, move || {
                    while let Ok(mut buf) = empty_rx.recv() {
                        // One read() per buffer: a pipe hands over what it has at once.
                        let res = read_once(&mut *reader, &mut buf);
                        let done = !matches!(res, Ok(n) if n > 0);
                        if full_tx.send(res.map(|n| (buf, n))).is_err() || done {
                            return;
                        }
                    }
                })
                .is_ok();
        if !started {
            return Ok(Some(first));
        }
        let _ = empty_tx.send(first);
        loop {
            let (buf, n) = full_rx.recv().expect("reader sends until done")?;
            if n == 0 {
                return Ok(None);
            }
            size += n as u64;
            hasher.update(&buf[..n]);
            // The reader may have stopped after an error; then nobody needs the buffer.
            let _ = empty_tx.send(buf);
        }
    })?;
    if let Some(mut buf) = unstarted {
        // No thread to spare (a process limit): read and hash in turn.
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

/// Read into `buf` from `offset` until it is full or at end of file; returns the bytes read.
pub(crate) fn read_full_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
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

    /// A reader that hands out at most `step` bytes a call.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Chunks of `max` bytes whatever the reads, fewer only at the end; the buffer grows
    /// with what came, not to `max` up front.
    #[test]
    fn read_chunk_fills_to_max_and_grows_with_the_input() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        for step in [1usize, 7, 4096, 1 << 20] {
            let mut r = Trickle(&data[..100_003], step);
            let mut buf = Vec::new();
            let mut got = Vec::new();
            loop {
                let n = read_chunk(&mut r, &mut buf, 30_000).unwrap();
                got.extend_from_slice(&buf[..n]);
                if n < 30_000 {
                    break;
                }
            }
            assert_eq!(got, &data[..100_003], "step {step}");
        }
        let mut buf = Vec::new();
        assert_eq!(read_chunk(&b"abc"[..], &mut buf, 64 << 20).unwrap(), 3);
        assert!(
            buf.len() < 1 << 20,
            "3 bytes took a buffer of {}",
            buf.len()
        );
        assert_eq!(read_chunk(&b""[..], &mut buf, 10).unwrap(), 0);
    }

    /// A reader that hands out at most `step` bytes a call, and notes whether any call
    /// came from a thread other than its maker's.
    struct Watched<'a>(Trickle<'a>, std::thread::ThreadId, bool);

    impl Read for Watched<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.2 |= std::thread::current().id() != self.1;
            self.0.read(buf)
        }
    }

    /// Inputs that end within the first chunk (read on the calling thread alone), at its
    /// edge, and past it (the first chunk hashed while a reader thread reads on, or with
    /// no thread, read and hashed in turn), however the reads come: each gives its
    /// digests and size.
    #[test]
    fn streams_of_every_length_around_the_first_chunk() {
        let data: Vec<u8> = (0..3 * CHUNK + 5)
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        let algs = [Algorithm::Md5, Algorithm::Sha256, Algorithm::Blake3(32)];
        for len in [0, 3, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 5] {
            for step in [1 << 20, 65536, 4093] {
                for thread in [true, false] {
                    let what = format!("{len} by {step}, thread {thread}");
                    let mut r = Watched(
                        Trickle(&data[..len], step),
                        std::thread::current().id(),
                        false,
                    );
                    let h = hash_reader_on(&mut r, &algs, thread).unwrap();
                    assert_eq!(r.2, thread && len > CHUNK, "another thread read: {what}");
                    assert_eq!(h.size, len as u64, "{what}");
                    for (got, &a) in h.digests.iter().zip(&algs) {
                        assert_eq!(*got, lanesum::hash(a, &data[..len]), "{a:?}: {what}");
                    }
                }
            }
        }
    }
}
