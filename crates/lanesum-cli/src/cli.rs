//! Command-line parsing and the personalities lanesum can take.
//!
//! Invoked as `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`,
//! `b2sum` or `b3sum` (by symlink or copy) lanesum behaves as that tool; under any other
//! name it is `lanesum`, which adds `-a ALGO[,ALGO...]` and `--json`.
//!
//! Coreutils personalities (and lanesum) parse like getopt: a first pass over the
//! arguments ([`getopt_scan`]) reports errors with glibc's exact wording, left to right,
//! and acts on `--help`/`--version` where getopt would; clap then extracts the values. The
//! b3sum personality is parsed by clap alone, since the real b3sum is a clap program.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use clap::{Arg, ArgAction, ArgMatches, Command};
use lanesum::Algorithm;

use std::sync::Arc;

use crate::output::LineStyle;
use crate::progress::Progress;
use crate::quote::quote;
use crate::report::Reporter;
use crate::{b3sum, check, hashing, json, output, walk};

/// Which tool we are acting as, from the basename of argv[0].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Personality {
    Lanesum,
    Md5sum,
    Sha1sum,
    Sha224sum,
    Sha256sum,
    Sha384sum,
    Sha512sum,
    B2sum,
    B3sum,
}

impl Personality {
    pub fn from_argv0(arg0: &OsStr) -> Personality {
        let base = arg0.as_bytes().rsplit(|&b| b == b'/').next().unwrap_or(b"");
        match base {
            b"md5sum" => Personality::Md5sum,
            b"sha1sum" => Personality::Sha1sum,
            b"sha224sum" => Personality::Sha224sum,
            b"sha256sum" => Personality::Sha256sum,
            b"sha384sum" => Personality::Sha384sum,
            b"sha512sum" => Personality::Sha512sum,
            b"b2sum" => Personality::B2sum,
            b"b3sum" => Personality::B3sum,
            _ => Personality::Lanesum,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Personality::Lanesum => "lanesum",
            Personality::Md5sum => "md5sum",
            Personality::Sha1sum => "sha1sum",
            Personality::Sha224sum => "sha224sum",
            Personality::Sha256sum => "sha256sum",
            Personality::Sha384sum => "sha384sum",
            Personality::Sha512sum => "sha512sum",
            Personality::B2sum => "b2sum",
            Personality::B3sum => "b3sum",
        }
    }

    /// The single algorithm of a coreutils tool (b2sum's before `-l`).
    pub fn fixed_algorithm(self) -> Option<Algorithm> {
        Some(match self {
            Personality::Md5sum => Algorithm::Md5,
            Personality::Sha1sum => Algorithm::Sha1,
            Personality::Sha224sum => Algorithm::Sha224,
            Personality::Sha256sum => Algorithm::Sha256,
            Personality::Sha384sum => Algorithm::Sha384,
            Personality::Sha512sum => Algorithm::Sha512,
            Personality::B2sum => Algorithm::Blake2b(64),
            Personality::B3sum => Algorithm::Blake3(32),
            Personality::Lanesum => return None,
        })
    }
}

/// One option as getopt knows it.
struct OptSpec {
    long: &'static str,
    short: Option<u8>,
    takes_arg: bool,
    help: &'static str,
}

const fn opt(
    long: &'static str,
    short: Option<u8>,
    takes_arg: bool,
    help: &'static str,
) -> OptSpec {
    OptSpec {
        long,
        short,
        takes_arg,
        help,
    }
}

