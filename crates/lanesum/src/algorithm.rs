//! The algorithms lanesum computes, and the names users type for them.

use std::fmt;
use std::str::FromStr;

/// A digest algorithm with its output length.
///
/// BLAKE2 and BLAKE3 carry their output length (in bytes) because users choose it
/// (`b2sum -l 256`, `b3sum -l 64`); every other algorithm has a fixed length.
///
/// ```
/// use lanesum::Algorithm;
/// let a: Algorithm = "blake2b-256".parse().unwrap();
/// assert_eq!(a, Algorithm::Blake2b(32));
/// assert_eq!(a.to_string(), "blake2b-256");
/// assert_eq!(a.digest_len(), 32);
/// assert_eq!("SHA-256".parse::<Algorithm>().unwrap(), Algorithm::Sha256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// MD5 (RFC 1321).
    Md5,
    /// SHA-1 (FIPS 180-4).
    Sha1,
    /// SHA-224 (FIPS 180-4).
    Sha224,
    /// SHA-256 (FIPS 180-4).
    Sha256,
    /// SHA-384 (FIPS 180-4).
    Sha384,
    /// SHA-512 (FIPS 180-4).
    Sha512,
    /// SHA-512/224 (FIPS 180-4).
    Sha512_224,
    /// SHA-512/256 (FIPS 180-4).
    Sha512_256,
    /// BLAKE2b with an output of 1..=64 bytes.
    Blake2b(u8),
    /// BLAKE2s with an output of 1..=32 bytes.
    Blake2s(u8),
    /// BLAKE3 with an output of any length >= 1 byte (extendable output).
    Blake3(usize),
    /// rsync's MD5P8 (see [`modes::md5p8`](crate::modes::md5p8)).
    Md5p8,
    /// BLAKE2bp with an output of 1..=64 bytes (see [`modes::blake2bp`](crate::modes::blake2bp)).
    Blake2bp(u8),
    /// BLAKE2sp with an output of 1..=32 bytes (see [`modes::blake2sp`](crate::modes::blake2sp)).
    Blake2sp(u8),
    /// The BitTorrent v2 (BEP 52) pieces root of a file, see
    /// [`modes::torrent_v2_pieces_root`](crate::modes::torrent_v2_pieces_root). An empty
    /// input, which has no pieces root, gives 32 zero bytes.
    Btv2,
}

/// Error from parsing an algorithm name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseAlgorithmError(pub String);

impl fmt::Display for ParseAlgorithmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown algorithm '{}' (known: {})",
            self.0,
            Algorithm::NAMES.join(", ")
        )
    }
}

impl std::error::Error for ParseAlgorithmError {}

