//! The tools lanesum can act as, one row of data each.
//!
//! Invoked as `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`,
//! `b2sum`, `b3sum`, `cksum` or `sum` (by symlink or copy) lanesum behaves as that tool; under any other
//! name it is `lanesum`, which adds `-a ALGO[,ALGO...]`, `--json`, the whole-input modes,
//! trees and `speed`. Everything that differs between them is a field of [`Personality`]:
//! a new tool is a new row, plus its option group in the option table (`flags::table`)
//! if it has options of its own (as `cksum` and `sum` have).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use lanesum::Algorithm;

/// A set of rows of the option table (`flags::table`) that tools have or lack together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Every coreutils checksum tool's: `-c` and its modifiers, `--tag`, `-z`, `-b`, `-t`.
    Common,
    /// `--help`, `--version`: every tool with a group has them.
    Help,
    /// `-a ALGO[,ALGO...]`.
    Algorithm,
    /// `-l BITS` (b2sum's).
    Length,
    /// `--json`.
    Json,
    /// `--etag`, `--blocks`, `--torrent-pieces`.
    WholeInput,
    /// `-r`, `-L`, `-x`, `--exclude`, `--files-from`, `-0`, `--progress`, `--no-progress`.
    Tree,
    /// `-j N`: lanesum's own name only, so the coreutils tools refuse it as GNU's do
    /// (b3sum has its own `--num-threads`; `RAYON_NUM_THREADS` works under every name).
    Threads,
    /// `--base64` (cksum has it through [`Group::Cksum`]).
    Base64,
    /// cksum's own: `-a TYPE` (GNU's names), `--base64`, `--debug`, `--raw`, `--untagged`;
    /// its legacy output formats and `--check` rules go with them.
    Cksum,
    /// sum's: `-r`, `-s`.
    Sum,
}

/// How a tool's arguments are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// getopt_long's rules and glibc's diagnostics, as coreutils (`flags::getopt`).
    Getopt,
    /// b3sum's own clap command and clap's diagnostics (`flags::b3sum`).
    B3sum,
}

/// The name diagnostics start with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgName {
    /// argv[0] verbatim, as coreutils (`/usr/bin/md5sum: ...` when run by path).
    Argv0,
    /// The tool's own name, whatever it was run as (lanesum, and b3sum as the real one).
    Own,
}

/// Which lines `--check` accepts, and with which algorithm (see `check::Dialect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckLines {
    /// The tool's own algorithm: its tag, or untagged hex of its exact length.
    Own,
    /// b2sum's: `BLAKE2b[-BITS]` tags, untagged hex of any even length up to 128.
    Blake2b,
    /// lanesum's: any known tag; untagged lines by `-a`, or else by their length.
    Any,
    /// cksum's (coreutils 9.9): without `-a` tagged lines of any algorithm but the
    /// legacy ones, with `-a` its tag or untagged lines; hex or base64 digests.
    Cksum,
}

/// One tool lanesum can act as.
#[derive(Debug)]
pub struct Personality {
    /// The basename of argv[0] that selects it, and its name in `--version`.
    pub name: &'static str,
    /// The one algorithm of a coreutils tool (b2sum's before `-l`); `None`: chosen by `-a`.
    pub algorithm: Option<Algorithm>,
    /// How its arguments are read.
    pub syntax: Syntax,
    /// The option groups it has (with [`Syntax::Getopt`]), in no particular order: the
    /// options come in the table's order, coreutils' `long_options` order.
    pub groups: &'static [Group],
    /// The name its diagnostics start with.
    pub prog_name: ProgName,
    /// What `--check` accepts.
    pub check_lines: CheckLines,
    /// A first argument `speed` runs the benchmarks.
    pub speed: bool,
    /// `--help`'s lines between the usage line and the options.
    pub summary: &'static str,
    /// `--help`'s text after the options ("" for none).
    pub epilogue: &'static str,
}

const COREUTILS: &[Group] = &[Group::Common];

/// A coreutils tool of one fixed algorithm.
const fn coreutils(name: &'static str, alg: Algorithm, summary: &'static str) -> Personality {
    Personality {
        name,
        algorithm: Some(alg),
        syntax: Syntax::Getopt,
        groups: COREUTILS,
        prog_name: ProgName::Argv0,
        check_lines: CheckLines::Own,
        speed: false,
        summary,
        epilogue: "",
    }
}

