//! Every option of the coreutils-style tools, defined once: names, argument, help, and
//! the [`Group`] that decides which tools have it.

use crate::personality::{Group, Personality};

/// One option as getopt knows it.
#[derive(Debug)]
pub struct OptSpec {
    /// The long name, also the option's id (for a short-only option, a name never
    /// accepted as `--long`: see `has_long`).
    pub long: &'static str,
    /// Whether `--long` exists (sum's `-r` has no long form).
    pub has_long: bool,
    pub short: Option<u8>,
    /// The argument's name in `--help` (`--exclude=GLOB`); `None`: a flag.
    pub arg: Option<&'static str>,
    /// The argument may be left out; given, it is attached (`--s3=8M`), as getopt's
    /// `optional_argument`.
    pub optional: bool,
    pub help: &'static str,
    pub group: Group,
}

impl OptSpec {
    pub fn takes_arg(&self) -> bool {
        self.arg.is_some()
    }
}

const fn flag(long: &'static str, short: Option<u8>, group: Group, help: &'static str) -> OptSpec {
    OptSpec {
        long,
        has_long: true,
        short,
        arg: None,
        optional: false,
        help,
        group,
    }
}

/// A flag with no long form, `id` naming it inside the parser only.
const fn short_only(id: &'static str, short: u8, group: Group, help: &'static str) -> OptSpec {
    OptSpec {
        has_long: false,
        ..flag(id, Some(short), group, help)
    }
}

const fn with_arg(
    long: &'static str,
    short: Option<u8>,
    arg: &'static str,
    group: Group,
    help: &'static str,
) -> OptSpec {
    OptSpec {
        long,
        has_long: true,
        short,
        arg: Some(arg),
        optional: false,
        help,
        group,
    }
}

/// A long option whose argument may be left out.
const fn with_optional_arg(
    long: &'static str,
    arg: &'static str,
    group: Group,
    help: &'static str,
) -> OptSpec {
    OptSpec {
        optional: true,
        ..with_arg(long, None, arg, group, help)
    }
}

/// All options, in coreutils' `long_options` order (getopt lists ambiguous candidates in
/// this order, and `--help` shows them in it).
static TABLE: &[OptSpec] = &[
    with_arg(
        "algorithm",
        Some(b'a'),
        "ALGO",
        Group::Algorithm,
        "digest algorithm(s), comma-separated (default sha256)",
    ),
    with_arg(
        "length",
        Some(b'l'),
        "BITS",
        Group::Length,
        "digest length in bits (BLAKE2, BLAKE3, SHAKE: a multiple of 8)",
    ),
    flag(
        "check",
        Some(b'c'),
        Group::Common,
        "read checksums from the FILEs and verify them",
    ),
    flag(
        "ignore-missing",
        None,
        Group::Common,
        "with -c: don't fail or report status for missing files",
    ),
    flag(
        "quiet",
        None,
        Group::Common,
        "with -c: don't print OK for each verified file",
    ),
    flag(
        "status",
        None,
        Group::Common,
        "with -c: print nothing, the exit status tells the result",
    ),
    flag(
        "warn",
        Some(b'w'),
        Group::Common,
        "with -c: warn about improperly formatted lines",
    ),
    flag(
        "strict",
        None,
        Group::Common,
        "with -c: exit non-zero for improperly formatted lines",
    ),
    flag(
        "tag",
        None,
        Group::Common,
        "write BSD-style lines: ALGO (FILE) = HEX",
    ),
    flag(
        "zero",
        Some(b'z'),
        Group::Common,
        "end lines with NUL, not newline, and don't escape names",
    ),
    with_arg(
        "algorithm",
        Some(b'a'),
        "TYPE",
        Group::Cksum,
        "select the digest type (see DIGEST below; default crc)",
    ),
    flag(
        "base64",
        None,
        Group::Base64,
        "emit base64-encoded digests, not hex (lanesum: tagged lines)",
    ),
    flag(
        "debug",
        None,
        Group::Cksum,
        "indicate which implementation is used",
    ),
    flag(
        "raw",
        None,
        Group::Cksum,
        "emit a raw binary digest (one FILE only)",
    ),
    flag(
        "untagged",
        None,
        Group::Cksum,
        "write reversed-style lines, without the digest type",
    ),
    flag(
        "json",
        None,
        Group::Json,
        "one JSON object per file: path, size and a digest per algorithm",
    ),
    with_arg(
        "etag",
        None,
        "SIZE",
        Group::WholeInput,
        "print each file's S3 multipart ETag for parts of SIZE bytes",
    ),
    with_optional_arg(
        "s3",
        "SIZE",
        Group::WholeInput,
        "print S3's checksums (-a crc32,crc32c,crc64nvme,sha1,sha256) after an upload in parts of SIZE (default 8M)",
    ),
    with_arg(
        "blocks",
        None,
        "SIZE",
        Group::WholeInput,
        "print a digest of every SIZE-byte block: HEX  FILE:INDEX",
    ),
    with_arg(
        "torrent-pieces",
        None,
        "SIZE",
        Group::WholeInput,
        "print BitTorrent v1 SHA-1 piece hashes for pieces of SIZE",
    ),
    flag(
        "recursive",
        Some(b'r'),
        Group::Tree,
        "hash the files in directories, recursively",
    ),
    flag(
        "dereference",
        Some(b'L'),
        Group::Tree,
        "with -r: follow symbolic links (default: skip them)",
    ),
    flag(
        "one-file-system",
        Some(b'x'),
        Group::Tree,
        "with -r: stay on the file system of each operand",
    ),
    with_arg(
        "exclude",
        None,
        "GLOB",
        Group::Tree,
        "with -r: skip entries whose name or path matches GLOB",
    ),
    with_arg(
        "files-from",
        None,
        "FILE",
        Group::Tree,
        "also hash the files named in FILE (- for stdin), one per line",
    ),
    flag(
        "null",
        Some(b'0'),
        Group::Tree,
        "--files-from names are separated by NUL, not newline",
    ),
    flag(
        "progress",
        None,
        Group::Tree,
        "show a progress bar on stderr even if it is not a terminal",
    ),
    flag(
        "no-progress",
        None,
        Group::Tree,
        "never show a progress bar (default: on a terminal, after 1 s)",
    ),
    with_arg(
        "threads",
        Some(b'j'),
        "N",
        Group::Threads,
        "hash on N threads (default: one per CPU this process may use)",
    ),
    flag(
        "binary",
        Some(b'b'),
        Group::Common,
        "mark lines with '*' (binary mode)",
    ),
    flag(
        "text",
        Some(b't'),
        Group::Common,
        "mark lines with ' ' (text mode, the default)",
    ),
    short_only(
        "bsd",
        b'r',
        Group::Sum,
        "use the BSD sum algorithm (the default), 1K blocks",
    ),
    flag(
        "sysv",
        Some(b's'),
        Group::Sum,
        "use the System V sum algorithm, 512-byte blocks",
    ),
    flag("help", None, Group::Help, "display this help and exit"),
    flag(
        "version",
        None,
        Group::Help,
        "output version information and exit",
    ),
];

/// The options of personality `p`, in the table's order. cksum's `-a` (GNU's names,
/// one algorithm) replaces lanesum's (`Group::Algorithm`); every tool with options has
/// `--help` and `--version`.
pub fn specs(p: &Personality) -> Vec<&'static OptSpec> {
    TABLE
        .iter()
        .filter(|s| match s.group {
            Group::Help => !p.groups.is_empty(),
            Group::Base64 => p.has(Group::Base64) || p.has(Group::Cksum),
            g => p.has(g),
        })
        .collect()
}
