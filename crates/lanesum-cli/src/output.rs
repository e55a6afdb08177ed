//! Checksum line formats and file-name escaping.
//!
//! Names are bytes (`OsStr` on Unix) and are written back byte-exactly; only the escapes
//! below change them. Coreutils 9.1 rules, checked against md5sum 9.1:
//! * Hashing (`hex  name`, `hex *name`, `TAG (name) = hex`): a name holding `\`, LF or CR
//!   is written with `\\`, `\n`, `\r` and the line starts with `\`. With `-z` nothing is
//!   escaped.
//! * Check results (`name: OK`): escaped only when the name holds a LF (then `\`, LF and
//!   CR are all escaped, with the leading `\`). A name with only `\` or CR is printed raw.
//!   Newer coreutils also escape on `\` and CR here; we follow 9.1.

use lanesum::{Algorithm, Digest};

/// Whether a hashing-mode line must escape `name`.
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Append `name` with `\`, LF and CR escaped.
pub fn push_escaped(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// How hashing-mode lines look.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineStyle {
    /// BSD style `TAG (name) = hex`.
    pub tagged: bool,
    /// `*` before the name in untagged lines.
    pub binary: bool,
    /// NUL instead of LF, and no escaping.
    pub zero: bool,
    /// `--base64`: digests in standard base64 (with padding), not hex.
    pub base64: bool,
}

/// Append one checksum line for `name` (already `-` for stdin).
pub fn push_line(
    out: &mut Vec<u8>,
    alg: Algorithm,
    digest: &Digest,
    name: &[u8],
    style: LineStyle,
) {
    let escape = !style.zero && needs_escape(name);
    if escape {
        out.push(b'\\');
    }
    let push_name = |out: &mut Vec<u8>| {
        if escape {
            push_escaped(out, name);
        } else {
            out.extend_from_slice(name);
        }
    };
    if style.tagged {
        out.extend_from_slice(alg.tag().as_bytes());
        out.extend_from_slice(b" (");
        push_name(out);
        out.extend_from_slice(b") = ");
        push_digest(out, digest, style);
    } else {
        push_digest(out, digest, style);
        out.extend_from_slice(if style.binary { b" *" } else { b"  " });
        push_name(out);
    }
    out.push(if style.zero { 0 } else { b'\n' });
}

fn push_digest(out: &mut Vec<u8>, digest: &Digest, style: LineStyle) {
    let text = if style.base64 {
        digest.to_base64()
    } else {
        digest.to_hex()
    };
    out.extend_from_slice(text.as_bytes());
}

/// The checksums GNU cksum and sum print in formats of their own: POSIX `cksum`'s CRC
/// and CRC-32 (`cksum -a crc32b`) as `VALUE SIZE`, the BSD sum as `%05d` and 1 KiB
/// blocks in 5 columns, the System V sum as `VALUE BLOCKS` of 512 bytes.
pub fn is_legacy(alg: Algorithm) -> bool {
    matches!(
        alg,
        Algorithm::Crc | Algorithm::Crc32 | Algorithm::SumBsd | Algorithm::SumSysv
    )
}

/// Append a legacy line (see [`is_legacy`]): the value (the digest read big-endian), the
/// size or block count, then ` NAME` when files were named, never escaped (as GNU).
pub fn push_legacy_line(
    out: &mut Vec<u8>,
    alg: Algorithm,
    digest: &Digest,
    size: u64,
    name: Option<&[u8]>,
    zero: bool,
) {
    let value = digest
        .as_bytes()
        .iter()
        .fold(0u64, |v, &b| v << 8 | u64::from(b));
    let line = match alg {
        Algorithm::SumBsd => format!("{value:05} {:>5}", size.div_ceil(1024)),
        Algorithm::SumSysv => format!("{value} {}", size.div_ceil(512)),
        _ => format!("{value} {size}"),
    };
    out.extend_from_slice(line.as_bytes());
    if let Some(name) = name {
        out.push(b' ');
        out.extend_from_slice(name);
    }
    out.push(if zero { 0 } else { b'\n' });
}

/// Append `name` as `--check` prints it before `: OK`. Coreutils 9.1's rule (md5sum and
/// the other single-algorithm tools): escaped only when it holds a LF; with `all`
/// (cksum, as 9.9 for every tool) also when it holds a `\` or CR.
pub fn push_check_name_as(out: &mut Vec<u8>, name: &[u8], all: bool) {
    if all && needs_escape(name) {
        out.push(b'\\');
        push_escaped(out, name);
    } else {
        push_check_name(out, name);
    }
}

/// Append `name` as `--check` prints it before `: OK`, under coreutils 9.1's rule.
pub fn push_check_name(out: &mut Vec<u8>, name: &[u8]) {
    if name.contains(&b'\n') {
        out.push(b'\\');
        push_escaped(out, name);
    } else {
        out.extend_from_slice(name);
    }
}

/// b3sum's rendering of a path: lossy UTF-8, then `\`, LF and CR escaped; the flag says
/// whether the line needs its leading `\`.
pub fn b3sum_name(name: &[u8]) -> (String, bool) {
    let s = String::from_utf8_lossy(name);
    if s.contains(['\\', '\n', '\r']) {
        let escaped = s
            .replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\r', "\\r");
        (escaped, true)
    } else {
        (s.into_owned(), false)
    }
}

pub use lanesum_files::manifest::syntax::unescape_name;

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &[u8], style: LineStyle) -> Vec<u8> {
        let mut v = Vec::new();
        push_line(
            &mut v,
            Algorithm::Md5,
            &lanesum::hash(Algorithm::Md5, b"hello\n"),
            name,
            style,
        );
        v
    }

    #[test]
    fn formats_as_md5sum_9_1() {
        let h = "b1946ac92492d2347c6235b4d2611184";
        let text = LineStyle::default();
        assert_eq!(line(b"a", text), format!("{h}  a\n").as_bytes());
        let bin = LineStyle {
            binary: true,
            ..text
        };
        assert_eq!(line(b"a", bin), format!("{h} *a\n").as_bytes());
        let tag = LineStyle {
            tagged: true,
            ..text
        };
        assert_eq!(line(b"a", tag), format!("MD5 (a) = {h}\n").as_bytes());
        assert_eq!(
            line(b"cr\rx\\y\nz", text),
            format!("\\{h}  cr\\rx\\\\y\\nz\n").as_bytes()
        );
        assert_eq!(
            line(b"b\\s", tag),
            format!("\\MD5 (b\\\\s) = {h}\n").as_bytes()
        );
        let zero = LineStyle { zero: true, ..text };
        assert_eq!(line(b"n\nl", zero), format!("{h}  n\nl\0").as_bytes());
        assert_eq!(line(b"bad\xffname", text), {
            let mut v = format!("{h}  bad").into_bytes();
            v.extend_from_slice(b"\xffname\n");
            v
        });
    }

    #[test]
    fn check_names_escape_only_for_newline() {
        let mut v = Vec::new();
        push_check_name(&mut v, b"q\\\rz");
        assert_eq!(v, b"q\\\rz");
        v.clear();
        push_check_name(&mut v, b"m\\\r\nz");
        assert_eq!(v, b"\\m\\\\\\r\\nz");
    }

    #[test]
    fn legacy_lines_as_gnu() {
        let d = |b: &[u8]| Digest::from_bytes(b);
        let mut v = Vec::new();
        push_legacy_line(
            &mut v,
            Algorithm::SumBsd,
            &d(&[0x90, 0x73]),
            6,
            Some(b"h"),
            false,
        );
        assert_eq!(v, b"36979     1 h\n");
        v.clear();
        push_legacy_line(&mut v, Algorithm::SumBsd, &d(&[0, 7]), 0, None, false);
        assert_eq!(v, b"00007     0\n");
        v.clear();
        push_legacy_line(&mut v, Algorithm::SumSysv, &d(&[2, 30]), 513, None, true);
        assert_eq!(v, b"542 2\0");
        v.clear();
        let crc = d(&3015617425u32.to_be_bytes());
        push_legacy_line(&mut v, Algorithm::Crc, &crc, 6, Some(b"n\nl"), false);
        assert_eq!(v, b"3015617425 6 n\nl\n");
    }

    #[test]
    fn b3sum_names() {
        assert_eq!(b3sum_name(b"x\ny"), ("x\\ny".to_string(), true));
        assert_eq!(b3sum_name(b"\\x\r"), ("\\\\x\\r".to_string(), true));
        assert_eq!(b3sum_name(b"y\xffy"), ("y\u{fffd}y".to_string(), false));
    }
}