impl Algorithm {
    /// The canonical names of the fixed-length algorithms plus the variable-length families.
    pub const NAMES: &'static [&'static str] = &[
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha512-224",
        "sha512-256",
        "blake2b[-BITS]",
        "blake2s[-BITS]",
        "blake3[-BITS]",
        "md5p8",
        "blake2bp[-BITS]",
        "blake2sp[-BITS]",
        "btv2",
    ];

    /// The Merkle-Damgard functions the SIMD lanes run (the first entries of
    /// [`Algorithm::ALL`]); `families` maps each onto its family.
    pub(crate) const LANED: &'static [Algorithm] = Self::ALL.split_at(8).0;

    /// The whole-input modes that are also algorithms, at their default lengths.
    /// (Not in [`Algorithm::ALL`], which lists the plain hash functions.)
    pub const MODES: &'static [Algorithm] = &[
        Algorithm::Md5p8,
        Algorithm::Blake2bp(64),
        Algorithm::Blake2sp(32),
        Algorithm::Btv2,
    ];

    /// Every algorithm at its default length, in a stable order (tests and `lanesum speed`).
    pub const ALL: &'static [Algorithm] = &[
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
        Algorithm::Sha512_224,
        Algorithm::Sha512_256,
        Algorithm::Blake2b(64),
        Algorithm::Blake2s(32),
        Algorithm::Blake3(32),
    ];

    /// Whether streams of this algorithm share SIMD lanes ([`LaneHasher`](crate::LaneHasher),
    /// [`StreamBatch`](crate::StreamBatch)): MD5, SHA-1 and the SHA-2 family. The others
    /// hash one stream at a time (BLAKE3 spreading a large one over every core).
    pub fn streams_in_lanes(self) -> bool {
        Self::LANED.contains(&self)
    }

    /// Digest length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::Md5 | Algorithm::Md5p8 => 16,
            Algorithm::Sha1 => 20,
            Algorithm::Sha224 | Algorithm::Sha512_224 => 28,
            Algorithm::Sha256 | Algorithm::Sha512_256 | Algorithm::Btv2 => 32,
            Algorithm::Sha384 => 48,
            Algorithm::Sha512 => 64,
            Algorithm::Blake2b(n)
            | Algorithm::Blake2s(n)
            | Algorithm::Blake2bp(n)
            | Algorithm::Blake2sp(n) => n as usize,
            Algorithm::Blake3(n) => n,
        }
    }

    /// Whether a variable output length is within its family's range (1..=64 bytes for
    /// BLAKE2b, 1..=32 for BLAKE2s, any for BLAKE3, whose empty output `b3sum -l 0`
    /// prints); fixed-length algorithms always are.
    pub fn is_valid(self) -> bool {
        match self {
            Algorithm::Blake2b(n) | Algorithm::Blake2bp(n) => (1..=64).contains(&n),
            Algorithm::Blake2s(n) | Algorithm::Blake2sp(n) => (1..=32).contains(&n),
            _ => true,
        }
    }

    /// Compression block size in bytes.
    pub fn block_len(self) -> usize {
        match self {
            Algorithm::Md5
            | Algorithm::Sha1
            | Algorithm::Sha224
            | Algorithm::Sha256
            | Algorithm::Blake2s(_)
            | Algorithm::Blake2sp(_)
            | Algorithm::Md5p8
            | Algorithm::Blake3(_) => 64,
            Algorithm::Btv2 => 16 << 10,
            Algorithm::Sha384
            | Algorithm::Sha512
            | Algorithm::Sha512_224
            | Algorithm::Sha512_256
            | Algorithm::Blake2b(_)
            | Algorithm::Blake2bp(_) => 128,
        }
    }

    /// The same family at its default length (BLAKE2b-512, BLAKE2s-256, BLAKE3-256).
    pub fn family_default(self) -> Algorithm {
        match self {
            Algorithm::Blake2b(_) => Algorithm::Blake2b(64),
            Algorithm::Blake2s(_) => Algorithm::Blake2s(32),
            Algorithm::Blake3(_) => Algorithm::Blake3(32),
            Algorithm::Blake2bp(_) => Algorithm::Blake2bp(64),
            Algorithm::Blake2sp(_) => Algorithm::Blake2sp(32),
            a => a,
        }
    }

    /// The same family with another output length in bits, if the family allows it.
    ///
    /// Lengths must be whole bytes, as `b2sum -l` requires.
    pub fn with_bits(self, bits: usize) -> Option<Algorithm> {
        if bits == 0 || !bits.is_multiple_of(8) {
            return None;
        }
        let n = bits / 8;
        match self {
            Algorithm::Blake2b(_) if n <= 64 => Some(Algorithm::Blake2b(n as u8)),
            Algorithm::Blake2s(_) if n <= 32 => Some(Algorithm::Blake2s(n as u8)),
            Algorithm::Blake3(_) => Some(Algorithm::Blake3(n)),
            Algorithm::Blake2bp(_) if n <= 64 => Some(Algorithm::Blake2bp(n as u8)),
            Algorithm::Blake2sp(_) if n <= 32 => Some(Algorithm::Blake2sp(n as u8)),
            a if a.digest_len() == n => Some(a),
            _ => None,
        }
    }

    /// The name used in BSD-style tagged lines (`--tag`), as coreutils spells it.
    ///
    /// BLAKE2b at a non-default length is `BLAKE2b-BITS`, as `b2sum -l BITS --tag` writes.
    /// Names without a coreutils tool follow Perl's `shasum` (`SHA512/224`).
    pub fn tag(self) -> String {
        match self {
            Algorithm::Md5 => "MD5".into(),
            Algorithm::Sha1 => "SHA1".into(),
            Algorithm::Sha224 => "SHA224".into(),
            Algorithm::Sha256 => "SHA256".into(),
            Algorithm::Sha384 => "SHA384".into(),
            Algorithm::Sha512 => "SHA512".into(),
            Algorithm::Sha512_224 => "SHA512/224".into(),
            Algorithm::Sha512_256 => "SHA512/256".into(),
            Algorithm::Blake2b(64) => "BLAKE2b".into(),
            Algorithm::Blake2b(n) => format!("BLAKE2b-{}", n as usize * 8),
            Algorithm::Blake2s(32) => "BLAKE2s".into(),
            Algorithm::Blake2s(n) => format!("BLAKE2s-{}", n as usize * 8),
            Algorithm::Blake3(32) => "BLAKE3".into(),
            Algorithm::Blake3(n) => format!("BLAKE3-{}", n * 8),
            Algorithm::Md5p8 => "MD5P8".into(),
            Algorithm::Blake2bp(64) => "BLAKE2bp".into(),
            Algorithm::Blake2bp(n) => format!("BLAKE2bp-{}", n as usize * 8),
            Algorithm::Blake2sp(32) => "BLAKE2sp".into(),
            Algorithm::Blake2sp(n) => format!("BLAKE2sp-{}", n as usize * 8),
            Algorithm::Btv2 => "BTV2".into(),
        }
    }

    /// Parse a tag as written in a BSD-style line (`SHA256`, `BLAKE2b-256`); exact case.
    pub fn from_tag(tag: &str) -> Option<Algorithm> {
        let (family, bits) = match tag.split_once('-') {
            Some((f, b)) if f.starts_with("BLAKE") => (f, Some(b)),
            _ => (tag, None),
        };
        let base = match family {
            "MD5" => Algorithm::Md5,
            "SHA1" => Algorithm::Sha1,
            "SHA224" => Algorithm::Sha224,
            "SHA256" => Algorithm::Sha256,
            "SHA384" => Algorithm::Sha384,
            "SHA512" => Algorithm::Sha512,
            "SHA512/224" => Algorithm::Sha512_224,
            "SHA512/256" => Algorithm::Sha512_256,
            "BLAKE2b" => Algorithm::Blake2b(64),
            "BLAKE2s" => Algorithm::Blake2s(32),
            "BLAKE3" => Algorithm::Blake3(32),
            "MD5P8" => Algorithm::Md5p8,
            "BLAKE2bp" => Algorithm::Blake2bp(64),
            "BLAKE2sp" => Algorithm::Blake2sp(32),
            "BTV2" => Algorithm::Btv2,
            _ => return None,
        };
        match bits {
            None => Some(base),
            Some(b) => {
                if b.is_empty() || !b.bytes().all(|c| c.is_ascii_digit()) || b.len() > 6 {
                    return None;
                }
                base.with_bits(b.parse().ok()?)
            }
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Algorithm::Md5 => f.write_str("md5"),
            Algorithm::Sha1 => f.write_str("sha1"),
            Algorithm::Sha224 => f.write_str("sha224"),
            Algorithm::Sha256 => f.write_str("sha256"),
            Algorithm::Sha384 => f.write_str("sha384"),
            Algorithm::Sha512 => f.write_str("sha512"),
            Algorithm::Sha512_224 => f.write_str("sha512-224"),
            Algorithm::Sha512_256 => f.write_str("sha512-256"),
            Algorithm::Blake2b(64) => f.write_str("blake2b"),
            Algorithm::Blake2b(n) => write!(f, "blake2b-{}", n as usize * 8),
            Algorithm::Blake2s(32) => f.write_str("blake2s"),
            Algorithm::Blake2s(n) => write!(f, "blake2s-{}", n as usize * 8),
            Algorithm::Blake3(32) => f.write_str("blake3"),
            Algorithm::Blake3(n) => write!(f, "blake3-{}", n * 8),
            Algorithm::Md5p8 => f.write_str("md5p8"),
            Algorithm::Blake2bp(64) => f.write_str("blake2bp"),
            Algorithm::Blake2bp(n) => write!(f, "blake2bp-{}", n as usize * 8),
            Algorithm::Blake2sp(32) => f.write_str("blake2sp"),
            Algorithm::Blake2sp(n) => write!(f, "blake2sp-{}", n as usize * 8),
            Algorithm::Btv2 => f.write_str("btv2"),
        }
    }
}

