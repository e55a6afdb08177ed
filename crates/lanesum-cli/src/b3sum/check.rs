//! `b3sum --check`: b3sum 1.8's check files and messages.
//!
//! A line is `hex  name` or `BLAKE3 (name) = hex` (`--tag`'s), prefixed with `\` when the
//! name is escaped (`\\`, `\n`, `\r`); trailing CR and LF are ignored. Results are
//! `name: OK`, `name: FAILED`, `name: FAILED (error)` on stdout (the name as written),
//! a bad line's reason on stderr (`b3sum: Invalid hex`), and at the end
//! `b3sum: WARNING: N computed checksum(s) did NOT match`, counting bad lines too. An
//! unreadable check file, or one that is not UTF-8, ends the run (`Error: ...`, exit 1).
//! As a security tool, names that could stand for another file are refused: a NUL or a
//! U+FFFD (what lossy decoding makes of bytes that are not UTF-8) in the name.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use lanesum::Digest;

use lanesum_files::{open_operand, Input};

use super::hashing::{Hashing, Output};
use crate::output;
use crate::report::Reporter;

/// A parsed check line: the name as written (for messages), the path, the digest.
#[derive(Debug)]
struct Line {
    shown: String,
    path: String,
    expected: [u8; 32],
}

/// `(hex, name)` of `hex  name` (split at the first double space: names may hold one),
/// else of `BLAKE3 (name) = hex` (split at the last `) = `, for the same reason).
fn split(line: &str) -> Option<(&str, &str)> {
    line.split_once("  ").or_else(|| {
        let (name, hex) = line.strip_prefix("BLAKE3 (")?.rsplit_once(") = ")?;
        Some((hex, name))
    })
}

fn parse_line(line: &str) -> Result<Line, &'static str> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.is_empty() {
        return Err("Empty line");
    }
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (hex, name) = split(line).ok_or("Invalid check line format")?;
    if hex.len() != 64 {
        return Err("Invalid hash length");
    }
    // Lowercase only, as b3sum.
    let expected: [u8; 32] = Some(hex)
        .filter(|h| h.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
        .and_then(Digest::from_hex)
        .and_then(|d| d.as_bytes().try_into().ok())
        .ok_or("Invalid hex")?;
    let path = if escaped {
        let bytes = output::unescape_name(name.as_bytes()).ok_or("Invalid backslash escape")?;
        // Escapes only ever replace ASCII with ASCII: still the UTF-8 it was.
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        name.to_string()
    };
    if path.is_empty() {
        return Err("empty file path");
    }
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

pub(super) fn run(files: &[OsString], hashing: &Hashing, quiet: bool, rep: &mut Reporter) -> i32 {
    let mut failed: u64 = 0;
    for f in files {
        let mut reader = match open_operand(f) {
            Ok(file) => BufReader::new(file),
            Err(e) => rep.fatal_as_anyhow(&e.to_string()),
        };
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => rep.fatal_as_anyhow(&e.to_string()),
            }
            let ok = match parse_line(&line) {
                Err(msg) => {
                    rep.error(msg);
                    false
                }
                Ok(l) => check_line(&l, hashing, quiet, rep),
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

fn check_line(l: &Line, hashing: &Hashing, quiet: bool, rep: &mut Reporter) -> bool {
    let input = if l.path == "-" {
        Input::Stdin
    } else {
        Input::Path(OsStr::from_bytes(l.path.as_bytes()).to_os_string())
    };
    let res = hashing.run(std::slice::from_ref(&input)).next();
    let (msg, ok) = match res.map(|r| r.map(Output::first32)) {
        Some(Ok(found)) if found == l.expected => ("OK".to_string(), true),
        Some(Ok(_)) | None => ("FAILED".to_string(), false),
        Some(Err(e)) => (format!("FAILED ({e})"), false),
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

    const H: &str = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";

    #[test]
    fn both_formats_and_escapes() {
        let l = parse_line(&format!("\\{H}  x\\ny\\r\r\n")).unwrap();
        assert_eq!(
            (l.path.as_str(), l.shown.as_str()),
            ("x\ny\r", "\\x\\ny\\r")
        );
        assert_eq!(l.expected[0], 0xaf);
        let l = parse_line(&format!("BLAKE3 (a) = b) = {H}\n")).unwrap();
        assert_eq!(l.path, "a) = b");
        let l = parse_line(&format!("{H}  two  spaces")).unwrap();
        assert_eq!(l.path, "two  spaces");
    }

    #[test]
    fn bad_lines() {
        let err = |s: &str| parse_line(s).err();
        assert_eq!(err("\r\n"), Some("Empty line"));
        assert_eq!(err(&format!("{H} x")), Some("Invalid check line format"));
        assert_eq!(err(&format!("{}  x", &H[2..])), Some("Invalid hash length"));
        assert_eq!(
            err(&format!("{}  x", H.to_uppercase())),
            Some("Invalid hex")
        );
        assert_eq!(err(&format!("{H}  ")), Some("empty file path"));
        assert_eq!(
            err(&format!("\\{H}  a\\t")),
            Some("Invalid backslash escape")
        );
        assert_eq!(
            err(&format!("\\{H}  a\\")),
            Some("Invalid backslash escape")
        );
        assert_eq!(err(&format!("{H}  a\0")), Some("Null character in path"));
        assert_eq!(
            err(&format!("{H}  a\u{fffd}")),
            Some("Unicode replacement character in path")
        );
        // Multi-byte characters where the digits should be: 64 bytes, not hex.
        assert_eq!(err(&format!("{}  x", "é".repeat(32))), Some("Invalid hex"));
    }
}
