//! Joining the CRCs of consecutive pieces: `crc(A ‖ B)` from `crc(A)`, `crc(B)` and the
//! length of `B`, in a few microseconds.
//!
//! crc-fast's own combine (zlib's method) builds the operator for `len` zero bytes by
//! squaring a 64 x 64 GF(2) matrix once per bit of `len`, every call: 120-170 µs on
//! Zen 3. A CRC split over 16 cores combines 15 pieces per write, so that serial step
//! cost several times the CRC itself. Here the operators for 2^k zero bytes are built
//! once per algorithm, and a combine applies one per set bit of `len`: at most 64
//! matrix-vector products.

use std::sync::OnceLock;

use crc_fast::CrcAlgorithm;

/// A GF(2)-linear map on a CRC register: entry `j` is the image of bit `j`.
type Op = [u64; 64];

fn apply(op: &Op, mut v: u64) -> u64 {
    let mut out = 0;
    let mut j = 0;
    while v != 0 {
        if v & 1 != 0 {
            out ^= op[j];
        }
        v >>= 1;
        j += 1;
    }
    out
}

/// `op` applied twice.
fn square(op: &Op) -> Op {
    std::array::from_fn(|j| apply(op, op[j]))
}

/// The register form of a CRC, as crc-fast keeps it: `finalize` is `state ^ xorout`.
struct Params {
    width: u32,
    /// The generator in the register's bit order (reversed for a reflected CRC).
    poly: u64,
    reflected: bool,
    init: u64,
    xorout: u64,
}

fn params(alg: CrcAlgorithm) -> Params {
    const ONES32: u64 = 0xffff_ffff;
    match alg {
        CrcAlgorithm::Crc32IsoHdlc => Params {
            width: 32,
            poly: 0xedb8_8320,
            reflected: true,
            init: ONES32,
            xorout: ONES32,
        },
        CrcAlgorithm::Crc32Iscsi => Params {
            width: 32,
            poly: 0x82f6_3b78,
            reflected: true,
            init: ONES32,
            xorout: ONES32,
        },
        CrcAlgorithm::Crc64Nvme => Params {
            width: 64,
            poly: 0x9a6c_9329_ac4b_c9b5,
            reflected: true,
            init: u64::MAX,
            xorout: u64::MAX,
        },
        CrcAlgorithm::Crc32Cksum => Params {
            width: 32,
            poly: 0x04c1_1db7,
            reflected: false,
            init: 0,
            xorout: ONES32,
        },
        other => unreachable!("no combine table for {other:?}"),
    }
}

/// The operators for 2^k zero bytes, k = 0..64, of one CRC.
struct Shifts {
    pow2: Box<[Op; 64]>,
    init: u64,
    xorout: u64,
}

impl Shifts {
    fn build(alg: CrcAlgorithm) -> Shifts {
        let p = params(alg);
        let w = p.width as usize;
        // One zero bit: the register shifts by one, folding in the generator.
        let mut bit = [0u64; 64];
        if p.reflected {
            bit[0] = p.poly;
            for (j, b) in bit.iter_mut().enumerate().take(w).skip(1) {
                *b = 1 << (j - 1);
            }
        } else {
            for (j, b) in bit.iter_mut().enumerate().take(w - 1) {
                *b = 1 << (j + 1);
            }
            bit[w - 1] = p.poly;
        }
        let byte = square(&square(&square(&bit)));
        let mut pow2 = Box::new([[0u64; 64]; 64]);
        pow2[0] = byte;
        for k in 1..64 {
            pow2[k] = square(&pow2[k - 1]);
        }
        Shifts {
            pow2,
            init: p.init,
            xorout: p.xorout,
        }
    }

    fn get(alg: CrcAlgorithm) -> &'static Shifts {
        static TABLES: [OnceLock<Shifts>; 4] = [const { OnceLock::new() }; 4];
        let i = match alg {
            CrcAlgorithm::Crc32IsoHdlc => 0,
            CrcAlgorithm::Crc32Iscsi => 1,
            CrcAlgorithm::Crc64Nvme => 2,
            _ => 3,
        };
        TABLES[i].get_or_init(|| Shifts::build(alg))
    }

    /// The register `v` after `len` zero bytes.
    fn shift(&self, mut v: u64, len: u64) -> u64 {
        let mut k = 0;
        let mut rest = len;
        while rest != 0 {
            if rest & 1 != 0 {
                v = apply(&self.pow2[k], v);
            }
            rest >>= 1;
            k += 1;
        }
        v
    }
}

