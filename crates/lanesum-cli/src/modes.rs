//! Whole-input modes of the `lanesum` personality that print several values per file or
//! values that are not digests: `--etag`, `--blocks`, `--torrent-pieces`.
//!
//! Output formats (names escaped as in hashing lines, see `output`):
//! * `--etag PART_SIZE`: `ETAG  NAME`, the S3 multipart ETag (`HEX-N`, or plain MD5 hex
//!   for a file of at most one part, including an empty file).
//! * `--blocks SIZE`: one line per block per algorithm, block-major: `HEX  NAME:INDEX`
//!   (`INDEX` from 0), or `TAG (NAME:INDEX) = HEX` with `--tag` or several `-a`
//!   algorithms. An empty file has no blocks and prints nothing.
//! * `--torrent-pieces PIECE_LEN`: BitTorrent v1 piece hashes, as `--blocks` with SHA-1.
//!
//! A regular file is read whole (mapped when large); standard input, FIFOs, devices and
//! large files that may not be mapped are read 64 MiB of blocks at a time, so memory
//! stays bounded. Blocks are hashed through the SIMD lanes on every core
//! (`lanesum::modes`).

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;

use lanesum::{modes, Algorithm, Digest, MultiHasher};
use lanesum_files::{by_input, open_source, read_full, Contents, Input, Source};

use crate::options::{Mode, Options};
use crate::output;
use crate::report::Reporter;

/// Inputs that are not regular files are hashed this many bytes (whole blocks) at a time,
/// so memory stays bounded however much standard input brings.
const STREAM_CHUNK: usize = 64 << 20;
/// Most blocks hashed at a time (per input read whole, or per chunk of a stream): their
/// digests and lines take ~190 bytes each, 12 MiB at this count, where all the blocks of a
/// 100 MiB file of 64-byte blocks took 400 MB.
const CHUNK_BLOCKS: usize = 1 << 16;

/// Bytes of `size`-byte blocks taken at a time: at most [`STREAM_CHUNK`] bytes and
/// [`CHUNK_BLOCKS`] blocks (less than a block if blocks are larger than that).
fn chunk_len(size: usize) -> usize {
    STREAM_CHUNK.min(CHUNK_BLOCKS.saturating_mul(size))
}

/// Run one mode over every input; returns the exit status.
pub fn run(opts: &Options, mode: Mode, rep: &mut Reporter) -> i32 {
    let mut ok = true;
    for name in &opts.files {
        let r = match open_source(&Input::from_operand(name), &opts.input) {
            Ok(Source::Whole(data)) => whole(opts, mode, &data, name, rep),
            Ok(Source::Stream(r)) => streamed(opts, mode, r, name, rep),
            Err(e) => Err(e),
        };
        if let Err(e) = r {
            rep.file_error(name.as_bytes(), &e);
            ok = false;
        }
        rep.flush();
    }
    i32::from(!ok)
}

/// The lines of one input held whole, written a chunk of blocks at a time (each chunk's
/// blocks hashed on every core): a file that shrank while it was read ends its lines
/// with an error, as a read error ends a stream's.
fn whole(
    opts: &Options,
    mode: Mode,
    data: &Contents,
    name: &OsString,
    rep: &mut Reporter,
) -> io::Result<()> {
    let shrank = || io::Error::other("file shrank while it was read");
    let mut out = Vec::new();
    let (algs, size) = match mode {
        Mode::Etag(part) => {
            let etag = modes::s3_etag(data, part);
            if data.shrank_below(data.len()) {
                return Err(shrank());
            }
            push_plain(&mut out, &etag, name, opts.style.zero);
            rep.write(&out);
            return Ok(());
        }
        Mode::Blocks(size) => (&opts.algs[..], size),
        Mode::TorrentPieces(size) => (&[Algorithm::Sha1][..], size),
    };
    let step = (chunk_len(size) / size).max(1) * size;
    let mut index = 0;
    for (c, piece) in data.chunks(step).enumerate() {
        let digests = blocks(algs, piece, size);
        if data.shrank_below(c * step + piece.len()) {
            return Err(shrank());
        }
        for ds in &digests {
            push_block(&mut out, opts, algs, ds, index, name);
            index += 1;
        }
        rep.write(&out);
        out.clear();
    }
    Ok(())
}

/// Each `size`-byte block's digests under `algs`, block by block, hashed on every core.
fn blocks(algs: &[Algorithm], data: &[u8], size: usize) -> Vec<Vec<Digest>> {
    let per_alg: Vec<Vec<Digest>> = algs.iter().map(|&a| modes::blocks(a, data, size)).collect();
    let count = per_alg.first().map_or(0, Vec::len);
    by_input(&per_alg, count)
}