/// Every personality; the first is the one taken under any other name.
pub static PERSONALITIES: [Personality; 11] = [
    Personality {
        name: "lanesum",
        algorithm: None,
        syntax: Syntax::Getopt,
        groups: &[
            Group::Common,
            Group::Algorithm,
            Group::Length,
            Group::Json,
            Group::WholeInput,
            Group::Tree,
            Group::Threads,
            Group::Base64,
        ],
        prog_name: ProgName::Own,
        check_lines: CheckLines::Any,
        speed: true,
        summary: "Print or check checksums: md5, sha1, sha2, sha3, blake2, blake3, CRCs, xxHash.\n\
                  Usage: lanesum speed [ARGS]... runs benchmarks (a file named 'speed' must be\n\
                  written ./speed).\n",
        epilogue: "\nAlgorithms: md5 sha1 sha224 sha256 sha384 sha512 sha512-224 sha512-256\n\
                   sha3-224 sha3-256 sha3-384 sha3-512 shake128[-BITS] shake256[-BITS] sm3\n\
                   blake2b[-BITS] blake2s[-BITS] blake3[-BITS]; checksums crc32 crc32c crc64nvme\n\
                   crc (POSIX cksum) bsd sysv xxh64 xxh3 xxh128; modes md5p8 (rsync), blake2bp[-BITS],\n\
                   blake2sp[-BITS], btv2 (BitTorrent v2 pieces root; an empty file gives 64 zeros).\n\
                   With several, every line is tagged.\n\
                   When checking, untagged lines use -a, or else the digest length:\n\
                   32 hex digits md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 sha512.\n\
                   SIZE (--etag, --blocks, --torrent-pieces): bytes, or with a K, M, G or T suffix\n\
                   (powers of 1024). --blocks lines read HEX  FILE:INDEX (from 0); --etag lines\n\
                   ETAG  FILE, a file of at most one part giving its plain MD5.\n",
    },
    coreutils(
        "md5sum",
        Algorithm::Md5,
        "Print or check MD5 checksums (lanesum acting as md5sum).\n",
    ),
    coreutils(
        "sha1sum",
        Algorithm::Sha1,
        "Print or check SHA1 checksums (lanesum acting as sha1sum).\n",
    ),
    coreutils(
        "sha224sum",
        Algorithm::Sha224,
        "Print or check SHA224 checksums (lanesum acting as sha224sum).\n",
    ),
    coreutils(
        "sha256sum",
        Algorithm::Sha256,
        "Print or check SHA256 checksums (lanesum acting as sha256sum).\n",
    ),
    coreutils(
        "sha384sum",
        Algorithm::Sha384,
        "Print or check SHA384 checksums (lanesum acting as sha384sum).\n",
    ),
    coreutils(
        "sha512sum",
        Algorithm::Sha512,
        "Print or check SHA512 checksums (lanesum acting as sha512sum).\n",
    ),
    Personality {
        name: "b2sum",
        algorithm: Some(Algorithm::Blake2b(64)),
        syntax: Syntax::Getopt,
        groups: &[Group::Common, Group::Length],
        prog_name: ProgName::Argv0,
        check_lines: CheckLines::Blake2b,
        speed: false,
        summary: "Print or check BLAKE2b checksums (lanesum acting as b2sum).\n",
        epilogue: "",
    },
    Personality {
        name: "cksum",
        algorithm: None,
        syntax: Syntax::Getopt,
        groups: &[Group::Common, Group::Length, Group::Cksum],
        prog_name: ProgName::Argv0,
        check_lines: CheckLines::Cksum,
        speed: false,
        summary: "Print or verify checksums (lanesum acting as GNU cksum 9.9).\n\
                  By default use the 32-bit CRC algorithm.\n",
        epilogue: "\nDIGEST (-a) is one of: sysv (as sum -s), bsd (as sum -r), crc (the default),\n\
                   crc32b, md5, sha1, sha224, sha256, sha384, sha512, sha2 and sha3 (with -l 224,\n\
                   256, 384 or 512), blake2b, sm3; or one of lanesum's names (crc32c, crc64nvme,\n\
                   xxh64, xxh3, xxh128, sha3-256, shake128, blake3 ...).\n\
                   When checking, lines are those this program or the *sum tools write.\n",
    },
    Personality {
        name: "sum",
        algorithm: Some(Algorithm::SumBsd),
        syntax: Syntax::Getopt,
        groups: &[Group::Sum],
        prog_name: ProgName::Argv0,
        check_lines: CheckLines::Own,
        speed: false,
        summary: "Print BSD or System V 16-bit checksums and block counts (lanesum acting as sum).\n",
        epilogue: "",
    },
    Personality {
        name: "b3sum",
        algorithm: Some(Algorithm::Blake3(32)),
        syntax: Syntax::B3sum,
        groups: &[],
        prog_name: ProgName::Own,
        check_lines: CheckLines::Own,
        speed: false,
        summary: "",
        epilogue: "",
    },
];

impl Personality {
    /// The personality the basename of `arg0` names, or lanesum's.
    pub fn from_argv0(arg0: &OsStr) -> &'static Personality {
        let base = arg0.as_bytes().rsplit(|&b| b == b'/').next().unwrap_or(b"");
        PERSONALITIES
            .iter()
            .find(|p| p.name.as_bytes() == base)
            .unwrap_or(&PERSONALITIES[0])
    }

    /// The name diagnostics start with, run as `arg0`.
    pub fn program_name(&self, arg0: &OsStr) -> String {
        match self.prog_name {
            ProgName::Own => self.name.to_string(),
            ProgName::Argv0 => String::from_utf8_lossy(arg0.as_bytes()).into_owned(),
        }
    }

    /// Whether it has the options of `group`.
    pub fn has(&self, group: Group) -> bool {
        self.groups.contains(&group)
    }

    /// cksum and sum: the legacy checksums print in their own formats (`SUM SIZE NAME`,
    /// `SUM BLOCKS NAME`), names only when files were named.
    pub fn legacy_formats(&self) -> bool {
        self.has(Group::Cksum) || self.has(Group::Sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn personality_from_basename() {
        let name = |arg0: &str| Personality::from_argv0(OsStr::new(arg0)).name;
        assert_eq!(name("/usr/local/bin/md5sum"), "md5sum");
        assert_eq!(name("b3sum"), "b3sum");
        assert_eq!(name("./lanesum"), "lanesum");
        assert_eq!(name("md5sum.old"), "lanesum");
        assert_eq!(name(""), "lanesum");
    }

    /// The coreutils rows' help names their algorithm by its tag.
    #[test]
    fn summaries_name_the_algorithm() {
        for p in PERSONALITIES
            .iter()
            .filter(|p| p.syntax == Syntax::Getopt && !p.legacy_formats())
        {
            if let Some(a) = p.algorithm {
                assert_eq!(
                    p.summary,
                    format!(
                        "Print or check {} checksums (lanesum acting as {}).\n",
                        a.tag(),
                        p.name
                    )
                );
            }
        }
    }
}
