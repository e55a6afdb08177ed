//! Option arguments of the coreutils-style tools, read with coreutils' rules and refused
//! with their exact diagnostics (which end the run).

use lanesum::modes::S3Algorithm;
use lanesum::Algorithm;

use crate::cksum_names::CkAlg;
use crate::options::BLAKE3_MAX_BYTES;
use crate::personality::Personality;
use crate::quote::quote;
use crate::report::Reporter;

/// `-l` as coreutils' xnumtoumax(base 10) reads it: optional blanks and `+`, digits,
/// nothing after. Errors are fatal, without the `Try` hint, as b2sum does.
pub fn parse_length(val: &[u8], rep: &mut Reporter) -> u64 {
    let invalid = |rep: &mut Reporter, extra: &str| -> ! {
        rep.fatal(&format!("invalid length: {}{extra}", quote(val, rep.utf8)))
    };
    let mut s = val;
    while let Some((&c, rest)) = s.split_first() {
        if c == b' ' || (b'\t'..=b'\r').contains(&c) {
            s = rest;
        } else {
            break;
        }
    }
    if let Some(rest) = s.strip_prefix(b"+") {
        s = rest;
    }
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        invalid(rep, "");
    }
    let mut n: u64 = 0;
    for &d in s {
        match n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
        {
            Some(v) => n = v,
            None => invalid(rep, ": Value too large for defined data type"),
        }
    }
    n
}

/// A size with an optional binary suffix: `4096`, `128K`, `8M`, `1G`, `2T` (also `KiB`,
/// `kb`..., all powers of 1024, case-insensitive). Zero and overflow are refused.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let suffix = s[digits..].to_ascii_lowercase();
    let unit = suffix
        .strip_suffix("ib")
        .or_else(|| suffix.strip_suffix('b'))
        .unwrap_or(&suffix);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    let v = n.checked_mul(1u64 << shift)?;
    if v == 0 {
        return None;
    }
    usize::try_from(v).ok()
}

/// A `--etag`/`--blocks`/`--torrent-pieces` size: bytes with an optional K/M/G/T
/// (binary) suffix; zero is refused.
pub fn parse_size_arg(long: &str, val: &[u8], rep: &mut Reporter) -> usize {
    let text = String::from_utf8_lossy(val);
    parse_size(&text).unwrap_or_else(|| {
        rep.usage_error(&format!(
            "invalid size {} for {} (bytes, with an optional K, M, G or T suffix)",
            quote(val, rep.utf8),
            quote(format!("--{long}"), rep.utf8)
        ))
    })
}

/// `-a md5,sha256`: each name as [`Algorithm`] parses it; duplicates dropped.
pub fn parse_algorithms(val: &[u8], rep: &mut Reporter) -> Vec<Algorithm> {
    let text = String::from_utf8_lossy(val);
    let mut out: Vec<Algorithm> = Vec::new();
    for word in text.split(',') {
        match word.parse::<Algorithm>() {
            Ok(a) => {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
            Err(_) => {
                let msg = format!(
                    "invalid argument {} for {}\nValid arguments are: {}",
                    quote(word, rep.utf8),
                    quote("--algorithm", rep.utf8),
                    Algorithm::NAMES.join(", ")
                );
                rep.usage_error(&msg);
            }
        }
    }
    out
}

/// cksum's `-a TYPE`: GNU's names exactly, or one of lanesum's; refused as GNU's
/// XARGMATCH_EXACT does, listing GNU's names.
pub fn cksum_algorithm(val: &[u8], rep: &mut Reporter) -> CkAlg {
    let text = String::from_utf8_lossy(val);
    if let Some(a) = CkAlg::from_arg(&text) {
        return a;
    }
    let mut msg = format!(
        "invalid argument {} for {}\nValid arguments are:",
        quote(val, rep.utf8),
        quote("--algorithm", rep.utf8)
    );
    for name in CkAlg::gnu_names() {
        msg.push_str(&format!("\n  - {}", quote(name, rep.utf8)));
    }
    rep.usage_error(&msg)
}

/// `--s3`'s algorithms (`-a crc32,crc64nvme`): S3's names, any case; duplicates dropped.
pub fn s3_algorithms(val: &[u8], rep: &mut Reporter) -> Vec<S3Algorithm> {
    let text = String::from_utf8_lossy(val);
    let mut out = Vec::new();
    for word in text.split(',') {
        match word.parse::<S3Algorithm>() {
            Ok(a) if !out.contains(&a) => out.push(a),
            Ok(_) => {}
            Err(e) => rep.usage_error(&e),
        }
    }
    out
}

/// Apply `-l BITS` as b2sum does: 0 means the default, then multiple-of-8 and maximum
/// checks with b2sum's messages. lanesum also refuses `-l` with fixed-length algorithms.
pub fn apply_length(
    p: &Personality,
    algs: &[Algorithm],
    bits: u64,
    raw: &[u8],
    rep: &mut Reporter,
) -> Vec<Algorithm> {
    // Not a multiple of 8: refused by `getopt::scan` already.
    if bits == 0 {
        return algs.to_vec();
    }
    let mut out = Vec::new();
    for &a in algs {
        let (tag, max_bits) = match a {
            Algorithm::Blake2b(_) => ("BLAKE2b", 512u64),
            Algorithm::Blake2s(_) => ("BLAKE2s", 256),
            Algorithm::Blake2bp(_) => ("BLAKE2bp", 512),
            Algorithm::Blake2sp(_) => ("BLAKE2sp", 256),
            Algorithm::Blake3(_) => ("BLAKE3", BLAKE3_MAX_BYTES as u64 * 8),
            Algorithm::Shake128(_) => ("SHAKE128", BLAKE3_MAX_BYTES as u64 * 8),
            Algorithm::Shake256(_) => ("SHAKE256", BLAKE3_MAX_BYTES as u64 * 8),
            // 224, 256, 384 or 512: `with_bits` refuses the rest.
            Algorithm::Sha3_224
            | Algorithm::Sha3_256
            | Algorithm::Sha3_384
            | Algorithm::Sha3_512 => ("SHA3", 512),
            _ => {
                // Only `-a` can choose a fixed-length algorithm.
                debug_assert!(p.algorithm.is_none(), "{}", p.name);
                rep.fatal(
                    "--length is only supported with blake2b, blake2s, blake2bp, blake2sp, blake3, sha3 and shake",
                );
            }
        };
        if bits > max_bits {
            rep.error(&format!("invalid length: {}", quote(raw, rep.utf8)));
            rep.fatal(&format!(
                "maximum digest length for {} is {max_bits} bits",
                quote(tag, rep.utf8)
            ));
        }
        match a.with_bits(bits as usize) {
            // `-a blake2b-256,blake2b -l 128` names one algorithm twice: once it is.
            Some(b) if out.contains(&b) => {}
            Some(b) => out.push(b),
            None => rep.fatal(&format!("invalid length: {}", quote(raw, rep.utf8))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("128K"), Some(128 << 10));
        assert_eq!(parse_size("128k"), Some(128 << 10));
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("8MiB"), Some(8 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("16KB"), Some(16 << 10));
        assert_eq!(parse_size("10b"), Some(10));
        for bad in [
            "",
            "0",
            "0K",
            "K",
            "-1",
            "1X",
            "1.5M",
            "99999999999999999999",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
