//! cksum's `--check` lines, as GNU cksum 9.9 reads them (its source and manual; our own
//! code):
//! * Without `-a`, only tagged lines: each line's tag picks its algorithm (`MD5`,
//!   `SHA256`, `SHA2-384`, `SHA3-256`, `BLAKE2b-160`, `SM3`, ...; lanesum also takes its
//!   own tags, `XXH3`, `CRC32C`, `BLAKE3` ...). The legacy checksums' tags (`BSD`, `SYSV`,
//!   `CRC`, `CRC32B`) are refused.
//! * With `-a`, lines tagged with that algorithm, and untagged lines of its length;
//!   for sha2, sha3 and blake2b the length is read off the digest (`-l` is not needed).
//!   `-a sha2` also takes `SHA224` .. `SHA512` tags, and then keeps the first one's
//!   algorithm for the lines after it, as GNU does.
//! * A digest is hex (either case) or padded base64 of the digest's length (compared
//!   exactly).
//! * The algorithm a line selects stays selected: it names the algorithm in the next
//!   `-w` warnings (`improperly formatted MD5 checksum line`), `CRC` before any.

use std::cell::Cell;

use lanesum::Algorithm;

use crate::cksum_names::{CkAlg, SHA_BITS};
use lanesum_files::manifest::syntax::{
    all_hex, at, base64_len, bsd_tail, digest_field, is_base64_of, is_white, line_start,
    strtoumax0, untagged_name,
};
use lanesum_files::manifest::Entry;

/// The algorithm the lines select, carried from line to line (and file to file).
#[derive(Clone, Debug)]
pub struct State {
    alg: Cell<CkAlg>,
    specified: bool,
}

impl State {
    pub fn new(alg: CkAlg, specified: bool) -> State {
        State {
            alg: Cell::new(alg),
            specified,
        }
    }

    /// The tag the warnings name.
    pub fn type_word(&self) -> String {
        self.alg.get().tag()
    }
}

/// The tag at the start of `s`, GNU's way (up to a blank, `-` or `(`, at most 7 bytes),
/// then lanesum's own tags.
fn tag_at(s: &[u8]) -> Option<CkAlg> {
    let end = s
        .iter()
        .position(|&b| is_white(b) || b == b'-' || b == b'(' || b == 0)
        .unwrap_or(s.len());
    if end <= 7 {
        if let Some(a) = CkAlg::from_gnu_tag(&s[..end]) {
            return Some(a);
        }
    }
    let a = Algorithm::from_tag(std::str::from_utf8(&s[..end]).ok()?)?;
    Some(match CkAlg::from_arg(&a.to_string())? {
        CkAlg::Other(_) => CkAlg::Other(a.family_default()),
        gnu => gnu,
    })
}

/// Parse one line (LF and CR removed); `bsd_reversed` as for the other dialects.
pub fn parse_line(s: &[u8], st: &State, bsd_reversed: &mut Option<bool>) -> Option<Entry> {
    let (i, escaped) = line_start(s);
    let rest = &s[i.min(s.len())..];
    let sha2_family = |a: CkAlg| {
        matches!(
            a,
            CkAlg::Sha2 | CkAlg::Sha224 | CkAlg::Sha256 | CkAlg::Sha384 | CkAlg::Sha512
        )
    };
    if !st.specified {
        match tag_at(rest) {
            Some(a) if !a.is_legacy() => st.alg.set(a),
            _ => return None,
        }
    } else if st.alg.get() == CkAlg::Sha2 {
        if let Some(a) = tag_at(rest).filter(|&a| sha2_family(a)) {
            st.alg.set(a);
        }
    }
    let cur = st.alg.get();

    // Tagged: TAG[-BITS] (name) = digest. Otherwise the line is read again as untagged
    // (a base64 digest may start like a tag).
    let tag = cur.tag();
    if rest.starts_with(tag.as_bytes()) {
        let mut j = i + tag.len();
        let mut bits = cur.default_bits();
        if at(s, j) == b'-' {
            match strtoumax0(&s[j + 1..]) {
                Some((v, used)) => {
                    let v = usize::try_from(v).unwrap_or(usize::MAX);
                    let fits = match cur {
                        CkAlg::Sha2 | CkAlg::Sha3 => SHA_BITS.contains(&v),
                        CkAlg::Other(a) => a.with_bits(v).is_some(),
                        _ => v > 0 && v <= bits && v.is_multiple_of(8),
                    };
                    if !fits {
                        return None;
                    }
                    bits = v;
                    j += 1 + used;
                }
                None => return None,
            }
        }
        if at(s, j) == b' ' {
            j += 1;
        }
        if at(s, j) == b'(' {
            let alg = cur.algorithm(bits)?;
            let (name, hex, base64) = bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, true)?;
            return Some(Entry {
                alg,
                hex,
                base64,
                name,
            });
        }
    }

    // Untagged: digest, blank, then ' ' or '*' and the name (or the name alone, "BSD
    // reversed").
    if s.len() - i.min(s.len()) < 3 + usize::from(at(s, i) == b'\\') {
        return None;
    }
    let start = i;
    let bytes = if cur.variable() {
        untagged_len(cur, &s[start..])?
    } else {
        cur.algorithm(cur.default_bits())?.digest_len()
    };
    let (digest, i) = digest_field(s, start)?;
    let base64 = if digest.len() == base64_len(bytes) {
        if !is_base64_of(digest, bytes) {
            return None;
        }
        true
    } else if digest.len() == bytes * 2 && all_hex(digest) {
        false
    } else {
        return None;
    };
    let alg = cur.algorithm(bytes * 8)?;
    let name = untagged_name(s, i, escaped, bsd_reversed)?;
    Some(Entry {
        alg,
        hex: digest.to_vec(),
        base64,
        name,
    })
}

