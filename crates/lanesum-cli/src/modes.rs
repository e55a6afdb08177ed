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
//! Each file is read whole (large regular files are memory-mapped); its blocks are hashed
//! through the SIMD lanes on every core (`lanesum::modes`).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use lanesum::{modes, Algorithm};

use crate::cli::Options;
use crate::hashing::{self, Input};
use crate::output;
use crate::report::Reporter;

/// Which whole-input mode was asked for, with its size argument in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Etag(usize),
    Blocks(usize),
    TorrentPieces(usize),
}

/// A size with an optional binary suffix: `4096`, `128K`, `8M`, `1G`, `2T` (also `KiB`,
/// `kb`..., all powers of 1024, case-insensitive). Zero and overflow are refused.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let suffix = s[digits..].to_ascii_lowercase();
    let unit = suffix
        .strip_suffix("ib")
        .or_else(|| suffix.strip_suffix('b'))
        .unwrap_or(&suffix);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    let v = n.checked_mul(1u64 << shift)?;
    if v == 0 {
        return None;
    }
    usize::try_from(v).ok()
}

/// Run one mode over every input; returns the exit status.
pub fn run(opts: &Options, mode: Mode, rep: &mut Reporter) -> i32 {
    let mut ok = true;
    let mut line = Vec::with_capacity(256);
    for name in &opts.files {
        let data = match hashing::read_all(&Input::from_operand(name)) {
            Ok(d) => d,
            Err(e) => {
                rep.file_error(name.as_bytes(), &e);
                ok = false;
                continue;
            }
        };
        line.clear();
        match mode {
            Mode::Etag(part) => {
                let etag = modes::s3_etag(&data, part);
                push_plain(&mut line, &etag, name, opts.style.zero);
            }
            Mode::Blocks(size) => push_blocks(&mut line, opts, &opts.algs, &data, size, name),
            Mode::TorrentPieces(size) => {
                push_blocks(&mut line, opts, &[Algorithm::Sha1], &data, size, name)
            }
        }
        rep.write(&line);
        rep.flush();
    }
    i32::from(!ok)
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

fn push_blocks(
    out: &mut Vec<u8>,
    opts: &Options,
    algs: &[Algorithm],
    data: &[u8],
    size: usize,
    name: &OsString,
) {
    let per_alg: Vec<Vec<lanesum::Digest>> =
        algs.iter().map(|&a| modes::blocks(a, data, size)).collect();
    let blocks = per_alg.first().map_or(0, Vec::len);
    let mut label = Vec::with_capacity(name.len() + 12);
    for i in 0..blocks {
        label.clear();
        label.extend_from_slice(name.as_bytes());
        label.extend_from_slice(format!(":{i}").as_bytes());
        for (alg, ds) in algs.iter().zip(&per_alg) {
            output::push_line(out, *alg, &ds[i], &label, opts.style);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("128K"), Some(128 << 10));
        assert_eq!(parse_size("128k"), Some(128 << 10));
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("8MiB"), Some(8 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("16KB"), Some(16 << 10));
        assert_eq!(parse_size("10b"), Some(10));
        for bad in [
            "",
            "0",
            "0K",
            "K",
            "-1",
            "1X",
            "1.5M",
            "99999999999999999999",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
