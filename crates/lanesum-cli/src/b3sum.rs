//! The `b3sum` personality, following b3sum 1.x's documented CLI.
//!
//! Hashing prints `hex  name` (`--no-names`: `hex`; `--raw`: the digest bytes, one input
//! only); `-l/--length` counts output BYTES. Names are shown as b3sum does: lossy UTF-8,
//! `\` and LF escaped, line prefixed with `\` when escaped. `--check` reads b3sum's own
//! format only (64 lowercase hex digits, two spaces, name) with its messages:
//! `name: OK`, `name: FAILED`, `name: FAILED (error)`, per-line parse errors on stderr and
//! a final `WARNING: N computed checksums did NOT match`. Usage errors are clap's, as in
//! b3sum (exit 2). `--num-threads` and `--no-mmap` are accepted and ignored; `--keyed` and
//! `--derive-key` are not supported (the library has no keyed BLAKE3).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use clap::{Arg, ArgAction, Command};
use lanesum::Algorithm;

use crate::cli::BLAKE3_MAX_BYTES;
use crate::hashing::{self, Input};
use crate::output;
use crate::report::Reporter;

fn command() -> Command {
    Command::new("b3sum")
        .no_binary_name(true)
        .version(env!("CARGO_PKG_VERSION"))
        .infer_long_args(false)
        .arg(
            Arg::new("file")
                .value_name("FILE")
                .num_args(0..)
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(OsString))
                .help("Files to hash, or checkfiles to check; none or - means standard input"),
        )
        .arg(
            Arg::new("length")
                .short('l')
                .long("length")
                .value_name("LEN")
                .help("The number of output bytes, before hex encoding (default 32)"),
        )
        .arg(
            Arg::new("num-threads")
                .long("num-threads")
                .value_name("NUM")
                .help("Accepted for compatibility; lanesum picks its own threading"),
        )
        .arg(
            Arg::new("no-mmap")
                .long("no-mmap")
                .action(ArgAction::SetTrue)
                .help("Accepted for compatibility; lanesum never memory-maps"),
        )
        .arg(
            Arg::new("no-names")
                .long("no-names")
                .action(ArgAction::SetTrue)
                .help("Omit file names in the output"),
        )
        .arg(
            Arg::new("raw")
                .long("raw")
                .action(ArgAction::SetTrue)
                .help("Write raw output bytes instead of hex (one input only)"),
        )
        .arg(
            Arg::new("check")
                .short('c')
                .long("check")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["length", "raw", "no-names"])
                .help("Read BLAKE3 sums from the files and check them"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .action(ArgAction::SetTrue)
                .requires("check")
                .help("Skip printing OK for each verified file (with --check)"),
        )
}

/// b3sum reports fatal errors through anyhow: `Error: MSG`, exit 1.
fn fatal(rep: &mut Reporter, msg: &str) -> ! {
    rep.flush_now();
    eprintln!("Error: {msg}");
    std::process::exit(1);
}

pub fn run(args: Vec<OsString>, rep: &mut Reporter) -> i32 {
    let m = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => e.exit(),
    };
    let mut files: Vec<OsString> = m
        .get_many::<OsString>("file")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    if files.is_empty() {
        files.push("-".into());
    }
    if let Some(n) = m.get_one::<String>("num-threads") {
        if let Err(e) = n.parse::<usize>() {
            fatal(
                rep,
                &format!("Failed to parse num threads.\n\nCaused by:\n    {e}"),
            );
        }
    }
    let len = match m.get_one::<String>("length") {
        None => 32,
        Some(s) => match s.parse::<u64>() {
            Ok(n) if n <= BLAKE3_MAX_BYTES as u64 => n as usize,
            Ok(_) => fatal(
                rep,
                &format!("lanesum computes at most {BLAKE3_MAX_BYTES} bytes of BLAKE3 output"),
            ),
            Err(e) => fatal(
                rep,
                &format!("Failed to parse length.\n\nCaused by:\n    {e}"),
            ),
        },
    };
    let raw = m.get_flag("raw");
    if raw && files.len() > 1 {
        fatal(rep, "Only one filename can be provided when using --raw");
    }
    if m.get_flag("check") {
        return check(&files, m.get_flag("quiet"), rep);
    }
    let algs = [Algorithm::Blake3(len)];
    let inputs: Vec<Input> = files.iter().map(Input::from_operand).collect();
    let mut failed = false;
    for (name, res) in files.iter().zip(hashing::hash_inputs(&inputs, &algs)) {
        match res {
            Ok(h) => {
                let d = &h.digests[0];
                let mut line = Vec::new();
                if raw {
                    line.extend_from_slice(d.as_bytes());
                } else if m.get_flag("no-names") {
                    line.extend_from_slice(d.to_hex().as_bytes());
                    line.push(b'\n');
                } else {
                    let (shown, escaped) = output::b3sum_name(name.as_bytes());
                    if escaped {
                        line.push(b'\\');
                    }
                    line.extend_from_slice(d.to_hex().as_bytes());
                    line.extend_from_slice(b"  ");
                    line.extend_from_slice(shown.as_bytes());
                    line.push(b'\n');
                }
                rep.write(&line);
                rep.flush();
            }
            Err(e) => {
                failed = true;
                let shown = String::from_utf8_lossy(name.as_bytes()).into_owned();
                rep.error(&format!("{shown}: {e}"));
            }
        }
    }
    i32::from(failed)
}

