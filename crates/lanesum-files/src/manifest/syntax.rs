//! The pieces of checksum lines every dialect shares: blanks, escaped and C-string
//! names, hex and base64 digests, `name) = digest` tails, C's number parsing. Public so
//! that dialects outside this crate (the command's cksum lines) read lines alike.

/// Whether `b` is a blank between a line's fields: a space or a tab.
pub fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Byte at `i`, or NUL past the end (the C code reads the terminator there).
pub fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
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

/// An escaped name undone ([`unescape_name`]); `None` if it holds a NUL too.
pub fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    unescape_name(s).filter(|name| !name.contains(&0))
}

/// An unescaped name is a C string in coreutils: it ends at the first NUL.
pub fn c_string(s: &[u8]) -> Vec<u8> {
    let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    s[..end].to_vec()
}

/// Whether every byte of `s` is a hex digit (either case).
pub fn all_hex(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_hexdigit)
}

/// The part after `TAG (`: `name) = hex`, name up to the last `)`. With `b64`, the
/// digest may also be the base64 of `hex_len / 2` bytes (then the flag is set).
pub fn bsd_tail(
    s: &[u8],
    escaped: bool,
    hex_len: usize,
    b64: bool,
) -> Option<(Vec<u8>, Vec<u8>, bool)> {
    let close = s.iter().rposition(|&b| b == b')')?;
    let name = if escaped {
        unescape(&s[..close])?
    } else {
        c_string(&s[..close])
    };
    let mut i = close + 1;
    while is_white(at(s, i)) {
        i += 1;
    }
    if at(s, i) != b'=' {
        return None;
    }
    i += 1;
    while is_white(at(s, i)) {
        i += 1;
    }
    let hex = &s[i.min(s.len())..];
    if hex.len() == hex_len && all_hex(hex) {
        return Some((name, hex.to_vec(), false));
    }
    (b64 && is_base64_of(hex, hex_len / 2)).then(|| (name, hex.to_vec(), true))
}

/// Standard base64's length for `n` bytes, padded.
pub fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// Whether `s` is padded standard base64 of exactly `n` bytes (as GNU's valid_digits:
/// the alphabet, then exactly the padding that length needs).
pub fn is_base64_of(s: &[u8], n: usize) -> bool {
    let pad = (3 - n % 3) % 3;
    s.len() == base64_len(n)
        && s[..s.len() - pad]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
        && s[s.len() - pad..].iter().all(|&c| c == b'=')
}

/// C's strtoumax(s, &end, 0) as xstrtoumax uses it: `None` unless a number was read
/// without overflow or a minus sign. Returns the value and the bytes consumed.
pub fn strtoumax0(s: &[u8]) -> Option<(u64, usize)> {
    let mut i = 0;
    while matches!(at(s, i), b' ' | b'\t'..=b'\r') {
        i += 1;
    }
    match at(s, i) {
        b'-' => return None,
        b'+' => i += 1,
        _ => {}
    }
    let (radix, start) = if at(s, i) == b'0'
        && matches!(at(s, i + 1), b'x' | b'X')
        && at(s, i + 2).is_ascii_hexdigit()
    {
        (16, i + 2)
    } else if at(s, i) == b'0' {
        (8, i)
    } else {
        (10, i)
    };
    let mut j = start;
    let mut v: u64 = 0;
    while let Some(d) = (at(s, j) as char).to_digit(radix) {
        v = v.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
        j += 1;
    }
    (j > start).then_some((v, j))
}

/// The name of an untagged line whose digest and blank end before `i`: after `*` or a
/// second blank, or right there in the "BSD reversed" `digest name` form, which one file
/// may not mix with the other (`bsd_reversed` carries the first line's choice, so that a
/// name starting with a blank or `*` cannot be misread).
pub fn untagged_name(
    s: &[u8],
    mut i: usize,
    escaped: bool,
    bsd_reversed: &mut Option<bool>,
) -> Option<Vec<u8>> {
    let sep = at(s, i);
    if s.len() - i == 1 || (sep != b' ' && sep != b'*') {
        if *bsd_reversed == Some(false) {
            return None;
        }
        *bsd_reversed = Some(true);
    } else if *bsd_reversed != Some(true) {
        *bsd_reversed = Some(false);
        i += 1;
    }
    let raw = &s[i.min(s.len())..];
    if escaped {
        unescape(raw)
    } else {
        Some(c_string(raw))
    }
}

/// Where a line's digest or tag starts, past leading blanks and the `\\` that marks an
/// escaped name (and whether there was one).
pub fn line_start(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    while is_white(at(s, i)) {
        i += 1;
    }
    let escaped = at(s, i) == b'\\';
    (i + usize::from(escaped), escaped)
}

/// An untagged line's digest field, from `start` to the first blank, and where the name
/// part starts (past that blank); `None` if no blank follows. A NUL in the field (or
/// right after it) is left for the digest check to refuse, as in 9.1.
pub fn digest_field(s: &[u8], start: usize) -> Option<(&[u8], usize)> {
    let start = start.min(s.len());
    let end = start + s[start..].iter().position(|&b| is_white(b))?;
    Some((&s[start..end], end + 1))
}