/// The CRC of `A ‖ B` from `crc1 = crc(A)`, `crc2 = crc(B)` and `len2 = |B|`, as
/// `crc_fast::checksum_combine` computes it. `alg` is one of the four CRCs lanesum has.
pub(crate) fn combine(alg: CrcAlgorithm, crc1: u64, crc2: u64, len2: u64) -> u64 {
    let s = Shifts::get(alg);
    // The register after A is crc1 ^ xorout; B's own CRC started from init instead, and
    // the difference between the two starts passes through B's bytes as through zeros.
    s.shift(crc1 ^ s.xorout ^ s.init, len2) ^ crc2
}

/// The register (crc-fast's `state`) that gives `crc` once finalized.
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
pub(crate) fn state_of(alg: CrcAlgorithm, crc: u64) -> u64 {
    crc ^ Shifts::get(alg).xorout
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALGS: [CrcAlgorithm; 4] = [
        CrcAlgorithm::Crc32IsoHdlc,
        CrcAlgorithm::Crc32Iscsi,
        CrcAlgorithm::Crc64Nvme,
        CrcAlgorithm::Crc32Cksum,
    ];

    /// Equal to crc-fast's combine (the oracle) and to the CRC of the whole, for every
    /// split of a ragged message, including empty pieces.
    #[test]
    fn combine_equals_the_whole_and_crc_fast() {
        let data: Vec<u8> = (0..3000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for alg in ALGS {
            for len in [0usize, 1, 2, 7, 64, 255, 1000, 3000] {
                let whole = crc_fast::checksum(alg, &data[..len]);
                for cut in [0, len / 3, len / 2, len.saturating_sub(1), len] {
                    let (a, b) = data[..len].split_at(cut);
                    let (ca, cb) = (crc_fast::checksum(alg, a), crc_fast::checksum(alg, b));
                    let ours = combine(alg, ca, cb, b.len() as u64);
                    assert_eq!(ours, whole, "{alg:?} len {len} cut {cut}");
                    let theirs = crc_fast::checksum_combine(alg, ca, cb, b.len() as u64);
                    assert_eq!(ours, theirs, "{alg:?} len {len} cut {cut}");
                }
            }
        }
    }

    /// Long second pieces use the high operators: checked against crc-fast's combine
    /// (whose matrices are built per call) on lengths up to 2^62.
    #[test]
    fn long_lengths_match_crc_fast() {
        for alg in ALGS {
            for len2 in [
                1u64 << 20,
                (1 << 33) + 12345,
                u64::MAX >> 2,
                0xdead_beef_cafe,
            ] {
                for (c1, c2) in [(0u64, 0u64), (0x1234_5678, 0x9abc_def0), (u64::MAX, 1)] {
                    let mask = if alg == CrcAlgorithm::Crc64Nvme {
                        u64::MAX
                    } else {
                        0xffff_ffff
                    };
                    let (c1, c2) = (c1 & mask, c2 & mask);
                    assert_eq!(
                        combine(alg, c1, c2, len2),
                        crc_fast::checksum_combine(alg, c1, c2, len2),
                        "{alg:?} len2 {len2}"
                    );
                }
            }
        }
    }

    /// The register form round-trips through crc-fast's digest.
    #[test]
    fn state_of_resumes_a_digest() {
        for alg in ALGS {
            let mut d = crc_fast::Digest::new(alg);
            d.update(b"12345");
            let resumed = crc_fast::Digest::new_with_init_state(alg, state_of(alg, d.finalize()));
            let (mut a, mut b) = (d, resumed);
            a.update(b"6789");
            b.update(b"6789");
            assert_eq!(a.finalize(), b.finalize(), "{alg:?}");
            assert_eq!(b.finalize(), crc_fast::checksum(alg, b"123456789"));
        }
    }
}
