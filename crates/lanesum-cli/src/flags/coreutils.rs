//! The coreutils-style tools' arguments into [`Options`]: clap extracts the values (after
//! `getopt::scan` has refused what getopt would), then the combinations are checked in
//! coreutils' order, with its messages.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use clap::{Arg, ArgAction, ArgMatches, Command};
use lanesum::Algorithm;

use super::env::{mmap_allowed, posixly_correct};
use super::getopt;
use super::given::{check_only_flags, last_value, Flags};
use super::table::{specs, OptSpec};
use super::values::{apply_length, parse_algorithms, parse_length, parse_size_arg, s3_algorithms};
use crate::options::{Action, Mode, Options};
use crate::output::LineStyle;
use crate::personality::{Group, Personality};
use crate::quote::{quote, quotef};
use crate::report::{strerror, Reporter};
use lanesum::modes::S3Algorithm;

/// Parse the arguments (after argv[0]) of personality `p`. Usage errors, `--help` and
/// `--version` end the run here.
pub fn parse(p: &'static Personality, args: Vec<OsString>, rep: &mut Reporter) -> Options {
    let specs = specs(p);
    let posix = posixly_correct();
    let mut args = args;
    if let Some(at) = getopt::scan(p, &specs, &args, posix, rep) {
        // Options end at the first operand, as getopt has them under POSIXLY_CORRECT.
        args.insert(at, "--".into());
    }
    let m = match build_command(p, &specs).try_get_matches_from(args) {
        Ok(m) => m,
        // getopt::scan has already rejected everything getopt would; anything clap still
        // refuses is reported in its words, as a usage error.
        Err(e) => rep.usage_error(&e.kind().to_string()),
    };
    let f = Flags::from_matches(&m, &specs);
    let mode = whole_input_mode(&m, rep);
    let files_from = last_value(&m, "files-from");
    let threads = last_value(&m, "threads").map_or(0, |v| parse_threads(&v, rep));
    let operands = m.get_many::<OsString>("files").map_or(0, |v| v.len());
    let mut cksum = None;
    let mut tagged = f.tag;
    let mut binary = f.binary == Some(true);
    let (algs, algs_given) = if p.has(Group::Cksum) {
        let c = super::cksum::choose(&f, &m, operands, rep);
        (tagged, binary) = (c.tagged, c.binary);
        cksum = Some(c.alg);
        (c.algs, c.alg.specified)
    } else if p.has(Group::Sum) {
        let alg = if f.sysv {
            Algorithm::SumSysv
        } else {
            Algorithm::SumBsd
        };
        (vec![alg], false)
    } else {
        let (algs, algs_given) = algorithms(p, &m, mode, rep);
        check_combinations(&f, mode, algs_given, files_from.is_some(), rep);
        (algs, algs_given)
    };
    let s3_algs = match (mode, last_value(&m, "algorithm")) {
        (Some((_, Mode::S3(_))), Some(v)) => s3_algorithms(&v, rep),
        (Some((_, Mode::S3(_))), None) => vec![S3Algorithm::Crc32],
        _ => Vec::new(),
    };
    let mut o = Options {
        personality: p,
        action: match (mode, f.check) {
            (Some((_, mode)), _) => Action::Mode(mode),
            (None, true) => Action::Check,
            (None, false) => Action::Hash,
        },
        style: LineStyle {
            // lanesum's base64 lines are tagged: only a tag tells `-c` what they are.
            tagged: tagged || algs.len() > 1 || (f.base64 && cksum.is_none()),
            binary,
            zero: f.zero,
            base64: f.base64,
        },
        algs,
        algs_given,
        status: f.status,
        warn: f.warn,
        quiet: f.quiet,
        strict: f.strict,
        ignore_missing: f.ignore_missing,
        json: f.json,
        files: m
            .get_many::<OsString>("files")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        input: lanesum_files::Options {
            recursive: f.recursive,
            follow_links: f.dereference,
            one_file_system: f.one_file_system,
            excludes: m
                .try_get_many::<OsString>("exclude")
                .ok()
                .flatten()
                .map(|v| v.map(|s| s.to_string_lossy().into_owned()).collect())
                .unwrap_or_default(),
            dash_is_stdin: true,
            stdin_consumed: false,
            mmap: mmap_allowed(),
            // `-j` sizes the global pool the pipeline runs on (see `main`).
            threads: 0,
        },
        progress: f.progress,
        threads,
        raw: f.raw,
        debug: f.debug,
        operands: operands > 0,
        cksum,
        s3_algs,
    };
    if let Some(list) = files_from {
        let list = OsStr::from_bytes(&list);
        let nul = m
            .try_get_one::<u8>("null")
            .ok()
            .flatten()
            .is_some_and(|&n| n > 0);
        o.input.stdin_consumed = lanesum_files::reads_stdin(list);
        match lanesum_files::read_list(list, nul) {
            Ok(names) => o.files.extend(names),
            Err(e) => {
                let q = quotef(list.as_bytes(), rep.utf8);
                rep.fatal(&format!("cannot read {q}: {}", strerror(&e)));
            }
        }
    } else if o.files.is_empty() {
        o.files.push(OsString::from("-"));
    }
    o
}

