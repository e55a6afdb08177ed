//! The additional checksums Amazon S3 reports for an object (`x-amz-checksum-*`), as it
//! computes them after a single PUT or a multipart upload in parts of a given size.
//!
//! Definitions (AWS, "Checking object integrity in Amazon S3", and the S3 API reference
//! for `ChecksumType`):
//! * Every value is the standard base64 (with padding) of the checksum's big-endian bytes:
//!   4 for CRC32 and CRC32C, 8 for CRC64NVME, 20 for SHA-1, 32 for SHA-256.
//! * A single PUT (here: an input of at most one part, the empty input included) reports
//!   the plain checksum of the object, type `FULL_OBJECT`.
//! * A multipart upload of `N >= 2` parts reports, by the algorithm's checksum type:
//!   * `FULL_OBJECT` (CRC32, CRC32C, CRC64NVME): the CRC of the whole object, as if it had
//!     been computed in one pass. Here each part's CRC is computed on its own (on every
//!     core) and the CRCs are joined as crc-fast's `checksum_combine` joins them (with
//!     operators built once, see `checksums::crc_combine`), which is exactly the CRC of
//!     the concatenation.
//!   * `COMPOSITE` (CRC32, CRC32C, SHA-1, SHA-256): the checksum of the concatenation of
//!     the parts' binary checksums in part order, base64, followed by `-N`.
//!
//! The part values are independent of each other, which is what lets a file be hashed
//! on every core however it is cut; only the part size the uploader used must match.

use std::fmt;
use std::str::FromStr;

use crc_fast::CrcAlgorithm;

use crate::batch::{hash_many_cores, spread};
use crate::checksums::crc_combine;
use crate::{hash, Algorithm, Digest};

/// A checksum algorithm S3 stores besides the ETag (the ones this mode computes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum S3Algorithm {
    /// CRC-32/ISO-HDLC, as zlib and gzip (`CRC32`).
    Crc32,
    /// CRC-32/ISCSI, Castagnoli (`CRC32C`).
    Crc32c,
    /// CRC-64/NVME (`CRC64NVME`).
    Crc64Nvme,
    /// SHA-1 (`SHA1`).
    Sha1,
    /// SHA-256 (`SHA256`).
    Sha256,
}

/// How S3 combines the parts of a multipart upload into an object's checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum S3ChecksumType {
    /// The checksum of the whole object (the CRCs only).
    FullObject,
    /// The checksum of the parts' checksums, suffixed `-N`.
    Composite,
}

impl S3Algorithm {
    /// Every algorithm, in S3's documentation order.
    pub const ALL: [S3Algorithm; 5] = [
        S3Algorithm::Crc32,
        S3Algorithm::Crc32c,
        S3Algorithm::Crc64Nvme,
        S3Algorithm::Sha1,
        S3Algorithm::Sha256,
    ];

    /// The name S3 gives it (`x-amz-checksum-crc64nvme` is this, lowercase).
    pub fn name(self) -> &'static str {
        match self {
            S3Algorithm::Crc32 => "CRC32",
            S3Algorithm::Crc32c => "CRC32C",
            S3Algorithm::Crc64Nvme => "CRC64NVME",
            S3Algorithm::Sha1 => "SHA1",
            S3Algorithm::Sha256 => "SHA256",
        }
    }

    /// The checksum types S3 supports for it in a multipart upload: both for CRC32 and
    /// CRC32C, full-object only for CRC64NVME, composite only for the SHAs.
    pub fn types(self) -> &'static [S3ChecksumType] {
        match self {
            S3Algorithm::Crc32 | S3Algorithm::Crc32c => {
                &[S3ChecksumType::FullObject, S3ChecksumType::Composite]
            }
            S3Algorithm::Crc64Nvme => &[S3ChecksumType::FullObject],
            S3Algorithm::Sha1 | S3Algorithm::Sha256 => &[S3ChecksumType::Composite],
        }
    }

    fn crc(self) -> Option<CrcAlgorithm> {
        match self {
            S3Algorithm::Crc32 => Some(CrcAlgorithm::Crc32IsoHdlc),
            S3Algorithm::Crc32c => Some(CrcAlgorithm::Crc32Iscsi),
            S3Algorithm::Crc64Nvme => Some(CrcAlgorithm::Crc64Nvme),
            S3Algorithm::Sha1 | S3Algorithm::Sha256 => None,
        }
    }

    /// Checksum length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            S3Algorithm::Crc32 | S3Algorithm::Crc32c => 4,
            S3Algorithm::Crc64Nvme => 8,
            S3Algorithm::Sha1 => 20,
            S3Algorithm::Sha256 => 32,
        }
    }

    /// The algorithm whose digest (`lanesum::hash`, a `Hasher`) is this checksum, its
    /// bytes as S3's: for a part streamed through a hasher rather than held whole.
    pub fn algorithm(self) -> Algorithm {
        match self {
            S3Algorithm::Crc32 => Algorithm::Crc32,
            S3Algorithm::Crc32c => Algorithm::Crc32c,
            S3Algorithm::Crc64Nvme => Algorithm::Crc64Nvme,
            S3Algorithm::Sha1 => Algorithm::Sha1,
            S3Algorithm::Sha256 => Algorithm::Sha256,
        }
    }

    /// The checksum of one buffer, big-endian bytes.
    fn one(self, data: &[u8]) -> Digest {
        match (self.crc(), self) {
            (Some(c), _) => self.crc_digest(crc_fast::checksum(c, data)),
            (None, S3Algorithm::Sha1) => hash(Algorithm::Sha1, data),
            (None, _) => hash(Algorithm::Sha256, data),
        }
    }

    fn crc_digest(self, v: u64) -> Digest {
        Digest::from_bytes(&v.to_be_bytes()[8 - self.digest_len()..])
    }

    fn crc_value(d: &Digest) -> u64 {
        d.as_bytes().iter().fold(0, |v, &b| v << 8 | u64::from(b))
    }
}