/// The options of a coreutils-style personality, in coreutils' `long_options` order
/// (getopt lists ambiguous candidates in this order).
fn specs(p: Personality) -> Vec<OptSpec> {
    let mut v = Vec::new();
    if p == Personality::Lanesum {
        v.push(opt(
            "algorithm",
            Some(b'a'),
            true,
            "digest algorithm(s), comma-separated (default sha256)",
        ));
    }
    if matches!(p, Personality::B2sum | Personality::Lanesum) {
        v.push(opt(
            "length",
            Some(b'l'),
            true,
            "digest length in bits for blake2b/blake2s/blake3 (multiple of 8)",
        ));
    }
    v.extend([
        opt(
            "check",
            Some(b'c'),
            false,
            "read checksums from the FILEs and verify them",
        ),
        opt(
            "ignore-missing",
            None,
            false,
            "with -c: don't fail or report status for missing files",
        ),
        opt(
            "quiet",
            None,
            false,
            "with -c: don't print OK for each verified file",
        ),
        opt(
            "status",
            None,
            false,
            "with -c: print nothing, the exit status tells the result",
        ),
        opt(
            "warn",
            Some(b'w'),
            false,
            "with -c: warn about improperly formatted lines",
        ),
        opt(
            "strict",
            None,
            false,
            "with -c: exit non-zero for improperly formatted lines",
        ),
        opt(
            "tag",
            None,
            false,
            "write BSD-style lines: ALGO (FILE) = HEX",
        ),
        opt(
            "zero",
            Some(b'z'),
            false,
            "end lines with NUL, not newline, and don't escape names",
        ),
    ]);
    if p == Personality::Lanesum {
        v.push(opt(
            "json",
            None,
            false,
            "one JSON object per file: path, size and a digest per algorithm",
        ));
        v.push(opt(
            "etag",
            None,
            true,
            "print each file's S3 multipart ETag for parts of SIZE bytes",
        ));
        v.push(opt(
            "blocks",
            None,
            true,
            "print a digest of every SIZE-byte block: HEX  FILE:INDEX",
        ));
        v.push(opt(
            "torrent-pieces",
            None,
            true,
            "print BitTorrent v1 SHA-1 piece hashes for pieces of SIZE",
        ));
        v.extend([
            opt(
                "recursive",
                Some(b'r'),
                false,
                "hash the files in directories, recursively",
            ),
            opt(
                "dereference",
                Some(b'L'),
                false,
                "with -r: follow symbolic links (default: skip them)",
            ),
            opt(
                "one-file-system",
                Some(b'x'),
                false,
                "with -r: stay on the file system of each operand",
            ),
            opt(
                "exclude",
                None,
                true,
                "with -r: skip entries whose name or path matches GLOB",
            ),
            opt(
                "files-from",
                None,
                true,
                "also hash the files named in FILE (- for stdin), one per line",
            ),
            opt(
                "null",
                Some(b'0'),
                false,
                "--files-from names are separated by NUL, not newline",
            ),
            opt(
                "progress",
                None,
                false,
                "show a progress bar on stderr even if it is not a terminal",
            ),
            opt(
                "no-progress",
                None,
                false,
                "never show a progress bar (default: on a terminal, after 1 s)",
            ),
        ]);
    }
    v.extend([
        opt(
            "binary",
            Some(b'b'),
            false,
            "mark lines with '*' (binary mode)",
        ),
        opt(
            "text",
            Some(b't'),
            false,
            "mark lines with ' ' (text mode, the default)",
        ),
        opt("help", None, false, "display this help and exit"),
        opt(
            "version",
            None,
            false,
            "output version information and exit",
        ),
    ]);
    v
}

/// What a coreutils-style invocation asked for.
#[derive(Debug, Default)]
pub struct Options {
    pub algs: Vec<Algorithm>,
    /// `-a` was given (lanesum): untagged check lines use these algorithms.
    pub algs_given: bool,
    pub check: bool,
    pub style: LineStyle,
    pub status: bool,
    pub warn: bool,
    pub quiet: bool,
    pub strict: bool,
    pub ignore_missing: bool,
    pub json: bool,
    /// `--etag`, `--blocks` or `--torrent-pieces` (lanesum).
    pub mode: Option<crate::modes::Mode>,
    pub files: Vec<OsString>,
    /// `-r`, `-L`, `-x`, `--exclude` (lanesum).
    pub walk: crate::walk::WalkOptions,
    /// `--progress` / `--no-progress`, the last given.
    pub progress: Option<bool>,
}

/// The name diagnostics start with. Coreutils uses argv[0] verbatim (`/usr/bin/md5sum:
/// ...` when run by path), so the coreutils personalities do too; lanesum and b3sum use
/// their fixed names, as the real b3sum does.
pub fn program_name(p: Personality, arg0: &OsStr) -> String {
    match p {
        Personality::Lanesum | Personality::B3sum => p.name().to_string(),
        _ => String::from_utf8_lossy(arg0.as_bytes()).into_owned(),
    }
}

