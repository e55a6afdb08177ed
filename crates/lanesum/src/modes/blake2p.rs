//! BLAKE2bp and BLAKE2sp, the parallel BLAKE2 variants, through the SIMD crates.

use crate::Digest;

/// BLAKE2bp of `data` with an output of `out_len` bytes (1..=64), unkeyed.
///
/// Definition (the BLAKE2 paper, section 2.10 / the reference `blake2bp.c`): four BLAKE2b
/// leaves (fanout 4, depth 2, inner length 64, node offsets 0..3, the last leaf marked
/// `last_node`) take the input's 128-byte blocks round-robin; a root BLAKE2b at node
/// depth 1 hashes the four leaves' full 64-byte chaining values. Byte compatibility rests
/// on those tree parameters, on the output length being part of every node's parameter
/// block (so BLAKE2bp-256 is *not* a truncation of BLAKE2bp-512), and on the leaves
/// passing the root 64 bytes whatever the output length, as the reference code does.
/// Computed by `blake2b_simd::blake2bp` (4-way SIMD, one core), checked against the
/// reference KAT.
///
/// # Panics
/// If `out_len` is not in 1..=64.
///
/// ```
/// let d = lanesum::modes::blake2bp(b"", 64);
/// assert!(d.to_hex().starts_with("b5ef811a8038f70b628fa8b294daae74"));
/// ```
pub fn blake2bp(data: &[u8], out_len: usize) -> Digest {
    assert!(
        (1..=64).contains(&out_len),
        "BLAKE2bp output is 1..=64 bytes"
    );
    let h = blake2b_simd::blake2bp::Params::new()
        .hash_length(out_len)
        .hash(data);
    Digest::from_bytes(h.as_bytes())
}

