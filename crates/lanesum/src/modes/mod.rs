//! Checksum *modes*: published schemes built from many independent hashes of one input.
//!
//! Each mode cuts one input into independent pieces, hashes them through the SIMD lanes
//! (as [`hash_many_par`](crate::hash_many_par) does, or one multi-lane kernel for MD5P8) and
//! combines the results exactly as the published definition says, so every output is
//! byte-compatible with the tool that defines it:
//!
//! | function | definition |
//! | --- | --- |
//! | [`md5p8`] | rsync's MD5P8 whole-file checksum |
//! | [`blake2bp`], [`blake2sp`] | BLAKE2bp / BLAKE2sp (RFC 7693 family, 4-way / 8-way parallel) |
//! | [`blake3_piece`], [`blake3_of_pieces`] | BLAKE3 of one input, its aligned pieces hashed apart |
//! | [`blocks`] | the digest of every fixed-size block |
//! | [`s3_etag`], [`s3_etag_of_parts`], [`s3_etag_of_part_md5s`] | Amazon S3 multipart-upload ETag |
//! | [`s3_checksum`], [`s3_checksum_of_parts`], [`s3_part_checksums`] | Amazon S3 CRC32/CRC32C/CRC64NVME/SHA checksums, full-object and composite |
//! | [`torrent_v1_pieces`], [`torrent_v2_pieces_root`] | BitTorrent v1 piece hashes, BEP 52 pieces root |

mod blake2p;
mod blake3_pieces;
mod blocks;
pub(crate) mod btv2;
pub(crate) mod md5p8;
#[cfg(target_arch = "x86_64")]
mod md5p8_avx512;
mod s3;
mod s3_checksum;
mod torrent;

pub use blake2p::{blake2bp, blake2sp};
pub use blake3_pieces::{blake3_of_pieces, blake3_piece, Blake3Piece, BLAKE3_PIECE};
pub use blocks::blocks;
pub use btv2::{torrent_v2_pieces_root, BTV2_BLOCK};
pub use md5p8::md5p8;
pub use s3::{s3_etag, s3_etag_of_part_md5s, s3_etag_of_parts};
pub use s3_checksum::{
    s3_checksum, s3_checksum_of_parts, s3_part_checksums, S3Algorithm, S3ChecksumType,
};
pub use torrent::torrent_v1_pieces;

/// Shared by the modes' tests: the vector folder and a deterministic random input.
#[cfg(test)]
pub(crate) mod test_util {
    use rand::{Rng, SeedableRng};
    use std::path::PathBuf;

    pub(crate) fn vectors() -> PathBuf {
        crate::blake2::test_common::vectors()
    }

    /// `pattern(N)` of the vector files: byte i = i mod 251.
    pub(crate) fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8).collect()
    }

    pub(crate) fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut v = vec![0u8; len];
        rng.fill(&mut v[..]);
        v
    }

    /// A random length in `lo..hi`, seeded.
    pub(crate) fn random_len(lo: usize, hi: usize, seed: u64) -> usize {
        rand::rngs::StdRng::seed_from_u64(seed).random_range(lo..hi)
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::random;
    use crate::{hash, hash_many, Algorithm, Hasher};

    /// The modes that are algorithms give the mode functions' digests through `hash`, the
    /// streaming `Hasher` (fed in uneven pieces) and `hash_many`.
    #[test]
    fn algorithm_variants_match_mode_functions() {
        crate::testing::each_level(|| {
            let data = random(3 << 20, 77);
            for len in [0usize, 1, 511, 512, 16384, 16385, 100_000, data.len()] {
                let d = &data[..len];
                let want = [
                    (Algorithm::Md5p8, super::md5p8(d)),
                    (Algorithm::Blake2bp(64), super::blake2bp(d, 64)),
                    (Algorithm::Blake2bp(32), super::blake2bp(d, 32)),
                    (Algorithm::Blake2sp(32), super::blake2sp(d, 32)),
                    (Algorithm::Blake2sp(16), super::blake2sp(d, 16)),
                    (
                        Algorithm::Btv2,
                        super::torrent_v2_pieces_root(d)
                            .unwrap_or(crate::Digest::from_bytes(&[0; 32])),
                    ),
                ];
                for (alg, w) in want {
                    assert_eq!(hash(alg, d), w, "{alg} len {len}");
                    let mut h = Hasher::new(alg);
                    for p in d.chunks(70_001) {
                        h.update(p);
                    }
                    assert_eq!(h.finalize(), w, "{alg} streaming len {len}");
                    assert_eq!(hash_many(alg, &[d, b"x"])[0], w, "{alg} hash_many");
                }
            }
        });
    }
}
