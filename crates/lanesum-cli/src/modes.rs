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
//! * `--s3[=PART_SIZE]` (default 8 MiB, the AWS CLI's): what S3 reports for the file
//!   uploaded in parts of that size: `ETAG (NAME) = ETAG`, then for each `-a` algorithm
//!   (S3's names; default crc32) and each checksum type S3 has for it, `ALGO TYPE (NAME)
//!   = BASE64` (`-N` after composite ones). A file of at most one part is a single PUT:
//!   one `ALGO FULL_OBJECT` line per algorithm, its plain checksum (see
//!   `lanesum::modes::s3_checksum`).
//!
//! A regular file is read whole (mapped when large); standard input, FIFOs, devices and
//! large files that may not be mapped are read up to 64 MiB of blocks at a time (less
//! under a `ulimit -v`), into a buffer that grows with what comes, so memory stays
//! bounded and a short input takes little. Blocks larger than that, and S3 parts, are
//! streamed through hashers. A buffer that can't be had is an error on that input, never
//! an abort. Blocks are hashed through the SIMD lanes on every core (`lanesum::modes`).

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;

use lanesum::modes::{S3Algorithm, S3ChecksumType};
use lanesum::{hash_many_par, modes, Algorithm, Digest, MultiHasher};
use lanesum_files::{
    by_input, open_source, read_chunk, within_address_space, Contents, Input, Source,
};

use crate::options::{Mode, Options};
use crate::output;
use crate::report::Reporter;

/// Inputs that are not regular files are hashed at most this many bytes (whole blocks) at
/// a time, so memory stays bounded however much standard input brings.
const STREAM_CHUNK: usize = 64 << 20;
/// The buffer a block or part larger than a chunk is streamed through, at most.
const PIECE_BUF: usize = 1 << 20;
/// Most blocks hashed at a time (per input read whole, or per chunk of a stream): their
/// digests and lines take ~190 bytes each, 12 MiB at this count, where all the blocks of a
/// 100 MiB file of 64-byte blocks took 400 MB.
const CHUNK_BLOCKS: usize = 1 << 16;