/// `-j N`: a number of threads, 1 or more.
fn parse_threads(val: &[u8], rep: &mut Reporter) -> usize {
    match std::str::from_utf8(val)
        .ok()
        .and_then(|t| t.parse::<usize>().ok())
    {
        Some(n) if n > 0 => n,
        _ => rep.usage_error(&format!(
            "invalid number of threads {} for {} (1 or more)",
            quote(val, rep.utf8),
            quote("--threads", rep.utf8)
        )),
    }
}

fn build_command(p: &Personality, specs: &[&OptSpec]) -> Command {
    let mut cmd = Command::new(p.name)
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
        let mut a = Arg::new(s.long);
        if s.has_long {
            a = a.long(s.long);
        }
        if let Some(c) = s.short {
            a = a.short(c as char);
        }
        a = if s.optional {
            // Present without a value: "" (the mode's default).
            a.num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(OsString))
        } else if s.takes_arg() {
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

/// The whole-input mode asked for (its option's name, and the mode): at most one, the
/// last of its kind winning.
fn whole_input_mode(m: &ArgMatches, rep: &mut Reporter) -> Option<(&'static str, Mode)> {
    let mut modes = Vec::new();
    for (long, make) in [
        ("etag", Mode::Etag as fn(usize) -> Mode),
        ("blocks", Mode::Blocks),
        ("torrent-pieces", Mode::TorrentPieces),
        ("s3", Mode::S3),
    ] {
        match last_value(m, long) {
            // `--s3` alone: the AWS CLI's default part size.
            Some(v) if v.is_empty() && long == "s3" => modes.push((long, make(S3_PART_SIZE))),
            Some(v) => modes.push((long, make(parse_size_arg(long, &v, rep)))),
            None => {}
        }
    }
    if modes.len() > 1 {
        rep.error("--etag, --s3, --blocks and --torrent-pieces are mutually exclusive");
        rep.usage_error("");
    }
    modes.first().copied()
}

/// `--s3`'s part size when none is given: the AWS CLI's `multipart_chunksize` default.
const S3_PART_SIZE: usize = 8 << 20;

/// The algorithms (`-l` applied) and whether `-a` chose them (`--s3` reads `-a` itself).
fn algorithms(
    p: &Personality,
    m: &ArgMatches,
    mode: Option<(&str, Mode)>,
    rep: &mut Reporter,
) -> (Vec<Algorithm>, bool) {
    if let Some((_, Mode::S3(_))) = mode {
        return (vec![Algorithm::Md5], last_value(m, "algorithm").is_some());
    }
    let (mut algs, given) = match p.algorithm {
        Some(a) => (vec![a], false),
        None => match last_value(m, "algorithm") {
            Some(v) => (parse_algorithms(&v, rep), true),
            None => (vec![Algorithm::Sha256], false),
        },
    };
    if let Some(v) = last_value(m, "length") {
        let bits = parse_length(&v, rep);
        algs = apply_length(p, &algs, bits, &v, rep);
    }
    (algs, given)
}

/// Options that don't go together, refused in coreutils' order and words.
fn check_combinations(
    f: &Flags,
    mode: Option<(&str, Mode)>,
    algs_given: bool,
    files_from: bool,
    rep: &mut Reporter,
) {
    if f.tag && f.binary == Some(false) {
        rep.error("--tag does not support --text mode");
        rep.usage_error("");
    }
    let fail = |rep: &mut Reporter, msg: &str| -> ! {
        rep.error(msg);
        rep.usage_error("")
    };
    if f.zero && f.check {
        fail(
            rep,
            "the --zero option is not supported when verifying checksums",
        );
    }
    if f.tag && f.check {
        fail(
            rep,
            "the --tag option is meaningless when verifying checksums",
        );
    }
    if f.binary.is_some() && f.check {
        fail(
            rep,
            "the --binary and --text options are meaningless when verifying checksums",
        );
    }
    check_only_flags(f, rep);
    if f.json && f.check {
        fail(
            rep,
            "the --json option is meaningless when verifying checksums",
        );
    }
    if f.json && f.tag {
        fail(rep, "the --json and --tag options are mutually exclusive");
    }
    if f.json && f.base64 {
        fail(
            rep,
            "the --json and --base64 options are mutually exclusive",
        );
    }
    if let Some((long, _)) = mode {
        if f.check || f.json {
            fail(
                rep,
                &format!("the --{long} option is meaningless with --check or --json"),
            );
        }
        if long != "blocks" && (f.tag || (algs_given && long != "s3")) {
            fail(
                rep,
                &format!("--{long} has a fixed format: no --algorithm or --tag"),
            );
        }
    }
    if (f.recursive || files_from) && (f.check || mode.is_some()) {
        fail(
            rep,
            "--recursive and --files-from are meaningless with --check, --etag, --s3, \
             --blocks and --torrent-pieces",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::personality::PERSONALITIES;

    #[test]
    fn clap_command_is_consistent() {
        for p in PERSONALITIES.iter().filter(|p| !p.groups.is_empty()) {
            build_command(p, &specs(p)).debug_assert();
        }
    }
}