impl FromStr for Algorithm {
    type Err = ParseAlgorithmError;

    /// Case-insensitive; accepts `sha256`, `sha-256`, `SHA256`, `sha512/256`, `sha512_256`,
    /// `blake2b`, `blake2b-256`, `blake2b256`, `b2`, `b3`, `blake3-512`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseAlgorithmError(s.to_string());
        let lower: String = s
            .trim()
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c == '/' || c == '_' { '-' } else { c })
            .collect();
        // "sha-256" -> "sha256", but keep the separator in "sha512-256".
        let name = lower
            .strip_prefix("sha-")
            .map_or(lower.clone(), |rest| format!("sha{rest}"));
        let fixed = match name.as_str() {
            "md5" => Some(Algorithm::Md5),
            "sha1" => Some(Algorithm::Sha1),
            "sha224" => Some(Algorithm::Sha224),
            "sha256" => Some(Algorithm::Sha256),
            "sha384" => Some(Algorithm::Sha384),
            "sha512" => Some(Algorithm::Sha512),
            "sha512-224" | "sha512224" => Some(Algorithm::Sha512_224),
            "sha512-256" | "sha512256" => Some(Algorithm::Sha512_256),
            "b2" | "blake2" | "blake2b" => Some(Algorithm::Blake2b(64)),
            "blake2s" => Some(Algorithm::Blake2s(32)),
            "b3" | "blake3" => Some(Algorithm::Blake3(32)),
            "md5p8" => Some(Algorithm::Md5p8),
            "blake2bp" => Some(Algorithm::Blake2bp(64)),
            "blake2sp" => Some(Algorithm::Blake2sp(32)),
            "btv2" | "bittorrent-v2" => Some(Algorithm::Btv2),
            _ => None,
        };
        if let Some(a) = fixed {
            return Ok(a);
        }
        // Longer prefixes first: "blake2bp-256" is not BLAKE2b.
        for (prefix, base) in [
            ("blake2bp", Algorithm::Blake2bp(64)),
            ("blake2sp", Algorithm::Blake2sp(32)),
            ("blake2b", Algorithm::Blake2b(64)),
            ("blake2s", Algorithm::Blake2s(32)),
            ("blake3", Algorithm::Blake3(32)),
        ] {
            if let Some(rest) = name.strip_prefix(prefix) {
                let digits = rest.strip_prefix('-').unwrap_or(rest);
                if digits.is_empty()
                    || digits.len() > 6
                    || !digits.bytes().all(|c| c.is_ascii_digit())
                {
                    return Err(err());
                }
                return base
                    .with_bits(digits.parse().map_err(|_| err())?)
                    .ok_or_else(err);
            }
        }
        Err(err())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &a in Algorithm::ALL.iter().chain(Algorithm::MODES) {
            assert_eq!(a.to_string().parse::<Algorithm>().unwrap(), a);
            assert_eq!(Algorithm::from_tag(&a.tag()), Some(a));
        }
        for bits in (8..=512).step_by(8) {
            let n = (bits / 8) as u8;
            let mut algs = vec![Algorithm::Blake2b(n), Algorithm::Blake2bp(n)];
            if n <= 32 {
                algs.extend([Algorithm::Blake2s(n), Algorithm::Blake2sp(n)]);
            }
            for a in algs {
                assert_eq!(a.to_string().parse::<Algorithm>().unwrap(), a);
                assert_eq!(Algorithm::from_tag(&a.tag()), Some(a));
            }
        }
        assert_eq!("BLAKE2bp-256".parse(), Ok(Algorithm::Blake2bp(32)));
        assert!("blake2sp-264".parse::<Algorithm>().is_err());
    }

    #[test]
    fn aliases_and_rejects() {
        assert_eq!(
            "SHA-512/256".parse::<Algorithm>().unwrap(),
            Algorithm::Sha512_256
        );
        assert_eq!(
            "blake2s128".parse::<Algorithm>().unwrap(),
            Algorithm::Blake2s(16)
        );
        assert_eq!("b3".parse::<Algorithm>().unwrap(), Algorithm::Blake3(32));
        assert_eq!(
            "blake3-1024".parse::<Algorithm>().unwrap(),
            Algorithm::Blake3(128)
        );
        for bad in [
            "",
            "md4",
            "blake2b-7",
            "blake2b-520",
            "blake2s-264",
            "blake3-0",
            "sha",
            "blake2b-",
        ] {
            assert!(bad.parse::<Algorithm>().is_err(), "{bad}");
        }
        assert_eq!(Algorithm::from_tag("BLAKE2b-9"), None);
        assert_eq!(Algorithm::from_tag("md5"), None);
        assert_eq!(
            Algorithm::from_tag("BLAKE2b-256"),
            Some(Algorithm::Blake2b(32))
        );
    }
}
