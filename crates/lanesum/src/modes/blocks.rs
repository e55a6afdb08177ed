//! The digest of every fixed-size block of one input.

use crate::batch::hash_many_cores;
use crate::{Algorithm, Digest};

/// The digest under `alg` of every `block_size`-byte block of `data`, in order.
///
/// Definition: `data` is cut at every multiple of `block_size`; the last block may be
/// shorter; an empty input has no blocks (an empty `Vec`). Each block is an independent
/// message hashed with `alg` in full (its own padding and length), so every entry equals
/// `lanesum::hash(alg, block)` and any tool hashing the same byte ranges agrees.
///
/// The blocks run through the SIMD lanes on all rayon threads ([`hash_many_par`](crate::hash_many_par)).
///
/// # Panics
/// If `block_size` is 0.
///
/// ```
/// use lanesum::{hash, Algorithm};
/// let data = b"abcdefg";
/// let d = lanesum::modes::blocks(Algorithm::Md5, data, 3);
/// assert_eq!(d.len(), 3);
/// assert_eq!(d[2], hash(Algorithm::Md5, b"g"));
/// assert!(lanesum::modes::blocks(Algorithm::Md5, b"", 3).is_empty());
/// ```
pub fn blocks(alg: Algorithm, data: &[u8], block_size: usize) -> Vec<Digest> {
    assert!(block_size > 0, "block size must be at least 1 byte");
    let parts: Vec<&[u8]> = data.chunks(block_size).collect();
    hash_many_cores(alg, &parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash;
    use crate::modes::test_util::{random, random_len};

    fn reference(alg: Algorithm, data: &[u8], bs: usize) -> Vec<Digest> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < data.len() {
            let end = (pos + bs).min(data.len());
            out.push(hash(alg, &data[pos..end]));
            pos = end;
        }
        out
    }

    #[test]
    fn every_length_small_blocks() {
        crate::testing::each_level(|| {
            let data = random(5 * 256, 7);
            for alg in [
                Algorithm::Md5,
                Algorithm::Sha256,
                Algorithm::Sha512,
                Algorithm::Blake3(32),
            ] {
                for bs in [1, 3, 64, 100, 256] {
                    for len in 0..=(5 * bs).min(data.len()) {
                        assert_eq!(
                            blocks(alg, &data[..len], bs),
                            reference(alg, &data[..len], bs),
                            "{alg} bs {bs} len {len}"
                        );
                    }
                }
            }
        });
    }

    #[test]
    fn random_large() {
        crate::testing::each_level(|| {
            for (seed, alg) in [Algorithm::Md5, Algorithm::Sha1, Algorithm::Blake2b(64)]
                .into_iter()
                .enumerate()
            {
                let seed = seed as u64;
                let data = random(random_len(1 << 20, 8 << 20, seed), seed);
                for bs in [4096, 128 << 10, 1 << 20, 3 << 20] {
                    assert_eq!(
                        blocks(alg, &data, bs),
                        reference(alg, &data, bs),
                        "{alg} {bs}"
                    );
                }
            }
        });
    }
}
