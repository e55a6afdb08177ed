//! BitTorrent piece hashes: v1 (BEP 3) SHA-1 pieces and the v2 (BEP 52) pieces root.

use crate::{Algorithm, Digest};

/// The BitTorrent v1 piece hashes of one file (single-file torrent): the SHA-1 of every
/// `piece_len`-byte piece, the last piece shorter; an empty file has no pieces.
///
/// Definition (BEP 3): the `pieces` string of the info dictionary is these 20-byte
/// digests concatenated in order. Only for a single-file torrent (or the first file of a
/// multi-file one) do pieces start at the file's first byte, since v1 pieces run across
/// file boundaries. Hashed through the SIMD lanes on all rayon threads.
///
/// # Panics
/// If `piece_len` is 0.
///
/// ```
/// use lanesum::{hash, Algorithm};
/// let p = lanesum::modes::torrent_v1_pieces(&[7u8; 40000], 16384);
/// assert_eq!(p.len(), 3);
/// assert_eq!(p[2], hash(Algorithm::Sha1, &[7u8; 40000 - 32768]));
/// ```
pub fn torrent_v1_pieces(data: &[u8], piece_len: usize) -> Vec<Digest> {
    super::blocks(Algorithm::Sha1, data, piece_len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::test_util::{random, random_len};

    fn sha1(d: &[u8]) -> Vec<u8> {
        use sha1::Digest as _;
        sha1::Sha1::digest(d).to_vec()
    }

    fn v1_reference(data: &[u8], piece: usize) -> Vec<Vec<u8>> {
        data.chunks(piece).map(sha1).collect()
    }

    fn v1(data: &[u8], piece: usize) -> Vec<Vec<u8>> {
        torrent_v1_pieces(data, piece)
            .iter()
            .map(|d| d.as_bytes().to_vec())
            .collect()
    }

    #[test]
    fn v1_every_length() {
        crate::testing::each_level(|| {
            let data = random(5 * 512, 21);
            for piece in [1, 5, 64, 512] {
                for len in 0..=5 * piece {
                    assert_eq!(v1(&data[..len], piece), v1_reference(&data[..len], piece));
                }
            }
            let big = random(random_len(1 << 20, 9 << 20, 22), 23);
            for piece in [16 << 10, 256 << 10, 4 << 20] {
                assert_eq!(v1(&big, piece), v1_reference(&big, piece));
            }
        });
    }
}
