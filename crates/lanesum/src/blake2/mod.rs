//! BLAKE2b and BLAKE2s (RFC 7693): plain scalar compression functions and reference
//! hashers.
//!
//! Production hashing goes through the `blake2b_simd` / `blake2s_simd` crates (one
//! stream, and many messages side by side: `many`); this module is the oracle that they
//! and a future multi-lane BLAKE2 kernel (and BLAKE2bp/sp built on it) are tested
//! against, so it favours following the RFC line by line over speed.
#![cfg_attr(not(test), allow(dead_code))]

pub(crate) mod many;

/// BLAKE2b's initial values: SHA-512's (RFC 7693, section 2.6).
pub(crate) const IV_B: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// BLAKE2s's initial values: SHA-256's.
pub(crate) const IV_S: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Message word schedule: round `r` reads message words in the order `SIGMA[r % 10]`.
pub(crate) const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/// BLAKE2b block size in bytes.
pub(crate) const BLOCK_B: usize = 128;
/// BLAKE2s block size in bytes.
pub(crate) const BLOCK_S: usize = 64;

/// The (column, then diagonal) quadruples of the 4x4 working state each round mixes.
/// BLAKE3 keeps BLAKE2s's round structure, so its portable lanes use this table too.
pub(crate) const MIX: [[usize; 4]; 8] = [
    [0, 4, 8, 12],
    [1, 5, 9, 13],
    [2, 6, 10, 14],
    [3, 7, 11, 15],
    [0, 5, 10, 15],
    [1, 6, 11, 12],
    [2, 7, 8, 13],
    [3, 4, 9, 14],
];

/// BLAKE2b's compression F (RFC 7693, 3.2): 12 rounds over 64-bit words.
///
/// `counter` is the number of message bytes absorbed so far including this block;
/// `last` marks the final block (sets the finalisation flag `f0`).
pub(crate) fn compress_b(h: &mut [u64; 8], block: &[u8; 128], counter: u128, last: bool) {
    let mut m = [0u64; 16];
    for (w, bytes) in m.iter_mut().zip(block.chunks_exact(8)) {
        *w = u64::from_le_bytes(bytes.try_into().unwrap());
    }
    let mut v = [0u64; 16];
    v[..8].copy_from_slice(h);
    v[8..].copy_from_slice(&IV_B);
    v[12] ^= counter as u64;
    v[13] ^= (counter >> 64) as u64;
    if last {
        v[14] = !v[14];
    }
    for round in 0..12 {
        let s = &SIGMA[round % 10];
        for (i, &[a, b, c, d]) in MIX.iter().enumerate() {
            let (x, y) = (m[s[2 * i]], m[s[2 * i + 1]]);
            v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
            v[d] = (v[d] ^ v[a]).rotate_right(32);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right(24);
            v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
            v[d] = (v[d] ^ v[a]).rotate_right(16);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right(63);
        }
    }
    for i in 0..8 {
        h[i] ^= v[i] ^ v[i + 8];
    }
}

/// BLAKE2s's compression F (RFC 7693, 3.2): 10 rounds over 32-bit words.
///
/// `counter` is the number of message bytes absorbed so far including this block;
/// `last` marks the final block (sets the finalisation flag `f0`).
pub(crate) fn compress_s(h: &mut [u32; 8], block: &[u8; 64], counter: u64, last: bool) {
    let mut m = [0u32; 16];
    for (w, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes(bytes.try_into().unwrap());
    }
    let mut v = [0u32; 16];
    v[..8].copy_from_slice(h);
    v[8..].copy_from_slice(&IV_S);
    v[12] ^= counter as u32;
    v[13] ^= (counter >> 32) as u32;
    if last {
        v[14] = !v[14];
    }
    for s in &SIGMA {
        for (i, &[a, b, c, d]) in MIX.iter().enumerate() {
            let (x, y) = (m[s[2 * i]], m[s[2 * i + 1]]);
            v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
            v[d] = (v[d] ^ v[a]).rotate_right(16);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right(12);
            v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
            v[d] = (v[d] ^ v[a]).rotate_right(8);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right(7);
        }
    }
    for i in 0..8 {
        h[i] ^= v[i] ^ v[i + 8];
    }
}