/// Entry point after `speed` dispatch and ISA checks; returns the exit status.
pub fn run(p: Personality, prog: &str, args: Vec<OsString>) -> i32 {
    let mut rep = Reporter::new(prog);
    if p == Personality::B3sum {
        return b3sum::run(args, &mut rep);
    }
    let specs = specs(p);
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut args = args;
    if let Some(at) = getopt_scan(p, &specs, &args, posix, &mut rep) {
        // Options end at the first operand, as getopt has them under POSIXLY_CORRECT.
        args.insert(at, "--".into());
    }
    let opts = parse(p, &specs, args, &mut rep);
    if let Err(e) = crate::start_threads(0) {
        rep.fatal(&format!("cannot start threads: {e}"));
    }
    if let Some(mode) = opts.mode {
        crate::modes::run(&opts, mode, &mut rep)
    } else if opts.check {
        check::run(p, &opts, &mut rep)
    } else {
        hash_files(&opts, &mut rep)
    }
}

/// Hashing mode: every input (operands, `--files-from` names, walked trees) read once,
/// one line per algorithm per input, file-major, or one JSON record per input.
fn hash_files(opts: &Options, rep: &mut Reporter) -> i32 {
    let excludes = match walk::exclude_set(&opts.walk.excludes) {
        Ok(set) => set,
        Err(msg) => rep.usage_error(&msg),
    };
    let found = Arc::new(walk::Found::default());
    let jobs = walk::jobs(opts.files.clone(), &opts.walk, excludes, found.clone());
    let mut progress = Progress::new(opts.progress, found);
    let mut ok = true;
    let mut line = Vec::with_capacity(256);
    for (name, res) in hashing::hash_jobs(jobs, &opts.algs) {
        match res {
            Ok(h) => {
                progress.step(h.size);
                if opts.json {
                    line = json::record(opts, name.as_bytes(), &h)
                        .to_string()
                        .into_bytes();
                    line.push(if opts.style.zero { 0 } else { b'\n' });
                } else {
                    line.clear();
                    for (alg, d) in opts.algs.iter().zip(&h.digests) {
                        output::push_line(&mut line, *alg, d, name.as_bytes(), opts.style);
                    }
                }
                rep.write(&line);
                rep.flush();
            }
            Err(e) => {
                progress.step(0);
                rep.file_error(name.as_bytes(), &e);
                ok = false;
            }
        }
    }
    i32::from(!ok)
}

/// Walk the arguments as getopt_long would, reporting its errors and handling
/// `--help`, `--version` and argument-checking of `-l`/`-a` at the point getopt
/// reaches them. With `posix` (POSIXLY_CORRECT), options end at the first operand:
/// returns its index, where the operands start.
fn getopt_scan(
    p: Personality,
    specs: &[OptSpec],
    args: &[OsString],
    posix: bool,
    rep: &mut Reporter,
) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_bytes();
        i += 1;
        if a == b"--" {
            return None;
        }
        if let Some(body) = a.strip_prefix(b"--") {
            let (name, value) = match body.iter().position(|&b| b == b'=') {
                Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
                None => (body, None),
            };
            let exact = specs.iter().find(|s| s.long.as_bytes() == name);
            let spec = match exact {
                Some(s) => s,
                None => {
                    let cands: Vec<&OptSpec> = specs
                        .iter()
                        .filter(|s| s.long.as_bytes().starts_with(name))
                        .collect();
                    match cands.len() {
                        0 => rep.usage_error(&format!(
                            "unrecognized option '{}'",
                            String::from_utf8_lossy(a)
                        )),
                        1 => cands[0],
                        _ => {
                            let list: Vec<String> =
                                cands.iter().map(|s| format!("'--{}'", s.long)).collect();
                            // The whole argument, `=value` included, as glibc shows it.
                            rep.usage_error(&format!(
                                "option '{}' is ambiguous; possibilities: {}",
                                String::from_utf8_lossy(a),
                                list.join(" ")
                            ))
                        }
                    }
                }
            };
            if spec.takes_arg {
                let val = match value {
                    Some(v) => v.to_vec(),
                    None => {
                        if i >= args.len() {
                            rep.usage_error(&format!(
                                "option '--{}' requires an argument",
                                spec.long
                            ));
                        }
                        i += 1;
                        args[i - 1].as_bytes().to_vec()
                    }
                };
                check_value(p, spec, &val, rep);
            } else {
                if value.is_some() {
                    rep.usage_error(&format!(
                        "option '--{}' doesn't allow an argument",
                        spec.long
                    ));
                }
                act_on_flag(p, spec.long, specs, rep);
            }
        } else if a.len() > 1 && a[0] == b'-' {
            let mut j = 1;
            while j < a.len() {
                let c = a[j];
                j += 1;
                let Some(spec) = specs.iter().find(|s| s.short == Some(c)) else {
                    let shown = if c.is_ascii_graphic() || c == b' ' {
                        (c as char).to_string()
                    } else {
                        String::from_utf8_lossy(&[c]).into_owned()
                    };
                    rep.usage_error(&format!("invalid option -- '{shown}'"));
                };
                if spec.takes_arg {
                    let val = if j < a.len() {
                        a[j..].to_vec()
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].as_bytes().to_vec()
                    } else {
                        rep.usage_error(&format!("option requires an argument -- '{}'", c as char));
                    };
                    check_value(p, spec, &val, rep);
                    break;
                }
            }
        } else if posix {
            return Some(i - 1);
        }
    }
    None
}

