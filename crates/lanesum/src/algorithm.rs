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
    /// CRC-32/ISO-HDLC, the CRC of zlib, gzip, PNG, S3's `CRC32` and GNU `cksum -a
    /// crc32b`; digest: the 32-bit value big-endian (as S3 encodes it).
    Crc32,
    /// CRC-32C (Castagnoli, CRC-32/ISCSI), S3's `CRC32C`; digest big-endian.
    Crc32c,
    /// CRC-64/NVME, S3's `CRC64NVME`; digest: the 64-bit value big-endian.
    Crc64Nvme,
    /// POSIX `cksum` (GNU `cksum -a crc`): CRC-32/CKSUM of the data followed by its length
    /// in bytes, least significant byte first, as few bytes as it takes; digest big-endian
    /// (`cksum` prints it in decimal).
    Crc,
    /// The BSD checksum (`sum -r`, `cksum -a bsd`): 16-bit rotate-and-add; digest: the
    /// 16-bit value big-endian. The 1 KiB block count `sum` prints beside it is output
    /// formatting, from the input's size.
    SumBsd,
    /// The System V checksum (`sum -s`, `cksum -a sysv`): the byte sum folded to 16 bits;
    /// digest big-endian (block count: 512-byte blocks, as for [`SumBsd`](Self::SumBsd)).
    SumSysv,
    /// XXH64, seed 0; digest: the canonical (big-endian) form, as `xxhsum` prints it and
    /// S3's `XXHASH64` carries it.
    Xxh64,
    /// XXH3 64-bit, seed 0; digest canonical (big-endian), S3's `XXHASH3`.
    Xxh3,
    /// XXH3 128-bit (XXH128), seed 0; digest canonical (big-endian: high half first), S3's
    /// `XXHASH128`.
    Xxh128,
    /// SHA3-224 (FIPS 202).
    Sha3_224,
    /// SHA3-256 (FIPS 202).
    Sha3_256,
    /// SHA3-384 (FIPS 202).
    Sha3_384,
    /// SHA3-512 (FIPS 202).
    Sha3_512,
    /// SHAKE128 (FIPS 202) with an output of any length >= 1 byte (default 16 bytes, as
    /// OpenSSL's; GNU `cksum` has no SHAKE).
    Shake128(usize),
    /// SHAKE256 (FIPS 202) with an output of any length >= 1 byte (default 32 bytes).
    Shake256(usize),
    /// SM3 (GB/T 32905-2016, `cksum -a sm3`).
    Sm3,
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
        "crc32",
        "crc32c",
        "crc64nvme",
        "crc",
        "bsd",
        "sysv",
        "xxh64",
        "xxh3",
        "xxh128",
        "sha3-224",
        "sha3-256",
        "sha3-384",
        "sha3-512",
        "shake128[-BITS]",
        "shake256[-BITS]",
        "sm3",
    ];

    /// The Merkle-Damgard functions the SIMD lanes run; `families` maps each onto its
    /// family.
    pub(crate) const LANED: &'static [Algorithm] = &[
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
        Algorithm::Sha512_224,
        Algorithm::Sha512_256,
        Algorithm::Sm3,
    ];

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
        Algorithm::Crc32,
        Algorithm::Crc32c,
        Algorithm::Crc64Nvme,
        Algorithm::Crc,
        Algorithm::SumBsd,
        Algorithm::SumSysv,
        Algorithm::Xxh64,
        Algorithm::Xxh3,
        Algorithm::Xxh128,
        Algorithm::Sha3_224,
        Algorithm::Sha3_256,
        Algorithm::Sha3_384,
        Algorithm::Sha3_512,
        Algorithm::Shake128(16),
        Algorithm::Shake256(32),
        Algorithm::Sm3,
    ];

    /// Whether streams of this algorithm share SIMD lanes in
    /// [`LaneHasher`](crate::LaneHasher) and [`StreamBatch`](crate::StreamBatch): MD5,
    /// SHA-1, the SHA-2 family, SM3, SHA-3 and SHAKE (the last two where the CPU has a
    /// Keccak lanes kernel). The others hash one stream at a time (BLAKE3 spreading a large one
    /// over every core).
    pub fn streams_in_lanes(self) -> bool {
        Self::LANED.contains(&self)
            || matches!(
                self,
                Algorithm::Sha3_224
                    | Algorithm::Sha3_256
                    | Algorithm::Sha3_384
                    | Algorithm::Sha3_512
                    | Algorithm::Shake128(_)
                    | Algorithm::Shake256(_)
            )
    }

    /// Whether streams of this algorithm share lanes only inside a
    /// [`StreamBatch`](crate::StreamBatch) or the lane engine: SHA-3 and SHAKE.
    /// [`Hasher::update_many`] runs them one after another, where it runs MD5, SHA-1, the
    /// SHA-2 family, SM3 and BLAKE2 side by side in lanes, so a caller that keeps each
    /// stream in its own `Hasher` (free to move between threads between writes) loses
    /// their lanes and no others.
    ///
    /// [`Hasher::update_many`]: crate::Hasher::update_many
    pub fn lanes_need_stream_batch(self) -> bool {
        self.streams_in_lanes() && !Self::LANED.contains(&self)
    }

    /// Whether one large input is hashed on every core at once: BLAKE3 (its tree),
    /// BitTorrent v2 (its pieces) and the CRCs (pieces whose CRCs are combined), with
    /// the `rayon` feature. A program with several big files of such algorithms hashes
    /// them one after another, each on every core; for any other it hashes them side by
    /// side, a share of the files per core.
    pub fn spreads_one_input(self) -> bool {
        cfg!(feature = "rayon")
            && matches!(
                self,
                Algorithm::Blake3(_)
                    | Algorithm::Btv2
                    | Algorithm::Crc
                    | Algorithm::Crc32
                    | Algorithm::Crc32c
                    | Algorithm::Crc64Nvme
            )
    }

    /// Digest length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::SumBsd | Algorithm::SumSysv => 2,
            Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc => 4,
            Algorithm::Crc64Nvme | Algorithm::Xxh64 | Algorithm::Xxh3 => 8,
            Algorithm::Md5 | Algorithm::Md5p8 | Algorithm::Xxh128 => 16,
            Algorithm::Sha1 => 20,
            Algorithm::Sha224 | Algorithm::Sha512_224 | Algorithm::Sha3_224 => 28,
            Algorithm::Sha256
            | Algorithm::Sha512_256
            | Algorithm::Btv2
            | Algorithm::Sha3_256
            | Algorithm::Sm3 => 32,
            Algorithm::Sha384 | Algorithm::Sha3_384 => 48,
            Algorithm::Sha512 | Algorithm::Sha3_512 => 64,
            Algorithm::Shake128(n) | Algorithm::Shake256(n) => n,
            Algorithm::Blake2b(n)
            | Algorithm::Blake2s(n)
            | Algorithm::Blake2bp(n)
            | Algorithm::Blake2sp(n) => n as usize,
            Algorithm::Blake3(n) => n,
        }
    }

    /// Whether a variable output length is within its family's range (1..=64 bytes for
    /// BLAKE2b, 1..=32 for BLAKE2s, any for BLAKE3, whose empty output `b3sum -l 0`
    /// prints, at least 1 for SHAKE); fixed-length algorithms always are.
    pub fn is_valid(self) -> bool {
        match self {
            Algorithm::Blake2b(n) | Algorithm::Blake2bp(n) => (1..=64).contains(&n),
            Algorithm::Blake2s(n) | Algorithm::Blake2sp(n) => (1..=32).contains(&n),
            Algorithm::Shake128(n) | Algorithm::Shake256(n) => n >= 1,
            _ => true,
        }
    }

    /// Compression block size in bytes (a sponge's rate; for the checksums, the unit
    /// their fastest code takes at once).
    pub fn block_len(self) -> usize {
        match self {
            Algorithm::SumBsd | Algorithm::SumSysv => 1,
            Algorithm::Crc | Algorithm::Crc32 | Algorithm::Crc32c | Algorithm::Crc64Nvme => 256,
            Algorithm::Xxh64 => 32,
            Algorithm::Xxh3 | Algorithm::Xxh128 | Algorithm::Sm3 => 64,
            Algorithm::Shake128(_) => 168,
            Algorithm::Sha3_224 => 144,
            Algorithm::Sha3_256 | Algorithm::Shake256(_) => 136,
            Algorithm::Sha3_384 => 104,
            Algorithm::Sha3_512 => 72,
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

    /// The same family at its default length (BLAKE2b-512, BLAKE2s-256, BLAKE3-256,
    /// SHAKE128-128, SHAKE256-256).
    pub fn family_default(self) -> Algorithm {
        match self {
            Algorithm::Shake128(_) => Algorithm::Shake128(16),
            Algorithm::Shake256(_) => Algorithm::Shake256(32),
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
    /// Lengths must be whole bytes, as `b2sum -l` requires. SHA-3 takes 224, 256, 384 or
    /// 512 (`cksum -a sha3 -l 384`), SHAKE any length.
    pub fn with_bits(self, bits: usize) -> Option<Algorithm> {
        // BLAKE3's empty output is an algorithm (`b3sum -l 0`); no other family's is.
        if !bits.is_multiple_of(8) || (bits == 0 && !matches!(self, Algorithm::Blake3(_))) {
            return None;
        }
        let n = bits / 8;
        match self {
            Algorithm::Blake2b(_) if n <= 64 => Some(Algorithm::Blake2b(n as u8)),
            Algorithm::Blake2s(_) if n <= 32 => Some(Algorithm::Blake2s(n as u8)),
            Algorithm::Blake3(_) => Some(Algorithm::Blake3(n)),
            Algorithm::Blake2bp(_) if n <= 64 => Some(Algorithm::Blake2bp(n as u8)),
            Algorithm::Blake2sp(_) if n <= 32 => Some(Algorithm::Blake2sp(n as u8)),
            Algorithm::Shake128(_) => Some(Algorithm::Shake128(n)),
            Algorithm::Shake256(_) => Some(Algorithm::Shake256(n)),
            Algorithm::Sha3_224
            | Algorithm::Sha3_256
            | Algorithm::Sha3_384
            | Algorithm::Sha3_512 => [
                Algorithm::Sha3_224,
                Algorithm::Sha3_256,
                Algorithm::Sha3_384,
                Algorithm::Sha3_512,
            ]
            .into_iter()
            .find(|a| a.digest_len() == n),
            a if a.digest_len() == n => Some(a),
            _ => None,
        }
    }

    /// The name used in BSD-style tagged lines (`--tag`), as coreutils spells it.
    ///
    /// BLAKE2b at a non-default length is `BLAKE2b-BITS`, as `b2sum -l BITS --tag` writes;
    /// SHA-3 is `SHA3-256` and the others GNU `cksum` knows are its names (`CRC32B`, `SM3`,
    /// `CRC`, `BSD`, `SYSV`). Names without a coreutils tool follow Perl's `shasum`
    /// (`SHA512/224`), `xxhsum` (`XXH64`, `XXH3`, `XXH128`), S3 (`CRC32C`, `CRC64NVME`)
    /// and OpenSSL (`SHAKE128`, then `SHAKE128-BITS` at other lengths, as BLAKE2b).
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
            Algorithm::Blake3(n) => format!("BLAKE3-{}", n as u128 * 8),
            Algorithm::Md5p8 => "MD5P8".into(),
            Algorithm::Blake2bp(64) => "BLAKE2bp".into(),
            Algorithm::Blake2bp(n) => format!("BLAKE2bp-{}", n as usize * 8),
            Algorithm::Blake2sp(32) => "BLAKE2sp".into(),
            Algorithm::Blake2sp(n) => format!("BLAKE2sp-{}", n as usize * 8),
            Algorithm::Btv2 => "BTV2".into(),
            Algorithm::Crc32 => "CRC32B".into(),
            Algorithm::Crc32c => "CRC32C".into(),
            Algorithm::Crc64Nvme => "CRC64NVME".into(),
            Algorithm::Crc => "CRC".into(),
            Algorithm::SumBsd => "BSD".into(),
            Algorithm::SumSysv => "SYSV".into(),
            Algorithm::Xxh64 => "XXH64".into(),
            Algorithm::Xxh3 => "XXH3".into(),
            Algorithm::Xxh128 => "XXH128".into(),
            Algorithm::Sha3_224 => "SHA3-224".into(),
            Algorithm::Sha3_256 => "SHA3-256".into(),
            Algorithm::Sha3_384 => "SHA3-384".into(),
            Algorithm::Sha3_512 => "SHA3-512".into(),
            Algorithm::Shake128(16) => "SHAKE128".into(),
            Algorithm::Shake128(n) => format!("SHAKE128-{}", n as u128 * 8),
            Algorithm::Shake256(32) => "SHAKE256".into(),
            Algorithm::Shake256(n) => format!("SHAKE256-{}", n as u128 * 8),
            Algorithm::Sm3 => "SM3".into(),
        }
    }

    /// Parse a tag as written in a BSD-style line (`SHA256`, `BLAKE2b-256`, `SHA3-256`);
    /// exact case. `CRC32` (S3's name) is taken for `CRC32B`.
    pub fn from_tag(tag: &str) -> Option<Algorithm> {
        let (family, bits) = match tag.split_once('-') {
            Some((f, b)) if f.starts_with("BLAKE") || f.starts_with("SHAKE") || f == "SHA3" => {
                (f, Some(b))
            }
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
            "CRC32B" | "CRC32" => Algorithm::Crc32,
            "CRC32C" => Algorithm::Crc32c,
            "CRC64NVME" => Algorithm::Crc64Nvme,
            "CRC" => Algorithm::Crc,
            "BSD" => Algorithm::SumBsd,
            "SYSV" => Algorithm::SumSysv,
            "XXH64" => Algorithm::Xxh64,
            "XXH3" => Algorithm::Xxh3,
            "XXH128" => Algorithm::Xxh128,
            // Only with its length: `SHA3` alone is no tag.
            "SHA3" if bits.is_some() => Algorithm::Sha3_256,
            "SHAKE128" => Algorithm::Shake128(16),
            "SHAKE256" => Algorithm::Shake256(32),
            "SM3" => Algorithm::Sm3,
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
            Algorithm::Blake3(n) => write!(f, "blake3-{}", n as u128 * 8),
            Algorithm::Md5p8 => f.write_str("md5p8"),
            Algorithm::Blake2bp(64) => f.write_str("blake2bp"),
            Algorithm::Blake2bp(n) => write!(f, "blake2bp-{}", n as usize * 8),
            Algorithm::Blake2sp(32) => f.write_str("blake2sp"),
            Algorithm::Blake2sp(n) => write!(f, "blake2sp-{}", n as usize * 8),
            Algorithm::Btv2 => f.write_str("btv2"),
            Algorithm::Crc32 => f.write_str("crc32"),
            Algorithm::Crc32c => f.write_str("crc32c"),
            Algorithm::Crc64Nvme => f.write_str("crc64nvme"),
            Algorithm::Crc => f.write_str("crc"),
            Algorithm::SumBsd => f.write_str("bsd"),
            Algorithm::SumSysv => f.write_str("sysv"),
            Algorithm::Xxh64 => f.write_str("xxh64"),
            Algorithm::Xxh3 => f.write_str("xxh3"),
            Algorithm::Xxh128 => f.write_str("xxh128"),
            Algorithm::Sha3_224 => f.write_str("sha3-224"),
            Algorithm::Sha3_256 => f.write_str("sha3-256"),
            Algorithm::Sha3_384 => f.write_str("sha3-384"),
            Algorithm::Sha3_512 => f.write_str("sha3-512"),
            Algorithm::Shake128(16) => f.write_str("shake128"),
            Algorithm::Shake128(n) => write!(f, "shake128-{}", n as u128 * 8),
            Algorithm::Shake256(32) => f.write_str("shake256"),
            Algorithm::Shake256(n) => write!(f, "shake256-{}", n as u128 * 8),
            Algorithm::Sm3 => f.write_str("sm3"),
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
            "crc32" | "crc32b" | "crc-32" | "crc32-iso-hdlc" => Some(Algorithm::Crc32),
            "crc32c" | "crc-32c" | "crc32-iscsi" => Some(Algorithm::Crc32c),
            "crc64nvme" | "crc64-nvme" | "crc-64-nvme" => Some(Algorithm::Crc64Nvme),
            "crc" | "crc32-cksum" => Some(Algorithm::Crc),
            "bsd" | "sum-bsd" => Some(Algorithm::SumBsd),
            "sysv" | "sum-sysv" => Some(Algorithm::SumSysv),
            "xxh64" | "xxhash64" => Some(Algorithm::Xxh64),
            "xxh3" | "xxhash3" | "xxh3-64" => Some(Algorithm::Xxh3),
            "xxh128" | "xxhash128" | "xxh3-128" => Some(Algorithm::Xxh128),
            // `cksum -a sha3` takes its length from `-l`; alone, the usual 256 bits.
            "sha3" | "sha3-256" => Some(Algorithm::Sha3_256),
            "sha3-224" => Some(Algorithm::Sha3_224),
            "sha3-384" => Some(Algorithm::Sha3_384),
            "sha3-512" => Some(Algorithm::Sha3_512),
            "sm3" => Some(Algorithm::Sm3),
            "shake128" => Some(Algorithm::Shake128(16)),
            "shake256" => Some(Algorithm::Shake256(32)),
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
            ("shake128", Algorithm::Shake128(16)),
            ("shake256", Algorithm::Shake256(32)),
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
        for n in [1usize, 16, 20, 32, 64, 65, 200] {
            for a in [Algorithm::Shake128(n), Algorithm::Shake256(n)] {
                assert_eq!(a.to_string().parse::<Algorithm>().unwrap(), a);
                assert_eq!(Algorithm::from_tag(&a.tag()), Some(a));
            }
        }
        // BLAKE3's empty output (`b3sum -l 0`) is named and read back; lengths whose bit
        // count passes usize are named exactly, not wrapped (or a panic in debug builds).
        let b3 = Algorithm::Blake3(0);
        assert_eq!(b3.to_string().parse::<Algorithm>().unwrap(), b3);
        assert_eq!(Algorithm::from_tag(&b3.tag()), Some(b3));
        for a in [
            Algorithm::Blake3(usize::MAX),
            Algorithm::Shake256(usize::MAX),
        ] {
            let bits = usize::MAX as u128 * 8;
            assert!(a.to_string().ends_with(&format!("-{bits}")), "{a}");
            assert!(a.tag().ends_with(&format!("-{bits}")), "{a:?}");
        }
        assert_eq!("BLAKE2bp-256".parse(), Ok(Algorithm::Blake2bp(32)));
        assert!("blake2sp-264".parse::<Algorithm>().is_err());
    }

    /// Every constructor refuses an impossible length alike, as `Hasher::new` documents.
    #[test]
    fn impossible_lengths_panic_everywhere() {
        for a in [
            Algorithm::Shake128(0),
            Algorithm::Shake256(0),
            Algorithm::Blake2b(0),
            Algorithm::Blake2s(33),
        ] {
            let refused =
                |f: &(dyn Fn() + std::panic::RefUnwindSafe)| std::panic::catch_unwind(f).is_err();
            assert!(refused(&|| drop(crate::Hasher::new(a))), "{a:?}");
            assert!(refused(&|| drop(crate::LaneHasher::new(a))), "{a:?}");
            assert!(refused(&|| drop(crate::StreamBatch::new(a, 1))), "{a:?}");
            assert!(refused(&|| drop(crate::hash_many(a, &[b"x"]))), "{a:?}");
        }
    }

    #[test]
    fn new_names_and_lengths() {
        for (name, a) in [
            ("crc32b", Algorithm::Crc32),
            ("CRC-32C", Algorithm::Crc32c),
            ("crc64-nvme", Algorithm::Crc64Nvme),
            ("xxhash3", Algorithm::Xxh3),
            ("XXH3_128", Algorithm::Xxh128),
            ("sha3", Algorithm::Sha3_256),
            ("SHA3_512", Algorithm::Sha3_512),
            ("shake128-256", Algorithm::Shake128(32)),
            ("shake256", Algorithm::Shake256(32)),
        ] {
            assert_eq!(name.parse::<Algorithm>(), Ok(a), "{name}");
        }
        assert_eq!(
            Algorithm::Sha3_256.with_bits(384),
            Some(Algorithm::Sha3_384)
        );
        assert_eq!(Algorithm::Sha3_256.with_bits(160), None);
        assert_eq!(
            Algorithm::Shake256(32).with_bits(8),
            Some(Algorithm::Shake256(1))
        );
        assert_eq!(Algorithm::Crc32.with_bits(32), Some(Algorithm::Crc32));
        assert_eq!(Algorithm::Crc32.with_bits(64), None);
        assert_eq!(Algorithm::from_tag("SHA3-384"), Some(Algorithm::Sha3_384));
        assert_eq!(Algorithm::from_tag("CRC32"), Some(Algorithm::Crc32));
        for bad in ["SHA3", "SHA3-100", "SHA256-256", "SHAKE128-0", "crc32"] {
            assert_eq!(Algorithm::from_tag(bad), None, "{bad}");
        }
        for bad in ["shake128-0", "shake256-7", "sha3-100", "xxh32", "crc16"] {
            assert!(bad.parse::<Algorithm>().is_err(), "{bad}");
        }
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
            "shake128-0",
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
