//! The BitTorrent v2 (BEP 52) pieces root of a file: a Merkle tree of SHA-256 over 16 KiB
//! blocks, through the SHA-256 lanes.

use crate::batch::{hash_md, hash_one, spread, SPREAD_MIN};
use crate::isa::{self, Features};
use crate::{Algorithm, Digest};

/// BEP 52's leaf block size: 16 KiB.
pub const BTV2_BLOCK: usize = 16 << 10;

/// The BitTorrent v2 `pieces root` of a file (BEP 52), or `None` for an empty file,
/// which BEP 52 gives no pieces root.
///
/// Definition: the leaves are the SHA-256 digests of the file's 16 KiB blocks (the last
/// block may be shorter and is hashed as it is, unpadded); the leaf layer is padded with
/// all-zero 32-byte hashes up to a power of two; each parent is
/// `SHA-256(left || right)`; the root of that binary tree is the pieces root. It does not
/// depend on the piece length: padding at the piece layer with the root of a piece-sized
/// all-zero subtree, as BEP 52 clients do, gives the same tree. A file of at most 16 KiB
/// has a one-leaf tree, whose root is the SHA-256 of the file.
///
/// The leaves and every layer (64-byte concatenations) are hashed through the SIMD lanes
/// on all rayon threads; the zero padding is never materialised (a layer with an odd
/// count is completed with that level's hash of an all-zero subtree).
///
/// ```
/// use lanesum::{hash, Algorithm};
/// assert_eq!(lanesum::modes::torrent_v2_pieces_root(b""), None);
/// assert_eq!(
///     lanesum::modes::torrent_v2_pieces_root(b"abc"),
///     Some(hash(Algorithm::Sha256, b"abc"))
/// );
/// ```
pub fn torrent_v2_pieces_root(data: &[u8]) -> Option<Digest> {
    if data.is_empty() {
        return None;
    }
    let level = isa::active();
    let leaves: Vec<&[u8]> = data.chunks(BTV2_BLOCK).collect();
    Some(root_of(sha256_all(&leaves, level), level))
}

/// SHA-256 of each of `msgs`, through the lanes on every core.
fn sha256_all(msgs: &[&[u8]], level: Features) -> Vec<Digest> {
    spread(msgs, |part| {
        hash_md(Algorithm::Sha256, part, level, None).expect("SHA-256 has lanes")
    })
}

/// The root over non-empty `layer` of leaf hashes, zero-padded to a power of two.
fn root_of(mut layer: Vec<Digest>, level: Features) -> Digest {
    // Root of an all-zero subtree of the current level's height.
    let mut pad = Digest::from_bytes(&[0u8; 32]);
    while layer.len() > 1 {
        if layer.len() % 2 == 1 {
            layer.push(pad.clone());
        }
        let pairs: Vec<[u8; 64]> = layer
            .chunks_exact(2)
            .map(|p| {
                let mut b = [0u8; 64];
                b[..32].copy_from_slice(p[0].as_bytes());
                b[32..].copy_from_slice(p[1].as_bytes());
                b
            })
            .collect();
        let refs: Vec<&[u8]> = pairs.iter().map(|p| &p[..]).collect();
        layer = sha256_all(&refs, level);
        let mut zz = [0u8; 64];
        zz[..32].copy_from_slice(pad.as_bytes());
        zz[32..].copy_from_slice(pad.as_bytes());
        pad = hash_one(Algorithm::Sha256, &zz, level);
    }
    layer.pop().expect("a non-empty layer")
}

/// Streaming pieces root (behind [`Hasher`](crate::Hasher) for [`Algorithm::Btv2`]):
/// leaves are hashed a batch at a time through the lanes, only their digests are kept
/// (32 bytes per 16 KiB). An empty input, which has no pieces root, finalizes to 32 zero
/// bytes.
#[derive(Clone)]
pub(crate) struct Btv2State {
    level: Features,
    pending: Vec<u8>,
    leaves: Vec<Digest>,
}

/// Leaves hashed per batch from the pending buffer: 4 MiB.
const BATCH: usize = 256 * BTV2_BLOCK;

impl Btv2State {
    /// An empty input, hashed at `level`.
    pub(crate) fn at(level: Features) -> Btv2State {
        Btv2State {
            level,
            pending: Vec::new(),
            leaves: Vec::new(),
        }
    }