fn act_on_flag(p: Personality, long: &str, specs: &[OptSpec], rep: &mut Reporter) {
    match long {
        "help" => {
            let text = help_text(p, &rep.prog, specs);
            rep.write(text.as_bytes());
            rep.flush_now();
            std::process::exit(0);
        }
        "version" => {
            rep.write(
                format!(
                    "{} (lanesum) {}\nA drop-in replacement for the coreutils checksum tools.\n",
                    p.name(),
                    env!("CARGO_PKG_VERSION")
                )
                .as_bytes(),
            );
            rep.flush_now();
            std::process::exit(0);
        }
        _ => {}
    }
}

/// Argument errors getopt's caller reports as soon as it sees the option.
fn check_value(p: Personality, spec: &OptSpec, val: &[u8], rep: &mut Reporter) {
    match spec.long {
        // A bad number is fatal inside parse_length.
        "length" if !parse_length(val, rep).is_multiple_of(8) => {
            rep.error(&format!("invalid length: {}", quote(val, rep.utf8)));
            rep.fatal("length is not a multiple of 8");
        }
        "algorithm" => {
            parse_algorithms(val, rep);
        }
        "etag" | "blocks" | "torrent-pieces" => {
            parse_size_arg(spec.long, val, rep);
        }
        _ => {}
    }
    let _ = p;
}

/// `-l` as coreutils' xnumtoumax(base 10) reads it: optional blanks and `+`, digits,
/// nothing after. Errors are fatal, without the `Try` hint, as b2sum does.
fn parse_length(val: &[u8], rep: &mut Reporter) -> u64 {
    let invalid = |rep: &mut Reporter, extra: &str| -> ! {
        rep.fatal(&format!("invalid length: {}{extra}", quote(val, rep.utf8)))
    };
    let mut s = val;
    while let Some((&c, rest)) = s.split_first() {
        if c == b' ' || (b'\t'..=b'\r').contains(&c) {
            s = rest;
        } else {
            break;
        }
    }
    if let Some(rest) = s.strip_prefix(b"+") {
        s = rest;
    }
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        invalid(rep, "");
    }
    let mut n: u64 = 0;
    for &d in s {
        match n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
        {
            Some(v) => n = v,
            None => invalid(rep, ": Value too large for defined data type"),
        }
    }
    n
}

/// A `--etag`/`--blocks`/`--torrent-pieces` size: bytes with an optional K/M/G/T
/// (binary) suffix; zero is refused.
fn parse_size_arg(long: &str, val: &[u8], rep: &mut Reporter) -> usize {
    let text = String::from_utf8_lossy(val);
    crate::modes::parse_size(&text).unwrap_or_else(|| {
        rep.usage_error(&format!(
            "invalid size {} for {} (bytes, with an optional K, M, G or T suffix)",
            quote(val, rep.utf8),
            quote(format!("--{long}"), rep.utf8)
        ))
    })
}

