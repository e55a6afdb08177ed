//! BLAKE3 of one input hashed as aligned pieces, each on any core, in any order.
//!
//! BLAKE3 is a tree: a piece of `2^k` chunks that starts at a multiple of its own size is a
//! subtree whose chaining value needs none of the other bytes. A reader can then read a
//! piece and hash it at once, while it is still in that core's cache, with no barrier
//! between reading and hashing; the pieces' values are joined at the end (section 2.1 of
//! the BLAKE3 paper; the `blake3` crate's `hazmat` module does the tree arithmetic). The
//! digest is the same as `blake3::hash` of the whole input.

use blake3::hazmat::{merge_subtrees_non_root, merge_subtrees_root_xof, HasherExt, Mode};

use crate::Digest;

/// Bytes per piece: 1,024 chunks, a power of two as the tree needs, and enough for the
/// crate's widest SIMD (16 chunks at a time) many times over.
pub const BLAKE3_PIECE: usize = 1 << 20;

/// The chaining value of one piece (see [`blake3_piece`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blake3Piece([u8; 32]);

/// The value of piece number `index` of an input: its bytes from `index * BLAKE3_PIECE`,
/// [`BLAKE3_PIECE`] of them, fewer only for the input's last piece. `None` for an empty or
/// oversized piece, which can't be one.
pub fn blake3_piece(index: u64, piece: &[u8]) -> Option<Blake3Piece> {
    if piece.is_empty() || piece.len() > BLAKE3_PIECE {
        return None;
    }
    let offset = index.checked_mul(BLAKE3_PIECE as u64)?;
    let mut h = blake3::Hasher::new();
    h.set_input_offset(offset);
    h.update(piece);
    Some(Blake3Piece(h.finalize_non_root()))
}

/// BLAKE3 (plain hash mode, `out_len` bytes of output) of the input whose pieces, in
/// order, have these values: every piece full but the last. `None` for fewer than two
/// pieces: an input of one piece is its own root, so hash it with `blake3::hash` (or
/// [`crate::hash`]) instead.
pub fn blake3_of_pieces(pieces: &[Blake3Piece], out_len: usize) -> Option<Digest> {
    if pieces.len() < 2 {
        return None;
    }
    let (left, right) = split(pieces);
    let mut out = vec![0u8; out_len];
    merge_subtrees_root_xof(&subtree(left), &subtree(right), Mode::Hash).fill(&mut out);
    Some(Digest::from_bytes(&out))
}

/// Where BLAKE3 splits `pieces` (two or more): the left subtree holds the largest power
/// of two pieces that leaves at least one on the right. With every piece but the last a
/// full power of two of chunks, that is the tree's split of the chunks too.
fn split(pieces: &[Blake3Piece]) -> (&[Blake3Piece], &[Blake3Piece]) {
    let left = 1usize << (usize::BITS - 1 - (pieces.len() - 1).leading_zeros());
    pieces.split_at(left)
}

/// The chaining value of the (non-root) subtree over `pieces` (one or more).
fn subtree(pieces: &[Blake3Piece]) -> [u8; 32] {
    if let [one] = pieces {
        return one.0;
    }
    let (left, right) = split(pieces);
    merge_subtrees_non_root(&subtree(left), &subtree(right), Mode::Hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::test_util::random;

    fn by_pieces(data: &[u8], out_len: usize) -> Option<Digest> {
        let pieces: Vec<Blake3Piece> = data
            .chunks(BLAKE3_PIECE)
            .enumerate()
            .map(|(i, p)| blake3_piece(i as u64, p).unwrap())
            .collect();
        blake3_of_pieces(&pieces, out_len)
    }

    /// Every count of pieces up to 9 (the splits at 2, 4 and 8), a last piece of one
    /// byte, one chunk and a half, and full; and outputs shorter and longer than 32.
    #[test]
    fn pieces_give_blake3_of_the_whole() {
        let data = random(9 * BLAKE3_PIECE, 3);
        for full in 1..9 {
            for last in [1, 1536, BLAKE3_PIECE - 1, BLAKE3_PIECE] {
                let input = &data[..full * BLAKE3_PIECE + last];
                for out_len in [32, 20, 64] {
                    let mut want = vec![0u8; out_len];
                    blake3::Hasher::new()
                        .update(input)
                        .finalize_xof()
                        .fill(&mut want);
                    assert_eq!(
                        by_pieces(input, out_len),
                        Some(Digest::from_bytes(&want)),
                        "{full} full pieces, then {last} bytes, {out_len}-byte output"
                    );
                }
            }
        }
    }

    #[test]
    fn what_is_not_a_piece_is_refused() {
        assert_eq!(blake3_piece(0, &[]), None);
        assert_eq!(blake3_piece(0, &vec![0; BLAKE3_PIECE + 1]), None);
        assert_eq!(blake3_piece(u64::MAX, b"x"), None);
        assert_eq!(by_pieces(b"one piece", 32), None);
        assert_eq!(blake3_of_pieces(&[], 32), None);
    }
}
