//! A big file with no companions, hashed on every core: read a window at a time by every
//! core where its algorithms spread one input over the cores (BLAKE3, BitTorrent v2, the
//! CRCs) or outrun one core's read (XXH3); BLAKE3 alone by pieces, each read and hashed
//! by one core; otherwise read by a helper thread while the cores hash (see
//! [`hash_lone`]). The pipeline calls it in its pool, one file after another.

use std::cell::RefCell;
use std::fs::File;
use std::io;

use lanesum::modes::{blake3_of_pieces, blake3_piece, Blake3Piece, BLAKE3_PIECE};
use lanesum::{Algorithm, MultiHasher};

use crate::hashed::Hashed;
use crate::memory;
use crate::stream::{hash_reader, read_full_at, shrank};

/// Files at least this large, hashed alone with BLAKE3, BitTorrent v2, a CRC or XXH3,
/// are read by every core at once.
const SPREAD_MIN: u64 = 16 << 20;
/// What one core reads at a time from a lone big file.
const READ_PIECE: usize = 1 << 20;
/// The smallest window of a lone big file: BLAKE3 and the CRCs split a window over the
/// cores (a CRC in pieces of 1 MiB or more), so a window holds a piece per thread and at
/// least 8 MiB.
const WINDOW_MIN: usize = 8 << 20;

/// Hash a big file that has no companions. Where all its algorithms outrun one core's
/// read (BLAKE3, BitTorrent v2 and the CRCs, which split a write over every core, and
/// XXH3), it is read a window at a time with every core reading a piece
/// ([`read_window`]), then hashed; otherwise (any slower algorithm sets the pace) a
/// helper thread reads while the cores hash, the reads hidden behind the hashing:
/// `crc32c,md5` of 1 GiB took 1.28-1.30 s through windows, 1.20-1.25 s so.
///
/// Reading beat mapping (what this did before) on every algorithm: 1 GiB in page cache,
/// AMD EPYC Zen 5, 2 cores, Linux 6.18, three runs each, mapped 64 MiB windows against
/// 8 MiB windows read in 1 MiB pieces: crc32c 0.112-0.135 s against 0.068-0.071,
/// crc32c,crc64nvme 0.128-0.140 against 0.079-0.097, blake3 0.171-0.188 against
/// 0.117-0.125, xxh3 0.178-0.181 against 0.096-0.102. A map's page faults and its
/// unmapping cost more system time than the copy out of the page cache (`perf`: 40% of
/// the CPU time in faulting and unmapping pages), and the unmapping was serial.
///
/// `buf` holds the window, and is kept from one file to the next: allocating and zeroing
/// 16 MiB per file made BLAKE3 of 64 x 64 MiB on a 16-core Xeon VM 1.7x slower than b3sum
/// (376 against 216 ms), a 64 MiB window per file 15x (3.2 s: its pages, new each time,
/// faulted in on one thread).
pub(crate) fn hash_lone(f: File, algs: &[Algorithm], buf: &mut Vec<u8>) -> io::Result<Hashed> {
    let parallel = algs
        .iter()
        .all(|a| a.spreads_one_input() || matches!(a, Algorithm::Xxh3 | Algorithm::Xxh128));
    let len = f.metadata()?.len();
    if !parallel || len < SPREAD_MIN {
        return hash_reader(f, algs);
    }
    if let [Algorithm::Blake3(out_len)] = *algs {
        return hash_blake3_pieces(&f, out_len, len);
    }
    hash_windows(&f, algs, len, buf)
}

thread_local! {
    /// A thread's piece of a lone big file under BLAKE3 ([`hash_blake3_pieces`]): grown
    /// once, kept by the pool's threads from one file to the next.
    static PIECE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// [`hash_lone`] for BLAKE3 alone, whose tree lets each piece be hashed apart
/// (`lanesum::modes::blake3_piece`): every core reads a piece and hashes it while it is
/// still in its cache, with no window to fill first and no barrier between reading and
/// hashing. 64 files of 64 MiB on a 16-core Xeon VM, 6 runs in turn, best / median: by
/// pieces 136 / 143 ms, through windows 170 / 181, b3sum 170 / 195 (which maps each file
/// and hashes it with `update_rayon`). On 2 cores (Zen 5) 0.51-0.63 s against 0.67-0.72,
/// b3sum 0.63-0.75.
///
/// The file is read on to its end, as in [`hash_windows`]: a file that grew since it was
/// stat'ed is hashed whole, one that shrank is an error.
fn hash_blake3_pieces(f: &File, out_len: usize, len: u64) -> io::Result<Hashed> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let piece = |index: u64, read: &dyn Fn(&mut [u8]) -> io::Result<usize>| {
        PIECE.with(|buf| {
            let mut buf = buf.borrow_mut();
            memory::grow_to(&mut buf, BLAKE3_PIECE)?;
            let n = read(&mut buf[..BLAKE3_PIECE])?;
            Ok((n, (n > 0).then(|| blake3_piece(index, &buf[..n])).flatten()))
        })
    };
    let full = len / BLAKE3_PIECE as u64;
    let mut pieces: Vec<Blake3Piece> = (0..full)
        .into_par_iter()
        .map(|i| {
            let at = i * BLAKE3_PIECE as u64;
            let (_, p) = piece(i, &|buf| f.read_exact_at(buf, at).map(|()| buf.len()))
                .map_err(shrank_on_eof)?;
            p.ok_or_else(shrank)
        })
        .collect::<io::Result<_>>()?;
    // The last, partial piece, and whatever the file grew by since it was stat'ed.
    let mut off = full * BLAKE3_PIECE as u64;
    loop {
        let (n, p) = piece(off / BLAKE3_PIECE as u64, &|buf| read_full_at(f, buf, off))?;
        pieces.extend(p);
        off += n as u64;
        if n < BLAKE3_PIECE {
            break;
        }
    }
    let digest = blake3_of_pieces(&pieces, out_len)
        .filter(|_| off >= len)
        .ok_or_else(shrank)?;
    Ok(Hashed {
        size: off,
        digests: vec![digest],
    })
}