/// `-a md5,sha256`: each name as [`Algorithm`] parses it; duplicates dropped.
fn parse_algorithms(val: &[u8], rep: &mut Reporter) -> Vec<Algorithm> {
    let text = String::from_utf8_lossy(val);
    let mut out: Vec<Algorithm> = Vec::new();
    for word in text.split(',') {
        match word.parse::<Algorithm>() {
            Ok(a) => {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
            Err(_) => {
                let msg = format!(
                    "invalid argument {} for {}\nValid arguments are: {}",
                    quote(word, rep.utf8),
                    quote("--algorithm", rep.utf8),
                    Algorithm::NAMES.join(", ")
                );
                rep.usage_error(&msg);
            }
        }
    }
    out
}

fn build_command(p: Personality, specs: &[OptSpec]) -> Command {
    let mut cmd = Command::new(p.name())
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .infer_long_args(true)
        .args_override_self(true)
        .arg(
            Arg::new("files")
                .num_args(0..)
                .action(ArgAction::Append)
                .allow_hyphen_values(false)
                .value_parser(clap::value_parser!(OsString)),
        );
    for s in specs {
        let mut a = Arg::new(s.long).long(s.long);
        if let Some(c) = s.short {
            a = a.short(c as char);
        }
        a = if s.takes_arg {
            a.num_args(1)
                .action(ArgAction::Append)
                .allow_hyphen_values(true)
                .value_parser(clap::value_parser!(OsString))
        } else {
            a.action(ArgAction::Count)
        };
        cmd = cmd.arg(a);
    }
    cmd
}

/// Options in the order given, for the flags whose meaning depends on order.
fn events(m: &ArgMatches, specs: &[OptSpec]) -> Vec<(usize, &'static str)> {
    let mut ev = Vec::new();
    for s in specs {
        // Count flags have a default of 0 that clap also indexes; only real uses count.
        if m.value_source(s.long) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        if let Some(idx) = m.indices_of(s.long) {
            ev.extend(idx.map(|i| (i, s.long)));
        }
    }
    ev.sort();
    ev
}

fn last_value(m: &ArgMatches, id: &str) -> Option<Vec<u8>> {
    m.try_get_many::<OsString>(id)
        .ok()
        .flatten()
        .and_then(|mut v| v.next_back())
        .map(|v| v.as_bytes().to_vec())
}

fn parse(p: Personality, specs: &[OptSpec], args: Vec<OsString>, rep: &mut Reporter) -> Options {
    let m = match build_command(p, specs).try_get_matches_from(args) {
        Ok(m) => m,
        // getopt_scan has already rejected everything getopt would; anything clap still
        // refuses is reported in its words, as a usage error.
        Err(e) => rep.usage_error(&e.kind().to_string()),
    };
    let mut o = Options::default();
    let mut binary: Option<bool> = None;
    let mut tag = false;
    for (_, id) in events(&m, specs) {
        match id {
            "check" => o.check = true,
            "status" => (o.status, o.warn, o.quiet) = (true, false, false),
            "warn" => (o.status, o.warn, o.quiet) = (false, true, false),
            "quiet" => (o.status, o.warn, o.quiet) = (false, false, true),
            "binary" => binary = Some(true),
            "text" => binary = Some(false),
            "ignore-missing" => o.ignore_missing = true,
            "strict" => o.strict = true,
            "tag" => (tag, binary) = (true, Some(true)),
            "zero" => o.style.zero = true,
            "json" => o.json = true,
            "recursive" => o.walk.recursive = true,
            "dereference" => o.walk.follow = true,
            "one-file-system" => o.walk.one_file_system = true,
            "progress" => o.progress = Some(true),
            "no-progress" => o.progress = Some(false),
            _ => {}
        }
    }
    // Whole-input modes: at most one, the last of its kind wins.
    let mut modes = Vec::new();
    for (long, make) in [
        (
            "etag",
            crate::modes::Mode::Etag as fn(usize) -> crate::modes::Mode,
        ),
        ("blocks", crate::modes::Mode::Blocks),
        ("torrent-pieces", crate::modes::Mode::TorrentPieces),
    ] {
        if let Some(v) = last_value(&m, long) {
            modes.push((long, make(parse_size_arg(long, &v, rep))));
        }
    }
    if modes.len() > 1 {
        rep.error("--etag, --blocks and --torrent-pieces are mutually exclusive");
        rep.usage_error("");
    }
    o.mode = modes.first().map(|&(_, m)| m);
    // Algorithms and length.
    let mut algs = match p.fixed_algorithm() {
        Some(a) => vec![a],
        None => match last_value(&m, "algorithm") {
            Some(v) => {
                o.algs_given = true;
                parse_algorithms(&v, rep)
            }
            None => vec![Algorithm::Sha256],
        },
    };
    if let Some(v) = last_value(&m, "length") {
        let bits = parse_length(&v, rep);
        algs = apply_length(p, &algs, bits, &v, rep);
    }
    o.algs = algs;
    // Consistency checks, in coreutils' order.
    if tag && binary == Some(false) {
        rep.error("--tag does not support --text mode");
        rep.usage_error("");
    }
    let fail = |rep: &mut Reporter, msg: &str| -> ! {
        rep.error(msg);
        rep.usage_error("")
    };
    if o.style.zero && o.check {
        fail(
            rep,
            "the --zero option is not supported when verifying checksums",
        );
    }
    if tag && o.check {
        fail(
            rep,
            "the --tag option is meaningless when verifying checksums",
        );
    }
    if binary.is_some() && o.check {
        fail(
            rep,
            "the --binary and --text options are meaningless when verifying checksums",
        );
    }
    for (set, name) in [
        (o.ignore_missing, "--ignore-missing"),
        (o.status, "--status"),
        (o.warn, "--warn"),
        (o.quiet, "--quiet"),
        (o.strict, "--strict"),
    ] {
        if set && !o.check {
            fail(
                rep,
                &format!("the {name} option is meaningful only when verifying checksums"),
            );
        }
    }
    if o.json && o.check {
        fail(
            rep,
            "the --json option is meaningless when verifying checksums",
        );
    }
    if o.json && tag {
        fail(rep, "the --json and --tag options are mutually exclusive");
    }
    if let Some(&(long, _)) = modes.first() {
        if o.check || o.json {
            fail(
                rep,
                &format!("the --{long} option is meaningless with --check or --json"),
            );
        }
        if long != "blocks" && (o.algs_given || tag) {
            fail(
                rep,
                &format!("--{long} has a fixed format: no --algorithm or --tag"),
            );
        }
    }
    let files_from = last_value(&m, "files-from");
    if (o.walk.recursive || files_from.is_some()) && (o.check || o.mode.is_some()) {
        fail(
            rep,
            "--recursive and --files-from are meaningless with --check, --etag, --blocks \
             and --torrent-pieces",
        );
    }
    o.style.tagged = tag || o.algs.len() > 1;
    o.style.binary = binary == Some(true);
    o.files = m
        .get_many::<OsString>("files")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    o.walk.excludes = m
        .try_get_many::<OsString>("exclude")
        .ok()
        .flatten()
        .map(|v| v.map(|s| s.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    if let Some(list) = files_from {
        let nul = m
            .try_get_one::<u8>("null")
            .ok()
            .flatten()
            .is_some_and(|&n| n > 0);
        o.walk.stdin_read = list == b"-" || drains_stdin(OsStr::from_bytes(&list));
        match walk::read_list(OsStr::from_bytes(&list), nul) {
            Ok(names) => o.files.extend(names),
            Err(e) => {
                let q = crate::quote::quotef(&list, rep.utf8);
                rep.fatal(&format!("cannot read {q}: {}", crate::report::strerror(&e)));
            }
        }
    } else if o.files.is_empty() {
        o.files.push(OsString::from("-"));
    }
    o
}

/// Whether reading `path` takes standard input's bytes: it names the pipe, socket or
/// device open as standard input (`/dev/stdin`, `/dev/fd/0`). A regular file opened by
/// name is read from its start, leaving standard input as it was.
fn drains_stdin(path: &OsStr) -> bool {
    use std::os::unix::fs::MetadataExt;
    let stdin = crate::hashing::stdin_file().and_then(|f| f.metadata());
    match (std::fs::metadata(path), stdin) {
        (Ok(named), Ok(stdin)) => {
            !stdin.is_file() && named.dev() == stdin.dev() && named.ino() == stdin.ino()
        }
        _ => false,
    }
}

/// Largest BLAKE3 output lanesum computes: digests are held in memory, and nobody needs
/// more than this many bytes of XOF output from a checksum tool.
pub const BLAKE3_MAX_BYTES: usize = 1 << 16;

/// Apply `-l BITS` as b2sum does: 0 means the default, then multiple-of-8 and maximum
/// checks with b2sum's messages. lanesum also refuses `-l` with fixed-length algorithms.
fn apply_length(
    p: Personality,
    algs: &[Algorithm],
    bits: u64,
    raw: &[u8],
    rep: &mut Reporter,
) -> Vec<Algorithm> {
    // Not a multiple of 8: refused by `getopt_scan` already.
    if bits == 0 {
        return algs.to_vec();
    }
    let mut out = Vec::new();
    for &a in algs {
        let (tag, max_bits) = match a {
            Algorithm::Blake2b(_) => ("BLAKE2b", 512u64),
            Algorithm::Blake2s(_) => ("BLAKE2s", 256),
            Algorithm::Blake2bp(_) => ("BLAKE2bp", 512),
            Algorithm::Blake2sp(_) => ("BLAKE2sp", 256),
            Algorithm::Blake3(_) => ("BLAKE3", BLAKE3_MAX_BYTES as u64 * 8),
            _ => {
                debug_assert_eq!(p, Personality::Lanesum);
                rep.fatal(
                    "--length is only supported with blake2b, blake2s, blake2bp, blake2sp and blake3",
                );
            }
        };
        if bits > max_bits {
            rep.error(&format!("invalid length: {}", quote(raw, rep.utf8)));
            rep.fatal(&format!(
                "maximum digest length for {} is {max_bits} bits",
                quote(tag, rep.utf8)
            ));
        }
        match a.with_bits(bits as usize) {
            // `-a blake2b-256,blake2b -l 128` names one algorithm twice: once it is.
            Some(b) if out.contains(&b) => {}
            Some(b) => out.push(b),
            None => rep.fatal(&format!("invalid length: {}", quote(raw, rep.utf8))),
        }
    }
    out
}

fn help_text(p: Personality, prog: &str, specs: &[OptSpec]) -> String {
    let mut s = format!("Usage: {prog} [OPTION]... [FILE]...\n");
    match p.fixed_algorithm() {
        Some(a) => s.push_str(&format!(
            "Print or check {} checksums (lanesum acting as {}).\n",
            a.tag(),
            p.name()
        )),
        None => s.push_str(
            "Print or check checksums: md5, sha1, sha2, blake2 and blake3.\n\
             Usage: lanesum speed [ARGS]... runs benchmarks (a file named 'speed' must be\n\
             written ./speed).\n",
        ),
    }
    s.push_str("\nWith no FILE, or when FILE is -, read standard input.\n\n");
    for o in specs {
        let left = match (o.short, o.takes_arg) {
            (Some(c), true) => format!("-{}, --{}=ARG", c as char, o.long),
            (Some(c), false) => format!("-{}, --{}", c as char, o.long),
            (None, _) => format!("    --{}", o.long),
        };
        s.push_str(&format!("  {left:<22}{}\n", o.help));
    }
    if p == Personality::Lanesum {
        s.push_str(
            "\nAlgorithms: md5 sha1 sha224 sha256 sha384 sha512 sha512-224 sha512-256\n\
             blake2b[-BITS] blake2s[-BITS] blake3[-BITS]; modes md5p8 (rsync), blake2bp[-BITS],\n\
             blake2sp[-BITS], btv2 (BitTorrent v2 pieces root; an empty file gives 64 zeros).\n\
             With several, every line is tagged.\n\
             When checking, untagged lines use -a, or else the digest length:\n\
             32 hex digits md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 sha512.\n\
             SIZE (--etag, --blocks, --torrent-pieces): bytes, or with a K, M, G or T suffix\n\
             (powers of 1024). --blocks lines read HEX  FILE:INDEX (from 0); --etag lines\n\
             ETAG  FILE, a file of at most one part giving its plain MD5.\n",
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn personality_from_basename() {
        assert_eq!(
            Personality::from_argv0(OsStr::new("/usr/local/bin/md5sum")),
            Personality::Md5sum
        );
        assert_eq!(
            Personality::from_argv0(OsStr::new("b3sum")),
            Personality::B3sum
        );
        assert_eq!(
            Personality::from_argv0(OsStr::new("./lanesum")),
            Personality::Lanesum
        );
        assert_eq!(
            Personality::from_argv0(OsStr::new("md5sum.old")),
            Personality::Lanesum
        );
    }

    #[test]
    fn clap_command_is_consistent() {
        for p in [
            Personality::Lanesum,
            Personality::B2sum,
            Personality::Md5sum,
        ] {
            build_command(p, &specs(p)).debug_assert();
        }
    }
}
