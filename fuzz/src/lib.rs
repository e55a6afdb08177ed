//! Shared pieces of the fuzz targets: reading the fuzzer's bytes, choosing an algorithm,
//! generating data, and reference digests from crates independent of lanesum's code.

use lanesum::Algorithm;

/// A cursor over the fuzzer's bytes; reads past the end give zeros.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u24(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), 0])
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        let r = &self.data[self.pos.min(self.data.len())..];
        self.pos = self.data.len();
        r
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
}

/// Every algorithm, variable lengths included, from two selector bytes.
pub fn pick_algorithm(sel: u8, len: u8) -> Algorithm {
    let l = len as usize;
    match sel % 31 {
        0 => Algorithm::Md5,
        1 => Algorithm::Sha1,
        2 => Algorithm::Sha224,
        3 => Algorithm::Sha256,
        4 => Algorithm::Sha384,
        5 => Algorithm::Sha512,
        6 => Algorithm::Sha512_224,
        7 => Algorithm::Sha512_256,
        8 => Algorithm::Blake2b(1 + len % 64),
        9 => Algorithm::Blake2s(1 + len % 32),
        // 0 (b3sum -l 0) up to 255: past the 64 bytes a Digest keeps inline.
        10 => Algorithm::Blake3(l),
        11 => Algorithm::Md5p8,
        12 => Algorithm::Blake2bp(1 + len % 64),
        13 => Algorithm::Blake2sp(1 + len % 32),
        14 => Algorithm::Btv2,
        15 => Algorithm::Crc32,
        16 => Algorithm::Crc32c,
        17 => Algorithm::Crc64Nvme,
        18 => Algorithm::Crc,
        19 => Algorithm::SumBsd,
        20 => Algorithm::SumSysv,
        21 => Algorithm::Xxh64,
        22 => Algorithm::Xxh3,
        23 => Algorithm::Xxh128,
        24 => Algorithm::Sha3_224,
        25 => Algorithm::Sha3_256,
        26 => Algorithm::Sha3_384,
        27 => Algorithm::Sha3_512,
        // Up to 511 bytes: several squeezed blocks.
        28 => Algorithm::Shake128(1 + 2 * l),
        29 => Algorithm::Shake256(1 + 2 * l),
        _ => Algorithm::Sm3,
    }
}

/// `len` pseudo-random bytes from `seed` (xorshift64*).
pub fn generate(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(len);
    v
}

#[path = "../../crates/lanesum/tests/reference/mod.rs"]
mod reference;
pub use reference::reference;

/// Panics unless `got` is `want`, naming what was compared.
#[track_caller]
pub fn check(what: &str, alg: Algorithm, len: usize, got: &[u8], want: &[u8]) {
    if got != want {
        panic!(
            "WRONG DIGEST: {what} alg={alg:?} len={len} level={}\n got  {}\n want {}",
            lanesum::isa::active(),
            lanesum::hex_lower(got),
            lanesum::hex_lower(want)
        );
    }
}

/// Say once which level the process runs at (and refuse a bad `LANESUM_ISA`).
pub fn announce_level() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| match lanesum::isa::try_active() {
        Ok(f) => eprintln!("lanesum-fuzz: ISA level {f}"),
        Err(e) => panic!("bad LANESUM_ISA: {e}"),
    });
}