/// The lines of a streamed input, written a chunk at a time: a read error part way leaves
/// the blocks before it printed, then the error.
fn streamed(
    opts: &Options,
    mode: Mode,
    r: impl Read,
    name: &OsString,
    rep: &mut Reporter,
) -> io::Result<()> {
    let mut out = Vec::new();
    match mode {
        Mode::Etag(part) => {
            let mut parts = Vec::new();
            stream_blocks(r, &[Algorithm::Md5], part, chunk_len(part), |_, ds| {
                parts.push(ds[0].clone())
            })?;
            push_plain(
                &mut out,
                &modes::s3_etag_of_part_md5s(&parts),
                name,
                opts.style.zero,
            );
            rep.write(&out);
        }
        Mode::Blocks(size) | Mode::TorrentPieces(size) => {
            let algs = match mode {
                Mode::Blocks(_) => &opts.algs[..],
                _ => &[Algorithm::Sha1][..],
            };
            stream_blocks(r, algs, size, chunk_len(size), |i, ds| {
                push_block(&mut out, opts, algs, ds, i, name);
                if out.len() >= 1 << 16 {
                    rep.write(&out);
                    out.clear();
                }
            })?;
            rep.write(&out);
        }
    }
    Ok(())
}

/// Each `size`-byte block's digests under `algs` (`emit(index, digests)`, in block order)
/// from a reader, in bounded memory: `chunk` bytes of blocks at a time through the lanes,
/// or each block streamed alone when one is larger than that.
fn stream_blocks(
    mut r: impl Read,
    algs: &[Algorithm],
    size: usize,
    chunk: usize,
    mut emit: impl FnMut(usize, &[Digest]),
) -> io::Result<()> {
    let mut index = 0;
    if size <= chunk {
        let mut buf = vec![0u8; chunk / size * size];
        loop {
            let n = read_full(&mut r, &mut buf)?;
            for ds in blocks(algs, &buf[..n], size) {
                emit(index, &ds);
                index += 1;
            }
            if n < buf.len() {
                return Ok(());
            }
        }
    }
    let mut buf = vec![0u8; chunk.min(1 << 20)];
    loop {
        let mut h = MultiHasher::new(algs);
        let mut got = 0;
        while got < size {
            let want = (size - got).min(buf.len());
            let n = read_full(&mut r, &mut buf[..want])?;
            h.update(&buf[..n]);
            got += n;
            if n < want {
                break;
            }
        }
        if got == 0 {
            return Ok(());
        }
        emit(index, &h.finalize());
        index += 1;
        if got < size {
            return Ok(());
        }
    }
}

/// `VALUE  NAME` with md5sum's escaping of the name.
fn push_plain(out: &mut Vec<u8>, value: &str, name: &OsString, zero: bool) {
    let name = name.as_bytes();
    let escape = !zero && output::needs_escape(name);
    if escape {
        out.push(b'\\');
    }
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(b"  ");
    if escape {
        output::push_escaped(out, name);
    } else {
        out.extend_from_slice(name);
    }
    out.push(if zero { 0 } else { b'\n' });
}

/// Block `index`'s line for each algorithm: `HEX  NAME:INDEX` (or tagged).
fn push_block(
    out: &mut Vec<u8>,
    opts: &Options,
    algs: &[Algorithm],
    digests: &[Digest],
    index: usize,
    name: &OsString,
) {
    let mut label = Vec::with_capacity(name.len() + 12);
    label.extend_from_slice(name.as_bytes());
    label.extend_from_slice(format!(":{index}").as_bytes());
    for (alg, d) in algs.iter().zip(digests) {
        output::push_line(out, *alg, d, &label, opts.style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streamed blocks (chunks of several blocks, or blocks bigger than a chunk) are those
    /// of the whole input.
    #[test]
    fn streamed_blocks_match_whole() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let algs = [Algorithm::Md5, Algorithm::Sha256, Algorithm::Blake3(32)];
        for len in [0usize, 1, 999, 1000, 1001, 4000, 50_000] {
            for size in [1usize, 64, 1000, 3000, 7777] {
                for chunk in [1000usize, 4096] {
                    let mut got: Vec<Vec<Digest>> = Vec::new();
                    stream_blocks(&data[..len], &algs, size, chunk, |i, ds| {
                        assert_eq!(i, got.len());
                        got.push(ds.to_vec());
                    })
                    .unwrap();
                    for (k, &a) in algs.iter().enumerate() {
                        let want = modes::blocks(a, &data[..len], size);
                        let have: Vec<Digest> = got.iter().map(|ds| ds[k].clone()).collect();
                        assert_eq!(have, want, "{a} len {len} size {size} chunk {chunk}");
                    }
                }
            }
        }
    }
}
