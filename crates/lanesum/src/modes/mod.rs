//! Checksum *modes*: published schemes built from many independent hashes of one input.
//!
//! Each mode cuts one input into independent pieces, hashes them through the SIMD lanes
//! ([`hash_many_par`](crate::hash_many_par), or one multi-lane kernel for MD5P8) and
//! combines the results exactly as the published definition says, so every output is
//! byte-compatible with the tool that defines it:
//!
//! | function | definition |
//! | --- | --- |
//! | [`md5p8`] | rsync's MD5P8 whole-file checksum |
//! | [`blake2bp`], [`blake2sp`] | BLAKE2bp / BLAKE2sp (RFC 7693 family, 4-way / 8-way parallel) |
//! | [`blocks`] | the digest of every fixed-size block |
//! | [`s3_etag`], [`s3_etag_of_parts`] | Amazon S3 multipart-upload ETag |
//! | [`torrent_v1_pieces`], [`torrent_v2_pieces_root`] | BitTorrent v1 piece hashes, BEP 52 pieces root |

mod blake2p;
mod blocks;
mod md5p8;
mod s3;
mod torrent;

pub use blake2p::{blake2bp, blake2sp};
pub use blocks::blocks;
pub use md5p8::md5p8;
pub use s3::{s3_etag, s3_etag_of_parts};
pub use torrent::{torrent_v1_pieces, torrent_v2_pieces_root, BTV2_BLOCK};

/// Shared by the modes' tests: the vector folder and a deterministic random input.
#[cfg(test)]
pub(crate) mod test_util {
    use rand::{Rng, SeedableRng};
    use std::path::PathBuf;

    pub(crate) fn vectors_dir() -> Option<PathBuf> {
        crate::blake2::test_common::vectors_dir()
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
