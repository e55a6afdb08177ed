//! Checksum files ("manifests"): the lines `md5sum -c`, `sha256sum -c`, `b2sum -c` and
//! `lanesum -c` read, parsed alike for the command and the language bindings.
//!
//! The line grammar is coreutils 9.1's, established by experiment with md5sum/b2sum 9.1
//! and their source (rewritten here, not copied):
//! * A line starting with `#` (in column 1) is a comment; after removing one LF and then
//!   one CR, an empty line is skipped ([`line_body`]). Every other line that does not
//!   parse counts as improperly formatted.
//! * Leading blanks are skipped; a `\` then means the name is escaped (`\\`, `\n`, `\r`).
//! * Tagged: `TAG (name) = hex`, where `TAG` may be followed by one space or none, the
//!   name runs to the last `)`, and blanks may surround `=`.
//! * Untagged: `hex`, one blank, then `*` (binary) or ` ` (text) and the name; or the
//!   "BSD reversed" `hex name` with a single blank, but the two kinds may not be mixed in
//!   one file (the first decides).
//! * Hex is accepted in either case; lanesum's tagged lines may carry padded base64.
//!
//! Which algorithm a line uses ([`Dialect`]):
//! * `md5sum` .. `sha512sum`: only their own tag, untagged hex of their exact length.
//! * `b2sum`: `BLAKE2b` or `BLAKE2b-BITS` tags (BITS read as C's strtoumax with base 0,
//!   so `BLAKE2b-0x100` is accepted, as 9.1 does), untagged lines of any even length up
//!   to 128 hex digits.
//! * `lanesum`: any tag lanesum knows (so one file may mix algorithms). Untagged lines use
//!   the given algorithms' one whose digest length fits; without them the length decides:
//!   32 hex digits md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 sha512 (the
//!   coreutils tools' lengths; sha512-256, blake2 and blake3 lines need a tag).
//!
//! GNU cksum's lines (tags with bit counts, base64 untagged digests) are the command's
//! own dialect, built from the same [`syntax`] pieces.

use lanesum::{Algorithm, Digest};

pub mod syntax;

use syntax::{
    all_hex, at, bsd_tail, digest_field, is_white, line_start, strtoumax0, untagged_name,
};

/// Most bytes an untagged or tagged line of an extendable-output algorithm (BLAKE3,
/// SHAKE) may ask for: 64 KiB, the command's `-l` limit.
pub const MAX_XOF_BYTES: usize = 1 << 16;

/// One properly formatted line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The algorithm the line names (by tag, by digest length or by dialect).
    pub alg: Algorithm,
    /// The expected digest as written (hex, either case; or base64).
    pub hex: Vec<u8>,
    /// `hex` is base64 (cksum and lanesum lines), compared exactly.
    pub base64: bool,
    /// The file name, unescaped.
    pub name: Vec<u8>,
}

impl Entry {
    /// Whether `d` is the digest the line expects: hex in either case, base64 exactly.
    pub fn matches(&self, d: &Digest) -> bool {
        if self.base64 {
            d.to_base64().as_bytes() == self.hex
        } else {
            d.to_hex().as_bytes() == self.hex.to_ascii_lowercase()
        }
    }
}

/// What of a line read with its LF (if any) is parsed: `None` for a comment (`#` in
/// column 1) or a line empty once one LF and then one CR are removed.
pub fn line_body(line: &[u8]) -> Option<&[u8]> {
    if line.first() == Some(&b'#') {
        return None;
    }
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.is_empty()).then_some(line)
}

/// How lines map to algorithms.
#[derive(Clone, Debug)]
pub enum Dialect {
    /// A single-algorithm coreutils tool: its tag and hex length only.
    Fixed(Algorithm),
    /// b2sum: `BLAKE2b[-BITS]` tags, untagged length from the hex.
    Blake2b,
    /// lanesum: any known tag; untagged lines by the given algorithms or by length.
    Multi(Option<Vec<Algorithm>>),
}

impl Dialect {
    /// The type word in "improperly formatted MD5 checksum line" (empty for lanesum's
    /// lines of any algorithm).
    pub fn type_word(&self) -> String {
        match self {
            Dialect::Fixed(a) => a.tag(),
            Dialect::Blake2b => "BLAKE2b".into(),
            Dialect::Multi(Some(v)) if v.len() == 1 => v[0].family_default().tag(),
            Dialect::Multi(_) => String::new(),
        }
    }
}