impl fmt::Display for S3Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for S3Algorithm {
    type Err = String;

    /// S3's names in any case (`crc64nvme`, `CRC32C`, `sha256`; also `sha-256`).
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_uppercase().replace(['-', '_'], "");
        S3Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == t)
            .ok_or_else(|| format!("unknown S3 checksum algorithm '{s}' (known: crc32, crc32c, crc64nvme, sha1, sha256)"))
    }
}

impl fmt::Display for S3ChecksumType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            S3ChecksumType::FullObject => "FULL_OBJECT",
            S3ChecksumType::Composite => "COMPOSITE",
        })
    }
}

/// Each part's checksum under `alg` (big-endian bytes), in order, the parts spread over
/// every core. What [`s3_checksum_of_parts`] takes, for inputs read a part at a time.
pub fn s3_part_checksums<P: AsRef<[u8]> + Sync>(alg: S3Algorithm, parts: &[P]) -> Vec<Digest> {
    let parts: Vec<&[u8]> = parts.iter().map(AsRef::as_ref).collect();
    match alg {
        S3Algorithm::Sha1 => hash_many_cores(Algorithm::Sha1, &parts),
        S3Algorithm::Sha256 => hash_many_cores(Algorithm::Sha256, &parts),
        _ => spread(&parts, |ps| ps.iter().map(|p| alg.one(p)).collect()),
    }
}

/// What S3 reports for an object uploaded as parts whose checksums under `alg` are
/// `part_sums` (from [`s3_part_checksums`]) and whose lengths are `part_lens`.
///
/// Zero parts is an empty object and one part a single PUT: the plain checksum (of
/// nothing, or the part's), whatever `ty`. `None` when S3 has no such multipart type for
/// `alg` (a full-object SHA, a composite CRC64NVME).
///
/// # Panics
/// If the two slices differ in length.
pub fn s3_checksum_of_parts(
    alg: S3Algorithm,
    ty: S3ChecksumType,
    part_sums: &[Digest],
    part_lens: &[u64],
) -> Option<String> {
    assert_eq!(part_sums.len(), part_lens.len(), "one length per part");
    match part_sums {
        [] => return Some(alg.one(b"").to_base64()),
        [one] => return Some(one.to_base64()),
        _ => {}
    }
    if !alg.types().contains(&ty) {
        return None;
    }
    Some(match ty {
        S3ChecksumType::FullObject => {
            let c = alg.crc().expect("only the CRCs are full-object");
            let mut v = S3Algorithm::crc_value(&part_sums[0]);
            for (d, &len) in part_sums.iter().zip(part_lens).skip(1) {
                v = crc_combine::combine(c, v, S3Algorithm::crc_value(d), len);
            }
            alg.crc_digest(v).to_base64()
        }
        S3ChecksumType::Composite => {
            let mut cat = Vec::with_capacity(alg.digest_len() * part_sums.len());
            for d in part_sums {
                cat.extend_from_slice(d.as_bytes());
            }
            format!("{}-{}", alg.one(&cat).to_base64(), part_sums.len())
        }
    })
}