/// A parsed b3sum check line: the name as written (for messages), the path, the digest.
struct Line {
    shown: String,
    path: String,
    expected: [u8; 32],
}

fn unescape(s: &str) -> Result<String, &'static str> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('\\') => out.push('\\'),
                _ => return Err("Invalid backslash escape"),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn parse_line(line: &str) -> Result<Line, &'static str> {
    let line = line.trim_end_matches('\n');
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None if line.is_empty() => return Err("Empty line"),
        None => (false, line),
    };
    if line.len() <= 66 {
        return Err("Short line");
    }
    if !line.as_bytes()[..66].is_ascii() {
        return Err("Non-ASCII prefix");
    }
    if &line[64..66] != "  " {
        return Err("Invalid space");
    }
    let mut expected = [0u8; 32];
    let hex = &line.as_bytes()[..64];
    let nib = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err("Invalid hex"),
    };
    for (k, byte) in expected.iter_mut().enumerate() {
        *byte = (nib(hex[2 * k])? << 4) | nib(hex[2 * k + 1])?;
    }
    let name = &line[66..];
    let path = if escaped {
        unescape(name)?
    } else {
        name.to_string()
    };
    if path.contains('\0') {
        return Err("Null character in path");
    }
    if path.contains('\u{fffd}') {
        return Err("Unicode replacement character in path");
    }
    let shown = if escaped {
        format!("\\{name}")
    } else {
        name.to_string()
    };
    Ok(Line {
        shown,
        path,
        expected,
    })
}

fn check(files: &[OsString], quiet: bool, rep: &mut Reporter) -> i32 {
    let mut failed: u64 = 0;
    for f in files {
        let opened = if f == "-" {
            hashing::stdin_file()
        } else {
            File::open(f)
        };
        let mut reader = match opened {
            Ok(file) => BufReader::new(file),
            Err(e) => fatal(rep, &e.to_string()),
        };
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => fatal(rep, &e.to_string()),
            }
            let ok = match parse_line(&line) {
                Err(msg) => {
                    rep.error(msg);
                    false
                }
                Ok(l) => check_line(&l, quiet, rep),
            };
            if !ok {
                failed = failed.saturating_add(1);
            }
        }
    }
    if failed > 0 {
        let s = if failed == 1 { "" } else { "s" };
        rep.error(&format!(
            "WARNING: {failed} computed checksum{s} did NOT match"
        ));
    }
    i32::from(failed > 0)
}

fn check_line(l: &Line, quiet: bool, rep: &mut Reporter) -> bool {
    let input = if l.path == "-" {
        Input::Stdin
    } else {
        Input::Path(OsStr::from_bytes(l.path.as_bytes()).to_os_string())
    };
    let inputs = [input];
    let res = hashing::hash_inputs(&inputs, &[Algorithm::Blake3(32)]).next();
    let (msg, ok) = match res {
        Some(Ok(h)) if h.digests[0].as_bytes() == l.expected => ("OK".to_string(), true),
        Some(Ok(_)) => ("FAILED".to_string(), false),
        Some(Err(e)) => (format!("FAILED ({e})"), false),
        None => ("FAILED".to_string(), false),
    };
    if !(ok && quiet) {
        rep.write(format!("{}: {msg}\n", l.shown).as_bytes());
        rep.flush();
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_command_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn check_lines() {
        let h = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";
        let l = parse_line(&format!("\\{h}  x\\ny\n")).unwrap();
        assert_eq!(l.path, "x\ny");
        assert_eq!(l.shown, "\\x\\ny");
        assert_eq!(parse_line("\n").err(), Some("Empty line"));
        assert_eq!(parse_line(&format!("{h} x")).err(), Some("Short line"));
        assert_eq!(
            parse_line(&format!("{}  x", h.to_uppercase())).err(),
            Some("Invalid hex")
        );
        assert_eq!(
            parse_line(&format!("{h}  a\u{fffd}")).err(),
            Some("Unicode replacement character in path")
        );
    }
}
