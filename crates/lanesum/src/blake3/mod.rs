//! BLAKE3 (the BLAKE3 paper, sections 2 and 5): plain scalar compression, chunk and parent
//! chaining values, and a streaming reference hasher with all three modes and extendable
//! output.
//!
//! Production hashing goes through the `blake3` crate; this module is the oracle a future
//! multi-lane BLAKE3 kernel is tested against, so the pieces such a kernel replaces
//! ([`compress`], [`chunk_cv`], [`parent_cv`]) are separate and written for clarity.
#![cfg_attr(not(test), allow(dead_code))]

mod lanes;
pub(crate) mod many;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;

/// Bytes per compression block.
pub(crate) const BLOCK_LEN: usize = 64;
/// Bytes per chunk (16 blocks): the leaves of the tree.
pub(crate) const CHUNK_LEN: usize = 1024;
/// Bytes of a key and of a chaining value.
pub(crate) const KEY_LEN: usize = 32;

// Domain-separation flags (paper, table 3).
pub(crate) const CHUNK_START: u32 = 1 << 0;
pub(crate) const CHUNK_END: u32 = 1 << 1;
pub(crate) const PARENT: u32 = 1 << 2;
pub(crate) const ROOT: u32 = 1 << 3;
pub(crate) const KEYED_HASH: u32 = 1 << 4;
pub(crate) const DERIVE_KEY_CONTEXT: u32 = 1 << 5;
pub(crate) const DERIVE_KEY_MATERIAL: u32 = 1 << 6;

