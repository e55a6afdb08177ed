//! GNU cksum's algorithm names (`-a`), tags and lengths (coreutils 9.9), and what each
//! is in lanesum. Plain data: the option parser and `--check` both read it.

use lanesum::Algorithm;

/// What `cksum -a` can name: GNU's names, or any other algorithm lanesum knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CkAlg {
    Bsd,
    Sysv,
    Crc,
    Crc32b,
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// SHA-2 of the length `-l` (or a check line) gives.
    Sha2,
    /// SHA-3 of the length `-l` (or a check line) gives.
    Sha3,
    /// BLAKE2b, 512 bits unless `-l` says less.
    Blake2b,
    Sm3,
    /// A lanesum name GNU lacks (`crc32c`, `xxh3`, `sha3-256`, `blake3`, ...).
    Other(Algorithm),
}

/// GNU's `-a` arguments and tags, in its order (its "Valid arguments" list).
const GNU: [(&str, &str, CkAlg); 14] = [
    ("bsd", "BSD", CkAlg::Bsd),
    ("sysv", "SYSV", CkAlg::Sysv),
    ("crc", "CRC", CkAlg::Crc),
    ("crc32b", "CRC32B", CkAlg::Crc32b),
    ("md5", "MD5", CkAlg::Md5),
    ("sha1", "SHA1", CkAlg::Sha1),
    ("sha224", "SHA224", CkAlg::Sha224),
    ("sha256", "SHA256", CkAlg::Sha256),
    ("sha384", "SHA384", CkAlg::Sha384),
    ("sha512", "SHA512", CkAlg::Sha512),
    ("sha2", "SHA2", CkAlg::Sha2),
    ("sha3", "SHA3", CkAlg::Sha3),
    ("blake2b", "BLAKE2b", CkAlg::Blake2b),
    ("sm3", "SM3", CkAlg::Sm3),
];

/// The lengths `-l` may give SHA-2 and SHA-3.
pub const SHA_BITS: [usize; 4] = [224, 256, 384, 512];