/// What S3 reports under `alg` and `ty` for `data` uploaded in parts of `part_size`
/// bytes (the last shorter); see [`s3_checksum_of_parts`] for one part or none.
///
/// # Panics
/// If `part_size` is 0.
///
/// ```
/// use lanesum::modes::{s3_checksum, S3Algorithm, S3ChecksumType};
/// let full = S3ChecksumType::FullObject;
/// // A single PUT: the plain CRC32 of "hello world" (0x0d4a1185), base64.
/// assert_eq!(s3_checksum(S3Algorithm::Crc32, full, b"hello world", 100).unwrap(), "DUoRhQ==");
/// // Two parts: still the whole object's CRC.
/// assert_eq!(s3_checksum(S3Algorithm::Crc32, full, b"hello world", 6).unwrap(), "DUoRhQ==");
/// ```
pub fn s3_checksum(
    alg: S3Algorithm,
    ty: S3ChecksumType,
    data: &[u8],
    part_size: usize,
) -> Option<String> {
    assert!(part_size > 0, "part size must be at least 1 byte");
    let parts: Vec<&[u8]> = data.chunks(part_size).collect();
    let lens: Vec<u64> = parts.iter().map(|p| p.len() as u64).collect();
    s3_checksum_of_parts(alg, ty, &s3_part_checksums(alg, &parts), &lens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::test_util::random;
    use base64::Engine as _;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// Bitwise reflected CRCs, the catalogue's definitions: an oracle independent of
    /// crc-fast.
    fn crc_ref(alg: S3Algorithm, data: &[u8]) -> u64 {
        let (poly, width): (u64, u32) = match alg {
            S3Algorithm::Crc32 => (0xEDB8_8320, 32),
            S3Algorithm::Crc32c => (0x82F6_3B78, 32),
            S3Algorithm::Crc64Nvme => (0x9A6C_9329_AC4B_C9B5, 64),
            _ => unreachable!(),
        };
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        };
        let mut crc = mask;
        for &b in data {
            crc ^= u64::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    crc >> 1 ^ poly
                } else {
                    crc >> 1
                };
            }
        }
        crc ^ mask
    }

    fn sum_ref(alg: S3Algorithm, data: &[u8]) -> Vec<u8> {
        use sha1::Digest as _;
        match alg {
            S3Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
            S3Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
            _ => crc_ref(alg, data).to_be_bytes()[8 - alg.digest_len()..].to_vec(),
        }
    }

    /// The definition, part by part, with the reference checksums.
    fn reference(alg: S3Algorithm, ty: S3ChecksumType, data: &[u8], part: usize) -> Option<String> {
        let parts: Vec<&[u8]> = data.chunks(part).collect();
        if parts.len() <= 1 {
            return Some(b64(&sum_ref(alg, data)));
        }
        if !alg.types().contains(&ty) {
            return None;
        }
        Some(match ty {
            S3ChecksumType::FullObject => b64(&sum_ref(alg, data)),
            S3ChecksumType::Composite => {
                let cat: Vec<u8> = parts.iter().flat_map(|p| sum_ref(alg, p)).collect();
                format!("{}-{}", b64(&sum_ref(alg, &cat)), parts.len())
            }
        })
    }

    /// The CRC catalogue's check values ("123456789").
    #[test]
    fn check_values() {
        for (alg, want) in [
            (S3Algorithm::Crc32, 0xCBF4_3926u64),
            (S3Algorithm::Crc32c, 0xE306_9283),
            (S3Algorithm::Crc64Nvme, 0xAE8B_1486_0A79_9888),
        ] {
            assert_eq!(crc_ref(alg, b"123456789"), want, "{alg} reference");
            let d = alg.one(b"123456789");
            assert_eq!(S3Algorithm::crc_value(&d), want, "{alg}");
            assert_eq!(d.len(), alg.digest_len());
        }
        // The hasher a part is streamed through gives the same bytes.
        let data = random(3000, 7);
        for alg in S3Algorithm::ALL {
            for d in [&data[..0], &data[..1], &data[..]] {
                assert_eq!(crate::hash(alg.algorithm(), d), alg.one(d), "{alg}");
            }
        }
    }

    #[test]
    fn every_type_matches_the_definition() {
        let data = random(70_000, 5);
        for alg in S3Algorithm::ALL {
            for ty in [S3ChecksumType::FullObject, S3ChecksumType::Composite] {
                for len in [0usize, 1, 999, 1000, 1001, 4096, 70_000] {
                    for part in [1usize, 7, 1000, 4096, 1 << 20] {
                        if len / part > 5000 {
                            continue;
                        }
                        let d = &data[..len];
                        assert_eq!(
                            s3_checksum(alg, ty, d, part),
                            reference(alg, ty, d, part),
                            "{alg} {ty} len {len} part {part}"
                        );
                    }
                }
            }
        }
    }

    /// Big parts go through the thread pool and the lanes.
    #[test]
    fn large_parts_on_every_core() {
        let data = random(9 << 20, 6);
        for alg in S3Algorithm::ALL {
            for &ty in alg.types() {
                assert_eq!(
                    s3_checksum(alg, ty, &data, 1 << 20),
                    reference(alg, ty, &data, 1 << 20),
                    "{alg} {ty}"
                );
            }
        }
    }

    #[test]
    fn names() {
        for a in S3Algorithm::ALL {
            assert_eq!(a.name().to_lowercase().parse::<S3Algorithm>(), Ok(a));
        }
        assert_eq!("sha-256".parse(), Ok(S3Algorithm::Sha256));
        assert!("md5".parse::<S3Algorithm>().is_err());
    }
}
