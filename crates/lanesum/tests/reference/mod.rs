//! Reference digests for every algorithm, shared by the differential tests and (via
//! `#[path]`) the fuzz targets in `fuzz/`: RustCrypto (MD5, SHA-1, SHA-2, SHA-3, SHAKE, SM3,
//! BLAKE2 at every length), `crc` and `twox-hash` for the checksums, the `blake3` crate, and
//! MD5P8, the BitTorrent v2 root and `sum` written out from their definitions.
//!
//! Most are independent of lanesum's code. Some are the crate a lanesum path itself calls,
//! and so check lanesum's other paths against it, not that crate: the `blake3` crate
//! (lanesum's single-stream BLAKE3; its lanes are lanesum's own), `sha3`/`shake` (lone
//! SHA-3 and SHAKE streams; the lanes' Keccak is lanesum's own), `sha2`'s SHA-512
//! compression (lanesum's where BMI2 is missing), and `blake2b_simd`/`blake2s_simd`'s tree
//! modes for BLAKE2bp/sp, which are lanesum's BLAKE2bp/sp (checked on their own against the
//! BLAKE2 known answers, `vectors/blake2/blake2-kat.json`, in `lanesum::modes`).

use blake2::digest::consts::*;
use lanesum::Algorithm;
use sha2::Digest as _;

macro_rules! blake2_var {
    ($ty:ident, $n:expr, $data:expr, $($k:literal => $u:ident),*) => {
        match $n {
            $($k => blake2::$ty::<$u>::digest($data).to_vec(),)*
            n => unreachable!("BLAKE2 length {n}"),
        }
    };
}

fn blake2b_ref(n: u8, data: &[u8]) -> Vec<u8> {
    blake2_var!(Blake2b, n, data, 1 => U1, 2 => U2, 3 => U3, 4 => U4, 5 => U5, 6 => U6, 7 => U7, 8 => U8, 9 => U9, 10 => U10, 11 => U11, 12 => U12, 13 => U13, 14 => U14, 15 => U15, 16 => U16, 17 => U17, 18 => U18, 19 => U19, 20 => U20, 21 => U21, 22 => U22, 23 => U23, 24 => U24, 25 => U25, 26 => U26, 27 => U27, 28 => U28, 29 => U29, 30 => U30, 31 => U31, 32 => U32, 33 => U33, 34 => U34, 35 => U35, 36 => U36, 37 => U37, 38 => U38, 39 => U39, 40 => U40, 41 => U41, 42 => U42, 43 => U43, 44 => U44, 45 => U45, 46 => U46, 47 => U47, 48 => U48, 49 => U49, 50 => U50, 51 => U51, 52 => U52, 53 => U53, 54 => U54, 55 => U55, 56 => U56, 57 => U57, 58 => U58, 59 => U59, 60 => U60, 61 => U61, 62 => U62, 63 => U63, 64 => U64)
}

fn blake2s_ref(n: u8, data: &[u8]) -> Vec<u8> {
    blake2_var!(Blake2s, n, data, 1 => U1, 2 => U2, 3 => U3, 4 => U4, 5 => U5, 6 => U6, 7 => U7, 8 => U8, 9 => U9, 10 => U10, 11 => U11, 12 => U12, 13 => U13, 14 => U14, 15 => U15, 16 => U16, 17 => U17, 18 => U18, 19 => U19, 20 => U20, 21 => U21, 22 => U22, 23 => U23, 24 => U24, 25 => U25, 26 => U26, 27 => U27, 28 => U28, 29 => U29, 30 => U30, 31 => U31, 32 => U32)
}

fn crc32_ref(alg: &'static crc::Algorithm<u32>, data: &[u8]) -> Vec<u8> {
    crc::Crc::<u32>::new(alg)
        .checksum(data)
        .to_be_bytes()
        .to_vec()
}

/// POSIX cksum: CRC-32/CKSUM of the data, then its length in as few bytes as it takes.
fn posix_cksum(data: &[u8]) -> Vec<u8> {
    let crc = crc::Crc::<u32>::new(&crc::CRC_32_CKSUM);
    let mut d = crc.digest();
    d.update(data);
    let mut n = data.len() as u64;
    while n > 0 {
        d.update(&[n as u8]);
        n >>= 8;
    }
    d.finalize().to_be_bytes().to_vec()
}

fn bsd_sum(data: &[u8]) -> Vec<u8> {
    let mut s: u16 = 0;
    for &b in data {
        s = ((s >> 1) | ((s & 1) << 15)).wrapping_add(b as u16);
    }
    s.to_be_bytes().to_vec()
}

fn sysv_sum(data: &[u8]) -> Vec<u8> {
    let s: u32 = data.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32));
    let r = (s & 0xffff) + (s >> 16);
    (((r & 0xffff) + (r >> 16)) as u16).to_be_bytes().to_vec()
}