impl CkAlg {
    /// GNU's argument names, in order.
    pub fn gnu_names() -> impl Iterator<Item = &'static str> {
        GNU.iter().map(|g| g.0)
    }

    /// `-a NAME`: GNU's names exactly (as its XARGMATCH_EXACT), then lanesum's (one
    /// algorithm, no list), written as `lanesum --help` lists them: lowercase, unpadded.
    /// `SHA256` or `Md5` stay unknown, as in GNU, though `lanesum -a` reads them.
    pub fn from_arg(name: &str) -> Option<CkAlg> {
        if let Some(g) = GNU.iter().find(|g| g.0 == name) {
            return Some(g.2);
        }
        if name.contains(',') || name.trim() != name || name.bytes().any(|b| b.is_ascii_uppercase())
        {
            return None;
        }
        let a: Algorithm = name.parse().ok()?;
        Some(CkAlg::from_algorithm(a))
    }

    /// The GNU name an algorithm has, if any (so `-a crc32` behaves as `-a crc32b`).
    fn from_algorithm(a: Algorithm) -> CkAlg {
        match a {
            Algorithm::SumBsd => CkAlg::Bsd,
            Algorithm::SumSysv => CkAlg::Sysv,
            Algorithm::Crc => CkAlg::Crc,
            Algorithm::Crc32 => CkAlg::Crc32b,
            Algorithm::Md5 => CkAlg::Md5,
            Algorithm::Sha1 => CkAlg::Sha1,
            Algorithm::Sha224 => CkAlg::Sha224,
            Algorithm::Sha256 => CkAlg::Sha256,
            Algorithm::Sha384 => CkAlg::Sha384,
            Algorithm::Sha512 => CkAlg::Sha512,
            Algorithm::Sm3 => CkAlg::Sm3,
            a => CkAlg::Other(a),
        }
    }

    /// A GNU tag exactly (`MD5`, `SHA2`, `BLAKE2b`), as its `algorithm_from_tag`.
    pub fn from_gnu_tag(tag: &[u8]) -> Option<CkAlg> {
        GNU.iter().find(|g| g.1.as_bytes() == tag).map(|g| g.2)
    }

    /// Its tag in check lines and `--check` warnings (`SHA2` and `SHA3` without length).
    pub fn tag(self) -> String {
        match GNU.iter().find(|g| g.2 == self) {
            Some(g) => g.1.to_string(),
            None => match self {
                CkAlg::Other(a) => a.family_default().tag(),
                _ => unreachable!("every GNU algorithm is in the table"),
            },
        }
    }

    /// sysv, bsd, crc and crc32b: printed in their own formats, never checked.
    pub fn is_legacy(self) -> bool {
        matches!(self, CkAlg::Bsd | CkAlg::Sysv | CkAlg::Crc | CkAlg::Crc32b)
    }

    /// The digest length in bits when neither `-l` nor a line says it (GNU's
    /// `algorithm_bits`).
    pub fn default_bits(self) -> usize {
        match self {
            CkAlg::Bsd | CkAlg::Sysv => 16,
            CkAlg::Crc | CkAlg::Crc32b => 32,
            CkAlg::Md5 => 128,
            CkAlg::Sha1 => 160,
            CkAlg::Sha224 => 224,
            CkAlg::Sha256 | CkAlg::Sm3 => 256,
            CkAlg::Sha384 => 384,
            CkAlg::Sha512 | CkAlg::Sha2 | CkAlg::Sha3 | CkAlg::Blake2b => 512,
            CkAlg::Other(a) => a.digest_len() * 8,
        }
    }

    /// SHA-2, SHA-3 and BLAKE2b: their length comes from `-l`, a tag's `-BITS` or the
    /// digest itself.
    pub fn variable(self) -> bool {
        matches!(self, CkAlg::Sha2 | CkAlg::Sha3 | CkAlg::Blake2b)
    }

    /// Whether `bits` is a length this algorithm can have (`-l`, a tag's `-BITS`).
    pub fn allows_bits(self, bits: usize) -> bool {
        match self {
            CkAlg::Sha2 | CkAlg::Sha3 => SHA_BITS.contains(&bits),
            CkAlg::Blake2b => bits > 0 && bits <= 512 && bits.is_multiple_of(8),
            CkAlg::Other(a) => a.with_bits(bits).is_some(),
            a => bits == a.default_bits(),
        }
    }

    /// The algorithm hashed, at `bits` (already checked with [`CkAlg::allows_bits`]).
    pub fn algorithm(self, bits: usize) -> Option<Algorithm> {
        Some(match self {
            CkAlg::Bsd => Algorithm::SumBsd,
            CkAlg::Sysv => Algorithm::SumSysv,
            CkAlg::Crc => Algorithm::Crc,
            CkAlg::Crc32b => Algorithm::Crc32,
            CkAlg::Md5 => Algorithm::Md5,
            CkAlg::Sha1 => Algorithm::Sha1,
            CkAlg::Sha224 => Algorithm::Sha224,
            CkAlg::Sha256 => Algorithm::Sha256,
            CkAlg::Sha384 => Algorithm::Sha384,
            CkAlg::Sha512 => Algorithm::Sha512,
            CkAlg::Sm3 => Algorithm::Sm3,
            CkAlg::Sha2 => match bits {
                224 => Algorithm::Sha224,
                256 => Algorithm::Sha256,
                384 => Algorithm::Sha384,
                512 => Algorithm::Sha512,
                _ => return None,
            },
            CkAlg::Sha3 => Algorithm::Sha3_256.with_bits(bits)?,
            CkAlg::Blake2b => Algorithm::Blake2b(64).with_bits(bits)?,
            CkAlg::Other(a) if bits == a.digest_len() * 8 => a,
            CkAlg::Other(a) => a.with_bits(bits)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_algorithms() {
        assert_eq!(CkAlg::from_arg("crc"), Some(CkAlg::Crc));
        assert_eq!(CkAlg::from_arg("crc32"), Some(CkAlg::Crc32b));
        assert_eq!(CkAlg::from_arg("sha3"), Some(CkAlg::Sha3));
        assert_eq!(CkAlg::from_arg("xxh3"), Some(CkAlg::Other(Algorithm::Xxh3)));
        assert_eq!(CkAlg::from_arg("md5,sha1"), None);
        assert_eq!(CkAlg::from_arg("MD6"), None);
        assert_eq!(CkAlg::Sha2.algorithm(384), Some(Algorithm::Sha384));
        assert_eq!(CkAlg::Sha3.algorithm(224), Some(Algorithm::Sha3_224));
        assert_eq!(CkAlg::Blake2b.algorithm(256), Some(Algorithm::Blake2b(32)));
        assert_eq!(CkAlg::Sha2.algorithm(160), None);
        for name in CkAlg::gnu_names() {
            let a = CkAlg::from_arg(name).unwrap();
            assert_eq!(CkAlg::from_gnu_tag(a.tag().as_bytes()), Some(a));
            if !a.variable() {
                assert!(a.algorithm(a.default_bits()).is_some(), "{name}");
            }
        }
    }
}