/// BLAKE3's IV: SHA-256's initial values. Also the key of the plain `hash` mode.
pub(crate) const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The message permutation applied between rounds.
pub(crate) const MSG_PERMUTATION: [usize; 16] =
    [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/// The quarter-round G on state words `a, b, c, d` with message words `x, y`.
fn g(v: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize, x: u32, y: u32) {
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
    v[d] = (v[d] ^ v[a]).rotate_right(16);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(12);
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
    v[d] = (v[d] ^ v[a]).rotate_right(8);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(7);
}

/// Little-endian words of a block.
pub(crate) fn words_of(block: &[u8; BLOCK_LEN]) -> [u32; 16] {
    let mut m = [0u32; 16];
    for (w, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes(bytes.try_into().unwrap());
    }
    m
}

/// The compression function: 7 rounds, full 16-word output.
///
/// The first 8 words of the result are the new chaining value; all 16 are one block of
/// root output (extendable output uses them all). `block` is zero-padded past `block_len`.
pub(crate) fn compress(
    cv: &[u32; 8],
    block: &[u8; BLOCK_LEN],
    block_len: u32,
    counter: u64,
    flags: u32,
) -> [u32; 16] {
    let mut m = words_of(block);
    let mut v = [
        cv[0],
        cv[1],
        cv[2],
        cv[3],
        cv[4],
        cv[5],
        cv[6],
        cv[7],
        IV[0],
        IV[1],
        IV[2],
        IV[3],
        counter as u32,
        (counter >> 32) as u32,
        block_len,
        flags,
    ];
    for round in 0..7 {
        // Columns, then diagonals.
        g(&mut v, 0, 4, 8, 12, m[0], m[1]);
        g(&mut v, 1, 5, 9, 13, m[2], m[3]);
        g(&mut v, 2, 6, 10, 14, m[4], m[5]);
        g(&mut v, 3, 7, 11, 15, m[6], m[7]);
        g(&mut v, 0, 5, 10, 15, m[8], m[9]);
        g(&mut v, 1, 6, 11, 12, m[10], m[11]);
        g(&mut v, 2, 7, 8, 13, m[12], m[13]);
        g(&mut v, 3, 4, 9, 14, m[14], m[15]);
        if round < 6 {
            m = MSG_PERMUTATION.map(|i| m[i]);
        }
    }
    for i in 0..8 {
        v[i] ^= v[i + 8];
        v[i + 8] ^= cv[i];
    }
    v
}

/// The first 8 words of a compression output.
fn first_8(words: [u32; 16]) -> [u32; 8] {
    words[..8].try_into().unwrap()
}

/// Key bytes as the 8 little-endian words used as the starting chaining value.
pub(crate) fn key_words(key: &[u8; KEY_LEN]) -> [u32; 8] {
    let mut k = [0u32; 8];
    for (w, bytes) in k.iter_mut().zip(key.chunks_exact(4)) {
        *w = u32::from_le_bytes(bytes.try_into().unwrap());
    }
    k
}

/// The inputs of a node's final compression, held back until we know whether the node is
/// the root (then it is compressed with `ROOT`, once per 64 bytes of output).
#[derive(Clone, Copy)]
pub(crate) struct Output {
    pub(crate) input_cv: [u32; 8],
    pub(crate) block: [u8; BLOCK_LEN],
    pub(crate) block_len: u32,
    /// Chunk index for chunk nodes, 0 for parents.
    pub(crate) counter: u64,
    pub(crate) flags: u32,
}

impl Output {
    /// The node's chaining value as a non-root node.
    pub(crate) fn chaining_value(&self) -> [u32; 8] {
        first_8(compress(
            &self.input_cv,
            &self.block,
            self.block_len,
            self.counter,
            self.flags,
        ))
    }

    /// Root output bytes: block `i` of output is the root compression with counter `i`.
    pub(crate) fn root_bytes(&self, out: &mut [u8]) {
        for (i, out_block) in out.chunks_mut(BLOCK_LEN).enumerate() {
            let words = compress(
                &self.input_cv,
                &self.block,
                self.block_len,
                i as u64,
                self.flags | ROOT,
            );
            for (bytes, w) in out_block.chunks_mut(4).zip(words) {
                bytes.copy_from_slice(&w.to_le_bytes()[..bytes.len()]);
            }
        }
    }
}

/// The [`Output`] of a parent node over two child chaining values.
pub(crate) fn parent_output(
    left: &[u32; 8],
    right: &[u32; 8],
    key: &[u32; 8],
    flags: u32,
) -> Output {
    let mut block = [0u8; BLOCK_LEN];
    for (bytes, w) in block.chunks_exact_mut(4).zip(left.iter().chain(right)) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    Output {
        input_cv: *key,
        block,
        block_len: BLOCK_LEN as u32,
        counter: 0,
        flags: flags | PARENT,
    }
}

/// Chaining value of a non-root parent node. `flags` are the mode flags (0, `KEYED_HASH`,
/// `DERIVE_KEY_*`); `key` is the mode's key words (`IV` for plain hashing).
pub(crate) fn parent_cv(left: &[u32; 8], right: &[u32; 8], key: &[u32; 8], flags: u32) -> [u32; 8] {
    parent_output(left, right, key, flags).chaining_value()
}

/// Incremental state of one chunk: the chaining value so far and a partial block.
#[derive(Clone)]
pub(crate) struct ChunkState {
    cv: [u32; 8],
    chunk_counter: u64,
    block: [u8; BLOCK_LEN],
    block_len: usize,
    blocks_compressed: usize,
    flags: u32,
}

impl ChunkState {
    pub(crate) fn new(key: &[u32; 8], chunk_counter: u64, flags: u32) -> Self {
        ChunkState {
            cv: *key,
            chunk_counter,
            block: [0; BLOCK_LEN],
            block_len: 0,
            blocks_compressed: 0,
            flags,
        }
    }

    /// Input bytes absorbed into this chunk.
    pub(crate) fn len(&self) -> usize {
        self.blocks_compressed * BLOCK_LEN + self.block_len
    }

    fn start_flag(&self) -> u32 {
        if self.blocks_compressed == 0 {
            CHUNK_START
        } else {
            0
        }
    }

    /// Absorb input; the caller keeps the total within [`CHUNK_LEN`].
    pub(crate) fn update(&mut self, mut data: &[u8]) {
        debug_assert!(self.len() + data.len() <= CHUNK_LEN);
        while !data.is_empty() {
            // A full block waits until more input shows it is not the chunk's last.
            if self.block_len == BLOCK_LEN {
                self.cv = first_8(compress(
                    &self.cv,
                    &self.block,
                    BLOCK_LEN as u32,
                    self.chunk_counter,
                    self.flags | self.start_flag(),
                ));
                self.blocks_compressed += 1;
                self.block = [0; BLOCK_LEN];
                self.block_len = 0;
            }
            let take = (BLOCK_LEN - self.block_len).min(data.len());
            self.block[self.block_len..self.block_len + take].copy_from_slice(&data[..take]);
            self.block_len += take;
            data = &data[take..];
        }
    }

    /// The chunk's last block, not yet compressed (an empty chunk has one empty block).
    pub(crate) fn output(&self) -> Output {
        Output {
            input_cv: self.cv,
            block: self.block,
            block_len: self.block_len as u32,
            counter: self.chunk_counter,
            flags: self.flags | self.start_flag() | CHUNK_END,
        }
    }
}

/// Chaining value of a non-root chunk of at most [`CHUNK_LEN`] bytes.
pub(crate) fn chunk_cv(chunk: &[u8], chunk_counter: u64, key: &[u32; 8], flags: u32) -> [u32; 8] {
    let mut state = ChunkState::new(key, chunk_counter, flags);
    state.update(chunk);
    state.output().chaining_value()
}

/// Reference BLAKE3 hasher: chunks are hashed in order and merged into a stack of subtree
/// chaining values, so memory stays at one chunk plus one CV per tree level.
#[derive(Clone)]
pub(crate) struct Blake3Ref {
    chunk: ChunkState,
    key: [u32; 8],
    flags: u32,
    /// CVs of complete subtrees, largest (leftmost) first.
    cv_stack: Vec<[u32; 8]>,
}

impl Blake3Ref {
    fn with_key_and_flags(key: [u32; 8], flags: u32) -> Self {
        Blake3Ref {
            chunk: ChunkState::new(&key, 0, flags),
            key,
            flags,
            cv_stack: Vec::new(),
        }
    }

    /// Plain `hash` mode.
    pub(crate) fn new() -> Self {
        Self::with_key_and_flags(IV, 0)
    }

    /// `keyed_hash` mode with a 32-byte key.
    pub(crate) fn new_keyed(key: &[u8; KEY_LEN]) -> Self {
        Self::with_key_and_flags(key_words(key), KEYED_HASH)
    }

    /// `derive_key` mode: the context string is hashed to a key, which then keys the hash
    /// of the key material fed through `update`.
    pub(crate) fn new_derive_key(context: &str) -> Self {
        let mut ctx = Self::with_key_and_flags(IV, DERIVE_KEY_CONTEXT);
        ctx.update(context.as_bytes());
        let mut context_key = [0u8; KEY_LEN];
        ctx.finalize(&mut context_key);
        Self::with_key_and_flags(key_words(&context_key), DERIVE_KEY_MATERIAL)
    }

    /// Push a finished chunk's CV, first merging every subtree it completes: after
    /// `total_chunks` chunks, one merge per trailing zero bit of `total_chunks`.
    fn push_chunk_cv(&mut self, mut cv: [u32; 8], mut total_chunks: u64) {
        while total_chunks & 1 == 0 {
            let left = self.cv_stack.pop().expect("a left sibling for every merge");
            cv = parent_cv(&left, &cv, &self.key, self.flags);
            total_chunks >>= 1;
        }
        self.cv_stack.push(cv);
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            // A full chunk is only finished once more input shows it is not the root.
            if self.chunk.len() == CHUNK_LEN {
                let cv = self.chunk.output().chaining_value();
                let total_chunks = self.chunk.chunk_counter + 1;
                self.push_chunk_cv(cv, total_chunks);
                self.chunk = ChunkState::new(&self.key, total_chunks, self.flags);
            }
            let take = (CHUNK_LEN - self.chunk.len()).min(data.len());
            self.chunk.update(&data[..take]);
            data = &data[take..];
        }
    }

    /// The root node: the current chunk merged with every stacked subtree, right to left.
    pub(crate) fn root_output(&self) -> Output {
        let mut output = self.chunk.output();
        for left in self.cv_stack.iter().rev() {
            output = parent_output(left, &output.chaining_value(), &self.key, self.flags);
        }
        output
    }

    /// Fill `out` with output of any length (the first 32 bytes are the default hash).
    pub(crate) fn finalize(&self, out: &mut [u8]) {
        self.root_output().root_bytes(out);
    }
}