    /// Whether `update` of `len` more bytes may hash leaves on rayon's threads: a full
    /// batch from the pending buffer, or a write's whole blocks, once they are as many
    /// bytes as `spread` hands to the pool.
    pub(crate) fn update_may_spread(&self, len: usize) -> bool {
        cfg!(feature = "rayon") && (self.pending.len() + len > BATCH || len >= SPREAD_MIN)
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        if !self.pending.is_empty() {
            let take = (BATCH - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() < BATCH || data.is_empty() {
                // Keep a full batch until more arrives: its last block may be the file's.
                return;
            }
            let full = std::mem::take(&mut self.pending);
            self.leaves_of(&full);
        }
        // Hash whole blocks straight from `data`, keeping at least one byte back so the
        // final block (possibly short) is hashed at finalize.
        let keep = match data.len() % BTV2_BLOCK {
            0 if !data.is_empty() => BTV2_BLOCK,
            r => r,
        };
        let whole = data.len() - keep;
        self.leaves_of(&data[..whole]);
        self.pending.extend_from_slice(&data[whole..]);
    }

    fn leaves_of(&mut self, whole_blocks: &[u8]) {
        debug_assert!(whole_blocks.len().is_multiple_of(BTV2_BLOCK));
        let blocks: Vec<&[u8]> = whole_blocks.chunks(BTV2_BLOCK).collect();
        self.leaves.extend(sha256_all(&blocks, self.level));
    }

    pub(crate) fn finalize(mut self) -> Digest {
        let blocks: Vec<&[u8]> = self.pending.chunks(BTV2_BLOCK).collect();
        self.leaves.extend(sha256_all(&blocks, self.level));
        if self.leaves.is_empty() {
            return Digest::from_bytes(&[0u8; 32]);
        }
        root_of(self.leaves, self.level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash;
    use crate::modes::test_util::{random, random_len};

    /// BEP 52 written plainly: hash the blocks, zero-pad to a power of two, fold pairs.
    fn v2_reference(data: &[u8]) -> Option<Vec<u8>> {
        if data.is_empty() {
            return None;
        }
        let sha256 = |d: &[u8]| hash(Algorithm::Sha256, d).as_bytes().to_vec();
        let mut layer: Vec<Vec<u8>> = data.chunks(16384).map(sha256).collect();
        let n = layer.len().next_power_of_two();
        layer.resize(n, vec![0u8; 32]);
        while layer.len() > 1 {
            layer = layer
                .chunks(2)
                .map(|p| sha256(&[&p[0][..], &p[1][..]].concat()))
                .collect();
        }
        layer.pop()
    }

    /// Lengths around every block boundary up to 9 blocks (odd layers at every level),
    /// then random multi-MiB files.
    #[test]
    fn v2_against_reference() {
        crate::testing::each_level(|| {
            let data = random(9 * BTV2_BLOCK + 1, 24);
            let mut lens: Vec<usize> = (0..=512).collect();
            for b in 1..=9 {
                for d in [-2isize, -1, 0, 1, 2, 777] {
                    let l = (b * BTV2_BLOCK) as isize + d;
                    if l >= 0 && (l as usize) <= data.len() {
                        lens.push(l as usize);
                    }
                }
            }
            for len in lens {
                let got = torrent_v2_pieces_root(&data[..len]).map(|d| d.as_bytes().to_vec());
                assert_eq!(got, v2_reference(&data[..len]), "len {len}");
            }
            for seed in 0..3 {
                let big = random(random_len(1 << 20, 10 << 20, seed + 30), seed);
                let got = torrent_v2_pieces_root(&big).map(|d| d.as_bytes().to_vec());
                assert_eq!(got, v2_reference(&big));
            }
        });
    }

    #[test]
    fn v2_streaming_pieces() {
        crate::testing::each_level(|| {
            let data = random(BATCH + 5 * BTV2_BLOCK + 3, 40);
            for len in [
                0,
                1,
                BTV2_BLOCK,
                BTV2_BLOCK + 1,
                BATCH,
                BATCH + 1,
                data.len(),
            ] {
                for piece in [1000usize, BTV2_BLOCK, BATCH, BATCH + 7, 1 << 30] {
                    let mut st = Btv2State::at(isa::active());
                    for p in data[..len].chunks(piece) {
                        st.update(p);
                    }
                    let want = v2_reference(&data[..len]).unwrap_or(vec![0; 32]);
                    assert_eq!(
                        st.finalize().as_bytes(),
                        &want[..],
                        "len {len} piece {piece}"
                    );
                }
            }
        });
    }

    /// A known answer from outside this crate's code: a 16 KiB + 1 byte file of zeros is
    /// SHA-256(SHA-256(16 KiB zeros) || SHA-256("\0")), checked with the sha2 crate.
    #[test]
    fn v2_two_leaves_sha2() {
        crate::testing::each_level(|| {
            use sha2::Digest as _;
            let data = vec![0u8; BTV2_BLOCK + 1];
            let a = sha2::Sha256::digest(&data[..BTV2_BLOCK]);
            let b = sha2::Sha256::digest([0u8]);
            let mut h = sha2::Sha256::new();
            h.update(a);
            h.update(b);
            let want = h.finalize().to_vec();
            assert_eq!(torrent_v2_pieces_root(&data).unwrap().as_bytes(), &want[..]);
        });
    }
}