/// The digest length in bytes of an untagged sha2, sha3 or blake2b line, read off its
/// hex digits, or else its base64 characters and padding, as GNU does.
fn untagged_len(alg: CkAlg, s: &[u8]) -> Option<usize> {
    let hex = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let b64 = hex
        + s[hex..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
            .count();
    let eq = s[b64..].iter().take_while(|&&c| c == b'=').count();
    let mut hex_len = hex;
    if matches!(alg, CkAlg::Sha2 | CkAlg::Sha3) && !SHA_BITS.contains(&(hex / 2 * 8)) {
        hex_len = SHA_BITS
            .iter()
            .map(|b| b / 8)
            .find(|&n| base64_len(n) == b64 + eq)?
            * 2;
    } else if alg == CkAlg::Blake2b && hex < b64 {
        if let Some(n) = (1..=64).find(|&n| base64_len(n) == b64 + eq && (n * 8) % 3 == eq) {
            hex_len = n * 2;
        }
    }
    if hex_len < 2 || hex_len % 2 == 1 || hex_len > 128 {
        return None;
    }
    Some(hex_len / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: &str = "b1946ac92492d2347c6235b4d2611184";
    const MD5_B64: &str = "sZRqySSS0jR8YjW00mERhA==";

    fn p(line: &str, st: &State) -> Option<Entry> {
        parse_line(line.as_bytes(), st, &mut None)
    }

    #[test]
    fn tagged_lines_pick_their_algorithm() {
        let st = State::new(CkAlg::Crc, false);
        assert_eq!(st.type_word(), "CRC");
        let e = p(&format!("MD5 (a) = {MD5}"), &st).unwrap();
        assert_eq!((e.alg, e.base64), (Algorithm::Md5, false));
        assert_eq!(st.type_word(), "MD5");
        let e = p(&format!("MD5 (a) = {MD5_B64}"), &st).unwrap();
        assert!(e.base64);
        let h = "0".repeat(64);
        assert_eq!(
            p(&format!("SHA2-256 (a) = {h}"), &st).unwrap().alg,
            Algorithm::Sha256
        );
        assert_eq!(
            p(&format!("SHA3-256 (a) = {h}"), &st).unwrap().alg,
            Algorithm::Sha3_256
        );
        assert_eq!(
            p(&format!("BLAKE2b-256 (a) = {h}"), &st).unwrap().alg,
            Algorithm::Blake2b(32)
        );
        assert_eq!(
            p(&format!("SM3 (a) = {h}"), &st).unwrap().alg,
            Algorithm::Sm3
        );
        assert!(p(&format!("SHA3 (a) = {h}"), &st).is_none());
        assert!(p("CRC (a) = 12345678", &st).is_none());
        assert!(p(&format!("{MD5}  a"), &st).is_none());
        assert_eq!(
            p("XXH3 (a) = 0000000000000000", &st).unwrap().alg,
            Algorithm::Xxh3
        );
    }

    #[test]
    fn untagged_lines_need_the_algorithm() {
        let st = State::new(CkAlg::Md5, true);
        assert_eq!(p(&format!("{MD5}  a"), &st).unwrap().alg, Algorithm::Md5);
        assert!(p(&format!("{MD5_B64}  a"), &st).unwrap().base64);
        assert!(p(&format!("{}  a", &MD5[1..]), &st).is_none());
        let st = State::new(CkAlg::Sha2, true);
        let h = "a".repeat(96);
        assert_eq!(p(&format!("{h}  a"), &st).unwrap().alg, Algorithm::Sha384);
        let st = State::new(CkAlg::Blake2b, true);
        // 2 bytes: 4 hex digits are also base64 of that length, so GNU reads them as base64.
        assert!(p("abcd  a", &st).is_none());
        assert_eq!(p("abcdef  a", &st).unwrap().alg, Algorithm::Blake2b(3));
        // 20 bytes in base64: 28 characters, one '='.
        let b = format!("{}=", "Q".repeat(27));
        let e = p(&format!("{b}  a"), &st).unwrap();
        assert_eq!((e.alg, e.base64), (Algorithm::Blake2b(20), true));
    }
}
