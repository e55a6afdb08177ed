//! The coreutils-style tools' arguments into [`Options`]: clap extracts the values (after
//! `getopt::scan` has refused what getopt would), then the combinations are checked in
//! coreutils' order, with its messages.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use clap::{Arg, ArgAction, ArgMatches, Command};
use lanesum::Algorithm;

use super::env::{mmap_allowed, posixly_correct};
use super::getopt;
use super::table::{specs, OptSpec};
use super::values::{apply_length, parse_algorithms, parse_length, parse_size_arg};
use crate::options::{Action, Mode, Options};
use crate::output::LineStyle;
use crate::personality::Personality;
use crate::quote::{quote, quotef};
use crate::report::{strerror, Reporter};

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
    let (algs, algs_given) = algorithms(p, &m, rep);
    let files_from = last_value(&m, "files-from");
    let threads = last_value(&m, "threads").map_or(0, |v| parse_threads(&v, rep));
    check_combinations(&f, mode, algs_given, files_from.is_some(), rep);
    let mut o = Options {
        personality: p,
        action: match (mode, f.check) {
            (Some((_, mode)), _) => Action::Mode(mode),
            (None, true) => Action::Check,
            (None, false) => Action::Hash,
        },
        style: LineStyle {
            tagged: f.tag || algs.len() > 1,
            binary: f.binary == Some(true),
            zero: f.zero,
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
            stdin_consumed: false,
            mmap: mmap_allowed(),
            // `-j` sizes the global pool the pipeline runs on (see `main`).
            threads: 0,
        },
        progress: f.progress,
        threads,
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
        let mut a = Arg::new(s.long).long(s.long);
        if let Some(c) = s.short {
            a = a.short(c as char);
        }
        a = if s.takes_arg() {
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

/// The flags, as the last of each kind given leaves them.
#[derive(Default)]
struct Flags {
    check: bool,
    status: bool,
    warn: bool,
    quiet: bool,
    /// `--binary` (Some(true)) or `--text` (Some(false)), the last given; `--tag` sets it.
    binary: Option<bool>,
    ignore_missing: bool,
    strict: bool,
    tag: bool,
    zero: bool,
    json: bool,
    recursive: bool,
    dereference: bool,
    one_file_system: bool,
    progress: Option<bool>,
}

impl Flags {
    fn from_matches(m: &ArgMatches, specs: &[&OptSpec]) -> Flags {
        let mut f = Flags::default();
        for (_, id) in events(m, specs) {
            match id {
                "check" => f.check = true,
                "status" => (f.status, f.warn, f.quiet) = (true, false, false),
                "warn" => (f.status, f.warn, f.quiet) = (false, true, false),
                "quiet" => (f.status, f.warn, f.quiet) = (false, false, true),
                "binary" => f.binary = Some(true),
                "text" => f.binary = Some(false),
                "ignore-missing" => f.ignore_missing = true,
                "strict" => f.strict = true,
                "tag" => (f.tag, f.binary) = (true, Some(true)),
                "zero" => f.zero = true,
                "json" => f.json = true,
                "recursive" => f.recursive = true,
                "dereference" => f.dereference = true,
                "one-file-system" => f.one_file_system = true,
                "progress" => f.progress = Some(true),
                "no-progress" => f.progress = Some(false),
                _ => {}
            }
        }
        f
    }
}

/// Options in the order given, for the flags whose meaning depends on order.
fn events(m: &ArgMatches, specs: &[&OptSpec]) -> Vec<(usize, &'static str)> {
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

/// The whole-input mode asked for (its option's name, and the mode): at most one, the
/// last of its kind winning.
fn whole_input_mode(m: &ArgMatches, rep: &mut Reporter) -> Option<(&'static str, Mode)> {
    let mut modes = Vec::new();
    for (long, make) in [
        ("etag", Mode::Etag as fn(usize) -> Mode),
        ("blocks", Mode::Blocks),
        ("torrent-pieces", Mode::TorrentPieces),
    ] {
        if let Some(v) = last_value(m, long) {
            modes.push((long, make(parse_size_arg(long, &v, rep))));
        }
    }
    if modes.len() > 1 {
        rep.error("--etag, --blocks and --torrent-pieces are mutually exclusive");
        rep.usage_error("");
    }
    modes.first().copied()
}

/// The algorithms (`-l` applied) and whether `-a` chose them.
fn algorithms(p: &Personality, m: &ArgMatches, rep: &mut Reporter) -> (Vec<Algorithm>, bool) {
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
    for (set, name) in [
        (f.ignore_missing, "--ignore-missing"),
        (f.status, "--status"),
        (f.warn, "--warn"),
        (f.quiet, "--quiet"),
        (f.strict, "--strict"),
    ] {
        if set && !f.check {
            fail(
                rep,
                &format!("the {name} option is meaningful only when verifying checksums"),
            );
        }
    }
    if f.json && f.check {
        fail(
            rep,
            "the --json option is meaningless when verifying checksums",
        );
    }
    if f.json && f.tag {
        fail(rep, "the --json and --tag options are mutually exclusive");
    }
    if let Some((long, _)) = mode {
        if f.check || f.json {
            fail(
                rep,
                &format!("the --{long} option is meaningless with --check or --json"),
            );
        }
        if long != "blocks" && (algs_given || f.tag) {
            fail(
                rep,
                &format!("--{long} has a fixed format: no --algorithm or --tag"),
            );
        }
    }
    if (f.recursive || files_from) && (f.check || mode.is_some()) {
        fail(
            rep,
            "--recursive and --files-from are meaningless with --check, --etag, --blocks \
             and --torrent-pieces",
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