/// BLAKE2sp of `data` with an output of `out_len` bytes (1..=32), unkeyed.
///
/// Definition: as [`blake2bp`] with BLAKE2s, eight leaves (fanout 8, depth 2, inner
/// length 32) taking the input's 64-byte blocks round-robin, and a root over the eight
/// leaves' full 32-byte chaining values. Computed by `blake2s_simd::blake2sp` (8-way SIMD, one core).
///
/// # Panics
/// If `out_len` is not in 1..=32.
///
/// ```
/// let d = lanesum::modes::blake2sp(b"", 32);
/// assert!(d.to_hex().starts_with("dd0e891776933f43c7d032b08a917e25"));
/// ```
pub fn blake2sp(data: &[u8], out_len: usize) -> Digest {
    assert!(
        (1..=32).contains(&out_len),
        "BLAKE2sp output is 1..=32 bytes"
    );
    let h = blake2s_simd::blake2sp::Params::new()
        .hash_length(out_len)
        .hash(data);
    Digest::from_bytes(h.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::test_util::{random, vectors};

    /// The KAT: unkeyed through the public API, keyed through the crates' `Params::key`.
    #[test]
    fn kat() {
        let dir = vectors();
        let text = std::fs::read_to_string(dir.join("blake2/blake2-kat.json")).unwrap();
        let kat: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        let (mut unkeyed, mut keyed) = (0, 0);
        for v in &kat {
            let name = v["hash"].as_str().unwrap();
            if name != "blake2bp" && name != "blake2sp" {
                continue;
            }
            let input = hex::decode(v["in"].as_str().unwrap()).unwrap();
            let key = hex::decode(v["key"].as_str().unwrap()).unwrap();
            let want = v["out"].as_str().unwrap();
            let got = if key.is_empty() {
                unkeyed += 1;
                match name {
                    "blake2bp" => blake2bp(&input, want.len() / 2).to_hex(),
                    _ => blake2sp(&input, want.len() / 2).to_hex(),
                }
            } else {
                keyed += 1;
                match name {
                    "blake2bp" => blake2b_simd::blake2bp::Params::new()
                        .hash_length(want.len() / 2)
                        .key(&key)
                        .hash(&input)
                        .to_hex()
                        .to_string(),
                    _ => blake2s_simd::blake2sp::Params::new()
                        .hash_length(want.len() / 2)
                        .key(&key)
                        .hash(&input)
                        .to_hex()
                        .to_string(),
                }
            };
            assert_eq!(got, want, "{name} len {} key {}", input.len(), key.len());
        }
        assert_eq!((unkeyed, keyed), (512, 512));
    }

    /// The definition written plainly: the leaf and root nodes built one by one from
    /// `blake2b_simd::Params` tree parameters, blocks dealt round-robin by hand.
    fn bp_tree(data: &[u8], out_len: usize) -> String {
        let leaf = |i: u64| {
            let mut p = blake2b_simd::Params::new();
            p.hash_length(64)
                .fanout(4)
                .max_depth(2)
                .max_leaf_length(0)
                .node_offset(i)
                .node_depth(0)
                .inner_hash_length(64)
                .last_node(i == 3);
            let mut s = p.to_state();
            for (k, block) in data.chunks(128).enumerate() {
                if k % 4 == i as usize {
                    s.update(block);
                }
            }
            s.finalize()
        };
        let mut root = blake2b_simd::Params::new();
        root.hash_length(out_len)
            .fanout(4)
            .max_depth(2)
            .max_leaf_length(0)
            .node_offset(0)
            .node_depth(1)
            .inner_hash_length(64)
            .last_node(true);
        let mut r = root.to_state();
        for i in 0..4 {
            r.update(leaf(i).as_bytes());
        }
        r.finalize().to_hex().to_string()
    }

    fn sp_tree(data: &[u8], out_len: usize) -> String {
        let leaf = |i: u64| {
            let mut p = blake2s_simd::Params::new();
            p.hash_length(32)
                .fanout(8)
                .max_depth(2)
                .max_leaf_length(0)
                .node_offset(i)
                .node_depth(0)
                .inner_hash_length(32)
                .last_node(i == 7);
            let mut s = p.to_state();
            for (k, block) in data.chunks(64).enumerate() {
                if k % 8 == i as usize {
                    s.update(block);
                }
            }
            s.finalize()
        };
        let mut root = blake2s_simd::Params::new();
        root.hash_length(out_len)
            .fanout(8)
            .max_depth(2)
            .max_leaf_length(0)
            .node_offset(0)
            .node_depth(1)
            .inner_hash_length(32)
            .last_node(true);
        let mut r = root.to_state();
        for i in 0..8 {
            r.update(leaf(i).as_bytes());
        }
        r.finalize().to_hex().to_string()
    }

    #[test]
    fn against_plain_tree() {
        let data = random(5 * 1024 + 1, 3);
        for len in 0..=data.len() {
            assert_eq!(
                blake2bp(&data[..len], 64).to_hex(),
                bp_tree(&data[..len], 64)
            );
            assert_eq!(
                blake2sp(&data[..len], 32).to_hex(),
                sp_tree(&data[..len], 32)
            );
        }
        // Shorter outputs: every node's parameter block carries the output length while
        // the leaves still hand the root their full chaining values, which `Params` leaf
        // states cannot express; check them against the crates' streaming state instead,
        // fed in uneven pieces, and that they are not truncations.
        for out in [1usize, 20, 32] {
            let mut b = blake2b_simd::blake2bp::Params::new()
                .hash_length(out)
                .to_state();
            let mut s = blake2s_simd::blake2sp::Params::new()
                .hash_length(out)
                .to_state();
            for piece in data.chunks(777) {
                b.update(piece);
                s.update(piece);
            }
            assert_eq!(blake2bp(&data, out).as_bytes(), b.finalize().as_bytes());
            assert_eq!(blake2sp(&data, out).as_bytes(), s.finalize().as_bytes());
            assert_ne!(
                blake2bp(&data, out).as_bytes(),
                &blake2bp(&data, 64).as_bytes()[..out]
            );
        }
        let big = random(3 << 20, 4);
        assert_eq!(blake2bp(&big, 64).to_hex(), bp_tree(&big, 64));
        assert_eq!(blake2sp(&big, 32).to_hex(), sp_tree(&big, 32));
    }
}
