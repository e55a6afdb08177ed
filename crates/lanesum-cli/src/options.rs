//! What an invocation asked for, as plain data: what `flags` produces from the command
//! line and everything downstream (hashing, `--check`, the modes, b3sum, `speed`) takes.
//! Nothing here knows about parsing.

use std::ffi::OsString;
use std::time::Duration;

use lanesum::modes::S3Algorithm;
use lanesum::Algorithm;

use crate::cksum_names::CkAlg;
use crate::output::LineStyle;
use crate::personality::Personality;

/// Largest BLAKE3 output lanesum computes: digests are held in memory, and nobody needs
/// more than this many bytes of XOF output from a checksum tool (a check line may ask
/// for as many).
pub const BLAKE3_MAX_BYTES: usize = lanesum_files::manifest::MAX_XOF_BYTES;

/// What a coreutils-style invocation (lanesum, md5sum ... b2sum) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Print each input's digests (or JSON records).
    Hash,
    /// `-c`: verify the check files named.
    Check,
    /// A whole-input mode (lanesum's `--etag`, `--blocks`, `--torrent-pieces`).
    Mode(Mode),
}

/// Which whole-input mode was asked for, with its size argument in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `--etag PART_SIZE`.
    Etag(usize),
    /// `--blocks SIZE`.
    Blocks(usize),
    /// `--torrent-pieces PIECE_LEN`.
    TorrentPieces(usize),
    /// `--s3[=PART_SIZE]`: S3's checksums of the algorithms `Options::s3_algs`.
    S3(usize),
}

/// cksum's `-a` as its `--check` uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CksumAlg {
    pub alg: CkAlg,
    /// `-a` was given (else: crc when hashing, any tagged line when checking).
    pub specified: bool,
}

/// A coreutils-style invocation, validated.
#[derive(Debug)]
pub struct Options {
    /// The tool acted as.
    pub personality: &'static Personality,
    pub action: Action,
    /// Algorithms, in `-a` order (one for the coreutils tools), `-l` applied.
    pub algs: Vec<Algorithm>,
    /// `-a` was given (lanesum): untagged check lines use these algorithms.
    pub algs_given: bool,
    pub style: LineStyle,
    /// `--check` modifiers.
    pub status: bool,
    pub warn: bool,
    pub quiet: bool,
    pub strict: bool,
    pub ignore_missing: bool,
    /// `--json` (lanesum).
    pub json: bool,
    /// Operands and `--files-from` names, in order (`-` when there were none): files to
    /// hash, or check files.
    pub files: Vec<OsString>,
    /// How inputs are found (`-r`, `-L`, `-x`, `--exclude`) and read (maps).
    pub input: lanesum_files::Options,
    /// `--progress` / `--no-progress`, the last given.
    pub progress: Option<bool>,
    /// `-j N` (lanesum): the threads of the pool everything hashes on; 0: rayon's
    /// default (`RAYON_NUM_THREADS`, else the CPUs of the affinity mask and cgroup quota).
    pub threads: usize,
    /// cksum's `--raw`: the digest's bytes alone.
    pub raw: bool,
    /// cksum's `--debug`.
    pub debug: bool,
    /// Files were named (cksum and sum print names in their legacy formats only then).
    pub operands: bool,
    /// cksum's algorithm choice (cksum only).
    pub cksum: Option<CksumAlg>,
    /// `--s3`'s algorithms, in `-a` order.
    pub s3_algs: Vec<S3Algorithm>,
}

/// How b3sum's BLAKE3 is keyed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum B3Key {
    /// Plain BLAKE3.
    None,
    /// `--keyed`: the key is read from standard input.
    Keyed,
    /// `--derive-key CONTEXT`.
    DeriveKey(String),
}

/// A b3sum invocation, validated.
#[derive(Debug)]
pub struct B3sumOptions {
    /// Files to hash or check files (`-` when there were none).
    pub files: Vec<OsString>,
    /// `--check`, and `--quiet` with it.
    pub check: bool,
    pub quiet: bool,
    /// Output bytes (32 when checking).
    pub len: u64,
    /// `--seek`: the output offset.
    pub seek: u64,
    pub key: B3Key,
    /// `--raw`: output bytes rather than hex, one input only.
    pub raw: bool,
    /// `--tag`.
    pub tag: bool,
    /// Names printed: neither `--raw` nor `--no-names`.
    pub names: bool,
    /// `--num-threads` (0: rayon's default).
    pub threads: usize,
    /// `--no-mmap` (or `LANESUM_NO_MMAP`) as `mmap: false`.
    pub input: lanesum_files::Options,
}

/// A `lanesum speed` invocation, validated.
#[derive(Debug)]
pub struct SpeedOptions {
    pub algs: Vec<Algorithm>,
    /// Message sizes of the table, or `--counts`.
    pub sizes: Vec<usize>,
    /// Messages hashed together per measurement.
    pub batch: usize,
    /// Minimum time per measurement.
    pub min: Duration,
    pub json: bool,
    /// `--counts`: 1..=64 messages at each size.
    pub counts: bool,
    /// `--modes`: the whole-input modes on one buffer of this many bytes.
    pub modes: Option<usize>,
}