/// The algorithm lanesum assumes for an untagged digest of `hex_len` digits.
fn untagged_algorithm(allowed: &Option<Vec<Algorithm>>, hex_len: usize) -> Option<Algorithm> {
    if hex_len < 2 || !hex_len.is_multiple_of(2) {
        return None;
    }
    let bytes = hex_len / 2;
    match allowed {
        // An algorithm of exactly that length first (`-a blake3,md5`: 32 digits are MD5),
        // then the first variable-length family that can have it.
        Some(list) => list
            .iter()
            .copied()
            .find(|a| a.digest_len() == bytes)
            .or_else(|| {
                list.iter().find_map(|&a| match a {
                    Algorithm::Blake2b(_) if bytes <= 64 => Some(Algorithm::Blake2b(bytes as u8)),
                    Algorithm::Blake2s(_) if bytes <= 32 => Some(Algorithm::Blake2s(bytes as u8)),
                    Algorithm::Blake2bp(_) if bytes <= 64 => Some(Algorithm::Blake2bp(bytes as u8)),
                    Algorithm::Blake2sp(_) if bytes <= 32 => Some(Algorithm::Blake2sp(bytes as u8)),
                    Algorithm::Blake3(_) if bytes <= MAX_XOF_BYTES => {
                        Some(Algorithm::Blake3(bytes))
                    }
                    Algorithm::Shake128(_) if bytes <= MAX_XOF_BYTES => {
                        Some(Algorithm::Shake128(bytes))
                    }
                    Algorithm::Shake256(_) if bytes <= MAX_XOF_BYTES => {
                        Some(Algorithm::Shake256(bytes))
                    }
                    _ => None,
                })
            }),
        None => Some(match hex_len {
            32 => Algorithm::Md5,
            40 => Algorithm::Sha1,
            56 => Algorithm::Sha224,
            64 => Algorithm::Sha256,
            96 => Algorithm::Sha384,
            128 => Algorithm::Sha512,
            _ => return None,
        }),
    }
}

fn same_family(a: Algorithm, b: Algorithm) -> bool {
    a.family_default() == b.family_default()
}

/// Parse one line (LF and CR already removed). `bsd_reversed` carries the file's
/// format decision between lines.
pub fn parse_line(s: &[u8], d: &Dialect, bsd_reversed: &mut Option<bool>) -> Option<Entry> {
    let (i, escaped) = line_start(s);
    let rest = &s[i.min(s.len())..];

    // Tagged lines.
    match d {
        Dialect::Fixed(alg) => {
            let tag = alg.tag();
            if rest.starts_with(tag.as_bytes()) {
                let mut j = i + tag.len();
                if at(s, j) == b' ' {
                    j += 1;
                }
                if at(s, j) != b'(' {
                    return None;
                }
                let (name, hex, _) = bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, false)?;
                return Some(Entry {
                    alg: *alg,
                    hex,
                    base64: false,
                    name,
                });
            }
        }
        Dialect::Blake2b => {
            if rest.starts_with(b"BLAKE2b") {
                let mut j = i + 7;
                if j >= s.len() {
                    return None;
                }
                let c = s[j];
                // b2sum overwrites the byte after the tag; only '(' is put back.
                if c != b'(' {
                    j += 1;
                }
                let mut bits = 512u64;
                if c == b'-' {
                    let (v, used) = strtoumax0(&s[j..])?;
                    if v == 0 || v > 512 || !v.is_multiple_of(8) {
                        return None;
                    }
                    bits = v;
                    j += used;
                }
                if at(s, j) == b' ' {
                    j += 1;
                }
                if at(s, j) != b'(' {
                    return None;
                }
                let alg = Algorithm::Blake2b((bits / 8) as u8);
                let (name, hex, _) = bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, false)?;
                return Some(Entry {
                    alg,
                    hex,
                    base64: false,
                    name,
                });
            }
        }
        Dialect::Multi(allowed) => {
            let tok_len = rest
                .iter()
                .take(20)
                .position(|&b| is_white(b) || b == b'(' || b == 0)
                .unwrap_or(rest.len().min(20));
            let tag = std::str::from_utf8(&rest[..tok_len]).ok();
            if let Some(alg) = tag.and_then(Algorithm::from_tag) {
                if let Some(list) = allowed {
                    if !list.iter().any(|&a| same_family(a, alg)) {
                        return None;
                    }
                }
                let mut j = i + tok_len;
                if at(s, j) == b' ' {
                    j += 1;
                }
                if at(s, j) != b'(' {
                    return None;
                }
                // lanesum's tagged lines may carry base64 digests (`--base64`).
                let (name, hex, base64) =
                    bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, true)?;
                return Some(Entry {
                    alg,
                    hex,
                    base64,
                    name,
                });
            }
        }
    }

    // Untagged lines.
    let min_len = match d {
        Dialect::Fixed(a) => a.digest_len() * 2 + 2,
        _ => 3,
    };
    if s.len() - i.min(s.len()) < min_len + usize::from(at(s, i) == b'\\') {
        return None;
    }
    let start = i;
    if let Dialect::Blake2b = d {
        let n = s[start..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if n < 2 || !n.is_multiple_of(2) || n > 128 {
            return None;
        }
    }
    // The digest runs to the first blank: a NUL in it (or right after it) makes the line
    // improperly formatted, as in 9.1.
    let (hex, i) = digest_field(s, start)?;
    if !all_hex(hex) {
        return None;
    }
    let alg = match d {
        Dialect::Fixed(a) if hex.len() == a.digest_len() * 2 => *a,
        Dialect::Fixed(_) => return None,
        Dialect::Blake2b => Algorithm::Blake2b((hex.len() / 2) as u8),
        Dialect::Multi(allowed) => untagged_algorithm(allowed, hex.len())?,
    };
    let name = untagged_name(s, i, escaped, bsd_reversed)?;
    Some(Entry {
        alg,
        hex: hex.to_vec(),
        base64: false,
        name,
    })
}

#[cfg(test)]
mod tests;