/// A read that ended early: the file shrank since it was stat'ed.
fn shrank_on_eof(e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => shrank(),
        _ => e,
    }
}

/// [`hash_lone`]'s windows over `f`, whose size was `len` when it was stat'ed. A file
/// that grew since is read on to its new end, as GNU's tools (and lanesum's other paths)
/// do; one that shrank is an error.
fn hash_windows(f: &File, algs: &[Algorithm], len: u64, buf: &mut Vec<u8>) -> io::Result<Hashed> {
    let want = (rayon::current_num_threads() * READ_PIECE).max(WINDOW_MIN);
    let window = memory::within_address_space(want, 4, READ_PIECE).min(len as usize);
    memory::grow_to(buf, window)?;
    let buf = &mut buf[..window];
    let mut h = MultiHasher::new(algs);
    let spread = algs.len() == 1 || algs.iter().all(|a| a.spreads_one_input());
    let mut off = 0u64;
    while off < len {
        let n = (len - off).min(window as u64) as usize;
        read_window(f, off, &mut buf[..n])?;
        if spread {
            // Each spreads the window over the cores, piece by piece (see `MultiHasher`).
            h.update(&buf[..n]);
        } else {
            // Several algorithms side by side, a few MiB at a time so each piece is still
            // in cache for the next algorithm.
            for piece in buf[..n].chunks(4 << 20) {
                h.update(piece);
            }
        }
        off += n as u64;
    }
    loop {
        let n = read_full_at(f, buf, off)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        off += n as u64;
    }
    Ok(Hashed {
        size: off,
        digests: h.finalize(),
    })
}

/// Fill `buf` with the bytes of `f` from `off`, [`READ_PIECE`] bytes per task on every
/// core (`pread`: no shared file offset). A file that ends before is an error: it shrank
/// since it was stat'ed.
fn read_window(f: &File, off: u64, buf: &mut [u8]) -> io::Result<()> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    buf.par_chunks_mut(READ_PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| {
            let at = off + (i * READ_PIECE) as u64;
            f.read_exact_at(piece, at).map_err(shrank_on_eof)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::tests::{check, data};
    use std::fs;

    /// A lone big file is read in windows by every thread when all its algorithms
    /// spread (the last window and its last piece short, three threads), else by a
    /// helper thread; either way the digests are one-shot hashing's. One that grew after
    /// it was stat'ed is hashed to its new end; one shorter than its window (it shrank)
    /// is an error.
    #[test]
    fn lone_big_file_read_in_windows() {
        let dir = tempfile::tempdir().unwrap();
        let n = SPREAD_MIN as usize + WINDOW_MIN + READ_PIECE / 2 + 7;
        let d = data(n, 3);
        let p = dir.path().join("big");
        fs::write(&p, &d).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        // One window buffer for every file, as the pipeline keeps it: what an earlier,
        // longer file left in it must never reach a later file's digest.
        let mut buf = Vec::new();
        let longer = data(n + 3 * READ_PIECE, 5);
        let q = dir.path().join("longer");
        fs::write(&q, &longer).unwrap();
        let algs = &[Algorithm::Blake3(32)][..];
        let r = pool.install(|| hash_lone(File::open(&q).unwrap(), algs, &mut buf));
        check(&[r], &[Some(longer)], algs);
        for algs in [
            &[Algorithm::Crc32c, Algorithm::Crc64Nvme][..],
            &[Algorithm::Blake3(32)][..],
            &[Algorithm::Blake3(64)][..],
            &[Algorithm::Xxh3, Algorithm::Crc][..],
            &[Algorithm::Crc32, Algorithm::Md5][..],
        ] {
            let r = pool.install(|| hash_lone(File::open(&p).unwrap(), algs, &mut buf));
            check(&[r], &[Some(d.clone())], algs);
        }
        // A file that grew after it was stat'ed is hashed to its new end.
        let stat_len = (n - WINDOW_MIN - 3) as u64;
        for algs in [&[Algorithm::Crc32c][..], &[Algorithm::Blake3(32)][..]] {
            let r =
                pool.install(|| hash_windows(&File::open(&p).unwrap(), algs, stat_len, &mut buf));
            assert_eq!(r.as_ref().unwrap().size, n as u64);
            check(&[r], &[Some(d.clone())], algs);
        }
        // BLAKE3 alone, by pieces: grown since stat'ed (by less and more than a piece),
        // and shrunk (an error).
        let algs = &[Algorithm::Blake3(32)][..];
        for less in [3, BLAKE3_PIECE as u64 + 5, n as u64 - SPREAD_MIN] {
            let f = File::open(&p).unwrap();
            let r = pool.install(|| hash_blake3_pieces(&f, 32, n as u64 - less));
            assert_eq!(r.as_ref().unwrap().size, n as u64);
            check(&[r], &[Some(d.clone())], algs);
        }
        for more in [1, BLAKE3_PIECE as u64] {
            let f = File::open(&p).unwrap();
            let r = pool.install(|| hash_blake3_pieces(&f, 32, n as u64 + more));
            assert_eq!(r.unwrap_err().to_string(), "file shrank while it was read");
        }
        let f = File::open(&p).unwrap();
        let mut short = vec![0u8; 3 * READ_PIECE];
        let e = read_window(&f, (n - READ_PIECE) as u64, &mut short).unwrap_err();
        assert_eq!(e.to_string(), "file shrank while it was read");
    }
}
