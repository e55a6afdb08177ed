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
        out.extend_from_slice(digest.to_hex().as_bytes());
    } else {
        out.extend_from_slice(digest.to_hex().as_bytes());
        out.extend_from_slice(if style.binary { b" *" } else { b"  " });
        push_name(out);
    }
    out.push(if style.zero { 0 } else { b'\n' });
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

/// Undo the escapes of a name in a check line (`\\`, `\n`, `\r`, as both the coreutils
/// and the b3sum formats write them); `None` for any other escape or a trailing `\`.
pub fn unescape_name(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.iter();
    while let Some(&b) = it.next() {
        out.push(match b {
            b'\\' => match it.next()? {
                b'\\' => b'\\',
                b'n' => b'\n',
                b'r' => b'\r',
                _ => return None,
            },
            _ => b,
        });
    }
    Some(out)
}

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
    fn b3sum_names() {
        assert_eq!(b3sum_name(b"x\ny"), ("x\\ny".to_string(), true));
        assert_eq!(b3sum_name(b"\\x\r"), ("\\\\x\\r".to_string(), true));
        assert_eq!(b3sum_name(b"y\xffy"), ("y\u{fffd}y".to_string(), false));
    }
}
