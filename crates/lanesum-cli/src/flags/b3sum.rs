//! b3sum's arguments into [`B3sumOptions`], parsed by clap alone, since the real b3sum is
//! a clap program: its usage errors are clap's (exit 2), `--help` and `--version` too.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{value_parser, Arg, ArgAction, Command};

use super::env::mmap_allowed;
use crate::options::{B3Key, B3sumOptions};
use crate::report::Reporter;

fn command() -> Command {
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    Command::new("b3sum")
        .no_binary_name(true)
        .version(env!("CARGO_PKG_VERSION"))
        .infer_long_args(false)
        .arg(
            Arg::new("file")
                .value_name("FILE")
                .num_args(1..)
                .action(ArgAction::Append)
                // As b3sum's: a path value parser, which refuses an empty name.
                .value_parser(value_parser!(PathBuf))
                .help("Files to hash, or checkfiles to check; none or - means standard input"),
        )
        .arg(
            flag(
                "keyed",
                "Use the keyed mode, reading the 32-byte key from stdin",
            )
            .requires("file"),
        )
        .arg(
            Arg::new("derive-key")
                .long("derive-key")
                .value_name("CONTEXT")
                .conflicts_with("keyed")
                .help("Use the key derivation mode, with the given context string"),
        )
        .arg(
            Arg::new("length")
                .short('l')
                .long("length")
                .value_name("LEN")
                .value_parser(value_parser!(u64))
                .help("The number of output bytes, before hex encoding [default: 32]"),
        )
        .arg(
            Arg::new("seek")
                .long("seek")
                .value_name("SEEK")
                .value_parser(value_parser!(u64))
                .help("The starting output byte offset, before hex encoding [default: 0]"),
        )
        .arg(
            Arg::new("num-threads")
                .long("num-threads")
                .value_name("NUM")
                .value_parser(value_parser!(usize))
                .help("The maximum number of hashing threads (0: the default)"),
        )
        .arg(flag(
            "no-mmap",
            "Read files with read() instead of mapping them",
        ))
        .arg(flag("no-names", "Omit filenames in the output"))
        .arg(flag(
            "raw",
            "Write raw output bytes instead of hex (one input only)",
        ))
        .arg(flag(
            "tag",
            "Output BSD-style checksums: BLAKE3 ([FILE]) = [HASH]",
        ))
        .arg(
            flag("check", "Read BLAKE3 sums from the files and check them")
                .short('c')
                .conflicts_with_all(["derive-key", "keyed", "length", "raw", "tag", "no-names"]),
        )
        .arg(
            flag(
                "quiet",
                "Skip printing OK for each verified file (with --check)",
            )
            .requires("check"),
        )
}

/// Parse b3sum's arguments (after argv[0]). Usage errors, `--help` and `--version` end
/// the run here, as clap ends b3sum's.
pub fn parse(args: Vec<OsString>, rep: &mut Reporter) -> B3sumOptions {
    let m = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => e.exit(),
    };
    let mut files: Vec<OsString> = m
        .get_many::<PathBuf>("file")
        .map(|v| v.map(|p| p.clone().into_os_string()).collect())
        .unwrap_or_default();
    if files.is_empty() {
        files.push("-".into());
    }
    let raw = m.get_flag("raw");
    if raw && files.len() > 1 {
        rep.fatal_as_anyhow("Only one filename can be provided when using --raw");
    }
    let check = m.get_flag("check");
    let key = if m.get_flag("keyed") {
        B3Key::Keyed
    } else if let Some(context) = m.get_one::<String>("derive-key") {
        B3Key::DeriveKey(context.clone())
    } else {
        B3Key::None
    };
    B3sumOptions {
        files,
        check,
        quiet: m.get_flag("quiet"),
        len: if check {
            32
        } else {
            m.get_one::<u64>("length").copied().unwrap_or(32)
        },
        seek: m.get_one::<u64>("seek").copied().unwrap_or(0),
        key,
        raw,
        tag: m.get_flag("tag"),
        names: !raw && !m.get_flag("no-names"),
        threads: m.get_one::<usize>("num-threads").copied().unwrap_or(0),
        input: lanesum_files::Options {
            mmap: !m.get_flag("no-mmap") && mmap_allowed(),
            ..Default::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_command_is_consistent() {
        command().debug_assert();
    }
}