/// BLAKE3 of a whole input by the tree's recursive definition (left subtree = the largest
/// power-of-two number of chunks that leaves at least one byte on the right): an
/// independent check of [`Blake3Ref`]'s stack merging. Returns the root [`Output`].
pub(crate) fn root_output_recursive(input: &[u8], key: &[u32; 8], flags: u32) -> Output {
    fn node(input: &[u8], first_chunk: u64, key: &[u32; 8], flags: u32) -> Output {
        if input.len() <= CHUNK_LEN {
            let mut c = ChunkState::new(key, first_chunk, flags);
            c.update(input);
            return c.output();
        }
        let chunks = input.len().div_ceil(CHUNK_LEN);
        let left_chunks = 1usize << (usize::BITS - 1 - (chunks - 1).leading_zeros());
        let (l, r) = input.split_at(left_chunks * CHUNK_LEN);
        let left = node(l, first_chunk, key, flags).chaining_value();
        let right = node(r, first_chunk + left_chunks as u64, key, flags).chaining_value();
        parent_output(&left, &right, key, flags)
    }
    node(input, 0, key, flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blake2::test_common as common;

    /// The test-vector input pattern: byte i is i mod 251.
    fn input(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8).collect()
    }

    fn ref_hash(data: &[u8], out_len: usize) -> Vec<u8> {
        let mut h = Blake3Ref::new();
        h.update(data);
        let mut out = vec![0; out_len];
        h.finalize(&mut out);
        out
    }

    #[test]
    fn empty_and_abc() {
        assert_eq!(
            hex::encode(ref_hash(b"", 32)),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
        assert_eq!(
            hex::encode(ref_hash(b"abc", 32)),
            "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
        );
    }

    /// Lengths around block, chunk and subtree boundaries, all three modes, short and
    /// extended output, against the blake3 crate; plus the recursive tree definition.
    #[test]
    fn matches_blake3_crate() {
        let data = input(41 * CHUNK_LEN);
        let key = *b"whats the Elvish word for friend";
        let ctx = "lanesum 2025 blake3 reference test";
        let mut lens: Vec<usize> = (0..=200).collect();
        for c in [1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40] {
            for d in [-65isize, -64, -1, 0, 1, 64] {
                lens.push((c * CHUNK_LEN).wrapping_add_signed(d));
            }
        }
        for len in lens {
            let msg = &data[..len];
            for out_len in [32usize, 1, 65, 200] {
                let mut want = vec![0; out_len];
                blake3::Hasher::new()
                    .update(msg)
                    .finalize_xof()
                    .fill(&mut want);
                assert_eq!(ref_hash(msg, out_len), want, "hash len {len} out {out_len}");
            }
            let mut k = Blake3Ref::new_keyed(&key);
            k.update(msg);
            let mut got = [0; 32];
            k.finalize(&mut got);
            assert_eq!(
                got,
                *blake3::keyed_hash(&key, msg).as_bytes(),
                "keyed {len}"
            );

            let mut d = Blake3Ref::new_derive_key(ctx);
            d.update(msg);
            d.finalize(&mut got);
            assert_eq!(got, blake3::derive_key(ctx, msg), "derive_key {len}");

            let mut rec = [0; 32];
            root_output_recursive(msg, &IV, 0).root_bytes(&mut rec);
            assert_eq!(rec, *blake3::hash(msg).as_bytes(), "recursive {len}");
        }
    }

    /// Piecewise updates (including empty ones and pieces straddling chunks) change nothing.
    #[test]
    fn streaming_matches_one_shot() {
        let data = input(5 * CHUNK_LEN + 77);
        let want = ref_hash(&data, 64);
        for piece in [1usize, 63, 64, 65, 1000, 1024, 1025, 3000] {
            let mut h = Blake3Ref::new();
            for chunk in data.chunks(piece) {
                h.update(chunk);
                h.update(&[]);
            }
            let mut got = vec![0; 64];
            h.finalize(&mut got);
            assert_eq!(got, want, "piece {piece}");
        }
    }

    /// `chunk_cv` and `parent_cv` compose into the hash exactly as a kernel will use them.
    #[test]
    fn chunk_and_parent_cvs_compose() {
        let data = input(3 * CHUNK_LEN + 5);
        let cvs: Vec<[u32; 8]> = data
            .chunks(CHUNK_LEN)
            .enumerate()
            .map(|(i, c)| chunk_cv(c, i as u64, &IV, 0))
            .collect();
        let left = parent_cv(&cvs[0], &cvs[1], &IV, 0);
        let right = parent_cv(&cvs[2], &cvs[3], &IV, 0);
        let mut out = [0u8; 32];
        parent_output(&left, &right, &IV, 0).root_bytes(&mut out);
        assert_eq!(out, *blake3::hash(&data).as_bytes());
    }

    /// test_vectors.json: every case in all three modes at the full extended length.
    #[test]
    fn official_vectors() {
        let dir = common::vectors();
        let text = std::fs::read_to_string(dir.join("blake3/test_vectors.json")).unwrap();
        let tv: serde_json::Value = serde_json::from_str(&text).unwrap();
        let key: [u8; KEY_LEN] = tv["key"].as_str().unwrap().as_bytes().try_into().unwrap();
        let ctx = tv["context_string"].as_str().unwrap();
        let cases = tv["cases"].as_array().unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let len = case["input_len"].as_u64().unwrap() as usize;
            let msg = input(len);
            for (mode, mut h) in [
                ("hash", Blake3Ref::new()),
                ("keyed_hash", Blake3Ref::new_keyed(&key)),
                ("derive_key", Blake3Ref::new_derive_key(ctx)),
            ] {
                let want = case[mode].as_str().unwrap();
                h.update(&msg);
                let mut got = vec![0; want.len() / 2];
                h.finalize(&mut got);
                assert_eq!(hex::encode(&got), want, "{mode} len {len}");
                // The default-length output is the prefix of the extended one.
                let mut short = [0u8; 32];
                h.finalize(&mut short);
                assert_eq!(short[..], got[..32], "{mode} len {len} short");
            }
        }
    }
}