/// Reference BLAKE2b hasher: sequential mode with key and output length, no salt or
/// personalisation (RFC 7693 section 3.3).
#[derive(Clone)]
pub(crate) struct Blake2bRef {
    h: [u64; 8],
    buf: [u8; BLOCK_B],
    buf_len: usize,
    /// Bytes compressed so far (the key block counts as message).
    counter: u128,
    out_len: usize,
}

impl Blake2bRef {
    /// # Panics
    /// Unless `1 <= out_len <= 64` and `key.len() <= 64`.
    pub(crate) fn new(out_len: usize, key: &[u8]) -> Self {
        assert!(
            (1..=64).contains(&out_len),
            "BLAKE2b output length {out_len}"
        );
        assert!(key.len() <= 64, "BLAKE2b key length {}", key.len());
        let mut h = IV_B;
        // Parameter block word 0: digest length, key length, fanout 1, depth 1.
        h[0] ^= 0x0101_0000 ^ ((key.len() as u64) << 8) ^ out_len as u64;
        let mut s = Blake2bRef {
            h,
            buf: [0; BLOCK_B],
            buf_len: 0,
            counter: 0,
            out_len,
        };
        if !key.is_empty() {
            // The key, zero-padded to a whole block, is the first block of the message.
            s.buf[..key.len()].copy_from_slice(key);
            s.buf_len = BLOCK_B;
        }
        s
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            // A full buffer is only compressed once more input proves it is not the last.
            if self.buf_len == BLOCK_B {
                self.counter += BLOCK_B as u128;
                compress_b(&mut self.h, &self.buf, self.counter, false);
                self.buf_len = 0;
            }
            let take = (BLOCK_B - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
        }
    }

    pub(crate) fn finalize(mut self) -> Vec<u8> {
        // The last block is zero-padded; the counter counts only real bytes. An empty
        // unkeyed message is one all-zero block with counter 0.
        self.counter += self.buf_len as u128;
        self.buf[self.buf_len..].fill(0);
        compress_b(&mut self.h, &self.buf, self.counter, true);
        self.h
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(self.out_len)
            .collect()
    }

    /// The digest of `data` in one call: the reference the tests compare against.
    pub(crate) fn digest(out_len: usize, key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut h = Blake2bRef::new(out_len, key);
        h.update(data);
        h.finalize()
    }
}

/// Reference BLAKE2s hasher: sequential mode with key and output length, no salt or
/// personalisation (RFC 7693 section 3.3).
#[derive(Clone)]
pub(crate) struct Blake2sRef {
    h: [u32; 8],
    buf: [u8; BLOCK_S],
    buf_len: usize,
    /// Bytes compressed so far (the key block counts as message).
    counter: u64,
    out_len: usize,
}

impl Blake2sRef {
    /// # Panics
    /// Unless `1 <= out_len <= 32` and `key.len() <= 32`.
    pub(crate) fn new(out_len: usize, key: &[u8]) -> Self {
        assert!(
            (1..=32).contains(&out_len),
            "BLAKE2s output length {out_len}"
        );
        assert!(key.len() <= 32, "BLAKE2s key length {}", key.len());
        let mut h = IV_S;
        // Parameter block word 0: digest length, key length, fanout 1, depth 1.
        h[0] ^= 0x0101_0000 ^ ((key.len() as u32) << 8) ^ out_len as u32;
        let mut s = Blake2sRef {
            h,
            buf: [0; BLOCK_S],
            buf_len: 0,
            counter: 0,
            out_len,
        };
        if !key.is_empty() {
            // The key, zero-padded to a whole block, is the first block of the message.
            s.buf[..key.len()].copy_from_slice(key);
            s.buf_len = BLOCK_S;
        }
        s
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            // A full buffer is only compressed once more input proves it is not the last.
            if self.buf_len == BLOCK_S {
                self.counter += BLOCK_S as u64;
                compress_s(&mut self.h, &self.buf, self.counter, false);
                self.buf_len = 0;
            }
            let take = (BLOCK_S - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
        }
    }

    pub(crate) fn finalize(mut self) -> Vec<u8> {
        // The last block is zero-padded; the counter counts only real bytes. An empty
        // unkeyed message is one all-zero block with counter 0.
        self.counter += self.buf_len as u64;
        self.buf[self.buf_len..].fill(0);
        compress_s(&mut self.h, &self.buf, self.counter, true);
        self.h
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(self.out_len)
            .collect()
    }