fn shake_ref<X: Default + sha3::digest::Update + sha3::digest::ExtendableOutput>(
    data: &[u8],
    n: usize,
) -> Vec<u8> {
    let mut h = X::default();
    h.update(data);
    let mut out = vec![0; n];
    h.finalize_xof_into(&mut out);
    out
}

/// rsync's MD5P8 from its definition, on RustCrypto's MD5 compression.
fn md5p8_ref(data: &[u8]) -> Vec<u8> {
    const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut states = [IV; 8];
    let mut padded = data.to_vec();
    padded.resize(data.len().div_ceil(512) * 512, 0);
    for (k, block) in padded.chunks_exact(64).enumerate() {
        let b: [u8; 64] = block.try_into().unwrap();
        md5::block_api::compress(&mut states[k % 8], &[b]);
    }
    let mut summary = Vec::with_capacity(136);
    for s in &states {
        for w in s {
            summary.extend_from_slice(&w.to_le_bytes());
        }
    }
    summary.extend_from_slice(&(data.len() as u64 * 8).to_le_bytes());
    md5::Md5::digest(&summary).to_vec()
}

/// The BEP 52 pieces root from its definition (32 zero bytes for an empty input, as
/// lanesum's `Algorithm::Btv2` documents).
fn btv2_ref(data: &[u8]) -> Vec<u8> {
    if data.is_empty() {
        return vec![0; 32];
    }
    let mut layer: Vec<Vec<u8>> = data
        .chunks(16 << 10)
        .map(|c| sha2::Sha256::digest(c).to_vec())
        .collect();
    layer.resize(layer.len().next_power_of_two(), vec![0; 32]);
    while layer.len() > 1 {
        layer = layer
            .chunks_exact(2)
            .map(|p| {
                let mut h = sha2::Sha256::new();
                h.update(&p[0]);
                h.update(&p[1]);
                h.finalize().to_vec()
            })
            .collect();
    }
    layer.pop().unwrap()
}

/// The digest of `data` under `alg` (see the module's doc for which are independent of
/// lanesum's own code).
pub fn reference(alg: Algorithm, data: &[u8]) -> Vec<u8> {
    match alg {
        Algorithm::Md5 => md5::Md5::digest(data).to_vec(),
        Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algorithm::Sha224 => sha2::Sha224::digest(data).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Algorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
        Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
        Algorithm::Sha512_224 => sha2::Sha512_224::digest(data).to_vec(),
        Algorithm::Sha512_256 => sha2::Sha512_256::digest(data).to_vec(),
        Algorithm::Blake2b(n) => blake2b_ref(n, data),
        Algorithm::Blake2s(n) => blake2s_ref(n, data),
        Algorithm::Blake3(n) => {
            let mut out = vec![0; n];
            blake3::Hasher::new()
                .update(data)
                .finalize_xof()
                .fill(&mut out);
            out
        }
        Algorithm::Md5p8 => md5p8_ref(data),
        Algorithm::Blake2bp(n) => blake2b_simd::blake2bp::Params::new()
            .hash_length(n as usize)
            .hash(data)
            .as_bytes()
            .to_vec(),
        Algorithm::Blake2sp(n) => blake2s_simd::blake2sp::Params::new()
            .hash_length(n as usize)
            .hash(data)
            .as_bytes()
            .to_vec(),
        Algorithm::Btv2 => btv2_ref(data),
        Algorithm::Crc32 => crc32_ref(&crc::CRC_32_ISO_HDLC, data),
        Algorithm::Crc32c => crc32_ref(&crc::CRC_32_ISCSI, data),
        Algorithm::Crc64Nvme => crc::Crc::<u64>::new(&crc::CRC_64_NVME)
            .checksum(data)
            .to_be_bytes()
            .to_vec(),
        Algorithm::Crc => posix_cksum(data),
        Algorithm::SumBsd => bsd_sum(data),
        Algorithm::SumSysv => sysv_sum(data),
        Algorithm::Xxh64 => twox_hash::XxHash64::oneshot(0, data).to_be_bytes().to_vec(),
        Algorithm::Xxh3 => twox_hash::XxHash3_64::oneshot(data).to_be_bytes().to_vec(),
        Algorithm::Xxh128 => twox_hash::XxHash3_128::oneshot(data).to_be_bytes().to_vec(),
        Algorithm::Sha3_224 => sha3::Sha3_224::digest(data).to_vec(),
        Algorithm::Sha3_256 => sha3::Sha3_256::digest(data).to_vec(),
        Algorithm::Sha3_384 => sha3::Sha3_384::digest(data).to_vec(),
        Algorithm::Sha3_512 => sha3::Sha3_512::digest(data).to_vec(),
        Algorithm::Shake128(n) => shake_ref::<shake::Shake128>(data, n),
        Algorithm::Shake256(n) => shake_ref::<shake::Shake256>(data, n),
        Algorithm::Sm3 => sm3::Sm3::digest(data).to_vec(),
    }
}