/// Bytes of `size`-byte blocks taken at a time: at most [`STREAM_CHUNK`] bytes and
/// [`CHUNK_BLOCKS`] blocks, and under a `ulimit -v` at most a quarter of the address
/// space left (less than a block if blocks are larger than that: then each block is
/// streamed).
fn chunk_len(size: usize) -> usize {
    within_address_space(STREAM_CHUNK.min(CHUNK_BLOCKS.saturating_mul(size)), 4, 0)
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
        Mode::S3(part) => {
            let mut acc = S3Sums::new(&opts.s3_algs);
            let step = (STREAM_CHUNK / part).max(1) * part;
            for (c, piece) in data.chunks(step).enumerate() {
                acc.add(&piece.chunks(part).collect::<Vec<_>>());
                if data.shrank_below(c * step + piece.len()) {
                    return Err(shrank());
                }
            }
            acc.push_lines(&mut out, name, opts.style.zero);
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
        Mode::S3(part) => {
            let mut acc = S3Sums::new(&opts.s3_algs);
            let chunk = chunk_len(part);
            let mut r = r;
            let mut buf = Vec::new();
            if part <= chunk {
                // Whole parts at a time, each hashed on a core of its own.
                let step = chunk / part * part;
                loop {
                    let n = read_chunk(&mut r, &mut buf, step)?;
                    acc.add(&buf[..n].chunks(part).collect::<Vec<_>>());
                    if n < step {
                        break;
                    }
                }
            } else {
                // A part at a time through the hashers of every value it gives.
                let mut algs = vec![Algorithm::Md5];
                algs.extend(opts.s3_algs.iter().map(|a| a.algorithm()));
                stream_pieces(r, &algs, part, chunk, &mut buf, |len, ds| {
                    acc.add_sums(len, ds);
                })?;
            }
            acc.push_lines(&mut out, name, opts.style.zero);
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
    let mut buf = Vec::new();
    if size <= chunk {
        let step = chunk / size * size;
        loop {
            let n = read_chunk(&mut r, &mut buf, step)?;
            for ds in blocks(algs, &buf[..n], size) {
                emit(index, &ds);
                index += 1;
            }
            if n < step {
                return Ok(());
            }
        }
    }
    stream_pieces(r, algs, size, chunk, &mut buf, |_, ds| {
        emit(index, ds);
        index += 1;
    })
}

/// Each `size`-byte piece of `r` (the last may be shorter; none if `r` is empty) streamed
/// through a [`MultiHasher`] of `algs`, through `buf` grown to at most `chunk` bytes (and
/// [`PIECE_BUF`]): `emit(length, digests)` in order.
fn stream_pieces(
    mut r: impl Read,
    algs: &[Algorithm],
    size: usize,
    chunk: usize,
    buf: &mut Vec<u8>,
    mut emit: impl FnMut(u64, &[Digest]),
) -> io::Result<()> {
    let step = chunk.clamp(1, PIECE_BUF);
    loop {
        let mut h = MultiHasher::new(algs);
        let mut got = 0;
        while got < size {
            let want = (size - got).min(step);
            let n = read_chunk(&mut r, buf, want)?;
            h.update(&buf[..n]);
            got += n;
            if n < want {
                break;
            }
        }
        if got == 0 {
            return Ok(());
        }
        emit(got as u64, &h.finalize());
        if got < size {
            return Ok(());
        }
    }
}

/// The parts' values an S3 upload's checksums are made of, gathered a chunk of parts at
/// a time: MD5s for the ETag, each algorithm's part checksums, the parts' lengths.
struct S3Sums {
    algs: Vec<S3Algorithm>,
    md5s: Vec<Digest>,
    sums: Vec<Vec<Digest>>,
    lens: Vec<u64>,
}

impl S3Sums {
    fn new(algs: &[S3Algorithm]) -> S3Sums {
        S3Sums {
            algs: algs.to_vec(),
            md5s: Vec::new(),
            sums: vec![Vec::new(); algs.len()],
            lens: Vec::new(),
        }
    }

    /// A part streamed through hashers: its length, then its MD5 and each algorithm's
    /// checksum, in the order of `algs`.
    fn add_sums(&mut self, len: u64, digests: &[Digest]) {
        self.md5s.push(digests[0].clone());
        for (sums, d) in self.sums.iter_mut().zip(&digests[1..]) {
            sums.push(d.clone());
        }
        self.lens.push(len);
    }

    /// The next parts, each hashed on every core.
    fn add(&mut self, parts: &[&[u8]]) {
        self.md5s.extend(hash_many_par(Algorithm::Md5, parts));
        for (alg, sums) in self.algs.iter().zip(&mut self.sums) {
            sums.extend(modes::s3_part_checksums(*alg, parts));
        }
        self.lens.extend(parts.iter().map(|p| p.len() as u64));
    }

    /// `ETAG (NAME) = ETAG`, then a line per algorithm and type S3 reports.
    fn push_lines(&self, out: &mut Vec<u8>, name: &OsString, zero: bool) {
        let etag = modes::s3_etag_of_part_md5s(&self.md5s);
        push_labelled(out, "ETAG", &etag, name, zero);
        let multipart = self.lens.len() > 1;
        for (alg, sums) in self.algs.iter().zip(&self.sums) {
            let types = if multipart {
                alg.types()
            } else {
                &[S3ChecksumType::FullObject][..]
            };
            for &ty in types {
                if let Some(v) = modes::s3_checksum_of_parts(*alg, ty, sums, &self.lens) {
                    push_labelled(out, &format!("{alg} {ty}"), &v, name, zero);
                }
            }
        }
    }
}

/// `LABEL (NAME) = VALUE`, the name escaped as in tagged lines.
fn push_labelled(out: &mut Vec<u8>, label: &str, value: &str, name: &OsString, zero: bool) {
    let before = format!("{label} (");
    push_around_name(
        out,
        before.as_bytes(),
        name,
        format!(") = {value}").as_bytes(),
        zero,
    );
}

/// `VALUE  NAME` with md5sum's escaping of the name.
fn push_plain(out: &mut Vec<u8>, value: &str, name: &OsString, zero: bool) {
    push_around_name(out, format!("{value}  ").as_bytes(), name, b"", zero);
}

/// A line `BEFORE NAME AFTER`, the name escaped (and the line marked) as md5sum does.
fn push_around_name(out: &mut Vec<u8>, before: &[u8], name: &OsString, after: &[u8], zero: bool) {
    let name = name.as_bytes();
    let escape = !zero && output::needs_escape(name);
    if escape {
        out.push(b'\\');
    }
    out.extend_from_slice(before);
    if escape {
        output::push_escaped(out, name);
    } else {
        out.extend_from_slice(name);
    }
    out.extend_from_slice(after);
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

    /// S3 parts streamed through hashers (parts larger than a chunk) give the lines of
    /// the same parts held whole.
    #[test]
    fn streamed_s3_parts_match_whole() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 13 + i / 97) as u8).collect();
        let s3 = S3Algorithm::ALL;
        let mut algs = vec![Algorithm::Md5];
        algs.extend(s3.iter().map(|a| a.algorithm()));
        for len in [0usize, 1, 7777, 7778, 50_000] {
            for part in [1000usize, 7777] {
                let mut whole = S3Sums::new(&s3);
                whole.add(&data[..len].chunks(part).collect::<Vec<_>>());
                let mut streamed = S3Sums::new(&s3);
                let mut buf = Vec::new();
                stream_pieces(&data[..len], &algs, part, 999, &mut buf, |n, ds| {
                    streamed.add_sums(n, ds)
                })
                .unwrap();
                let (mut a, mut b) = (Vec::new(), Vec::new());
                whole.push_lines(&mut a, &"f".into(), false);
                streamed.push_lines(&mut b, &"f".into(), false);
                assert_eq!(
                    String::from_utf8(b).unwrap(),
                    String::from_utf8(a).unwrap(),
                    "len {len} part {part}"
                );
            }
        }
    }
}