    /// The digest of `data` in one call: the reference the tests compare against.
    pub(crate) fn digest(out_len: usize, key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut h = Blake2sRef::new(out_len, key);
        h.update(data);
        h.finalize()
    }
}

/// The integration tests' vector-folder lookup, so unit and integration tests find the
/// same folder (the BLAKE3 unit tests use it from here too).
#[cfg(test)]
#[path = "../../tests/common/mod.rs"]
pub(crate) mod test_common;

#[cfg(test)]
mod tests {
    use super::*;
    use test_common as common;

    fn input(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + 3) as u8).collect()
    }

    /// RFC 7693 appendices A and B: BLAKE2b-512 and BLAKE2s-256 of "abc".
    #[test]
    fn rfc7693_abc() {
        assert_eq!(
            hex::encode(Blake2bRef::digest(64, b"", b"abc")),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
             7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
        );
        assert_eq!(
            hex::encode(Blake2sRef::digest(32, b"", b"abc")),
            "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"
        );
    }

    /// Every length around block boundaries, every output length, keys of several sizes,
    /// against the blake2b_simd / blake2s_simd crates.
    #[test]
    fn matches_simd_crates() {
        let data = input(1100);
        let lens = (0..=300).chain([383, 384, 385, 511, 512, 513, 1023, 1024, 1025, 1100]);
        for len in lens {
            let msg = &data[..len];
            for key_len in [0usize, 1, 17, 32, 64] {
                let key = &data[500..500 + key_len];
                for out_len in [1usize, 20, 32, 48, 64] {
                    let want = blake2b_simd::Params::new()
                        .hash_length(out_len)
                        .key(key)
                        .hash(msg);
                    assert_eq!(
                        Blake2bRef::digest(out_len, key, msg),
                        want.as_bytes(),
                        "blake2b len {len} key {key_len} out {out_len}"
                    );
                    if key_len <= 32 && out_len <= 32 {
                        let want = blake2s_simd::Params::new()
                            .hash_length(out_len)
                            .key(key)
                            .hash(msg);
                        assert_eq!(
                            Blake2sRef::digest(out_len, key, msg),
                            want.as_bytes(),
                            "blake2s len {len} key {key_len} out {out_len}"
                        );
                    }
                }
            }
        }
    }

    /// Feeding the reference hashers piecewise (including empty pieces) changes nothing.
    #[test]
    fn streaming_matches_one_shot() {
        let data = input(700);
        for len in [0usize, 1, 63, 64, 65, 127, 128, 129, 256, 700] {
            for piece in [1usize, 3, 64, 100, 128] {
                let mut b = Blake2bRef::new(64, b"k");
                let mut s = Blake2sRef::new(32, b"k");
                for chunk in data[..len].chunks(piece) {
                    b.update(chunk);
                    b.update(&[]);
                    s.update(chunk);
                }
                assert_eq!(
                    b.finalize(),
                    Blake2bRef::digest(64, b"k", &data[..len]),
                    "{len}/{piece}"
                );
                assert_eq!(
                    s.finalize(),
                    Blake2sRef::digest(32, b"k", &data[..len]),
                    "{len}/{piece}"
                );
            }
        }
    }

    /// blake2-kat.json: every BLAKE2b and BLAKE2s vector, keyed and unkeyed, through the
    /// reference hashers (the integration tests check the unkeyed ones through `hash`).
    #[test]
    fn kat_file() {
        let dir = common::vectors();
        let text = std::fs::read_to_string(dir.join("blake2/blake2-kat.json")).unwrap();
        let kat: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (mut b, mut s) = (0, 0);
        for case in kat.as_array().unwrap() {
            let msg = hex::decode(case["in"].as_str().unwrap()).unwrap();
            let key = hex::decode(case["key"].as_str().unwrap()).unwrap();
            let want = case["out"].as_str().unwrap();
            let got = match case["hash"].as_str().unwrap() {
                "blake2b" => {
                    b += 1;
                    Blake2bRef::digest(want.len() / 2, &key, &msg)
                }
                "blake2s" => {
                    s += 1;
                    Blake2sRef::digest(want.len() / 2, &key, &msg)
                }
                _ => continue,
            };
            assert_eq!(hex::encode(got), want, "{case}");
        }
        assert_eq!(
            (b, s),
            (512, 512),
            "expected 256 keyed + 256 unkeyed of each"
        );
    }
}
