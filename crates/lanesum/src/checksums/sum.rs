//! The BSD and System V checksums of `sum` (and `cksum -a bsd|sysv`), as GNU coreutils
//! computes them. Their digests are the 16-bit checksum, big-endian; the block counts
//! `sum` prints come from the input's size.

use crate::{Algorithm, Digest};

/// One `sum` stream.
#[derive(Clone)]
pub(crate) enum Sum {
    /// The 16-bit checksum so far: rotate right by one, add the byte.
    Bsd(u16),
    /// The sum of all bytes, modulo 2^64 (folded at the end).
    Sysv(u64),
}

impl Sum {
    pub(crate) fn new(alg: Algorithm) -> Option<Sum> {
        match alg {
            Algorithm::SumBsd => Some(Sum::Bsd(0)),
            Algorithm::SumSysv => Some(Sum::Sysv(0)),
            _ => None,
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Sum::Bsd(s) => {
                for &b in data {
                    *s = s.rotate_right(1).wrapping_add(u16::from(b));
                }
            }
            Sum::Sysv(s) => {
                // Bytes summed in u64 lanes the compiler vectorises: a u32 per byte
                // could not overflow before 2^24 bytes, so sum 16 MiB at a time.
                for piece in data.chunks(1 << 24) {
                    let part: u32 = piece.iter().map(|&b| u32::from(b)).sum();
                    *s = s.wrapping_add(u64::from(part));
                }
            }
        }
    }

    pub(crate) fn finalize(&self) -> Digest {
        let v = match *self {
            Sum::Bsd(s) => s,
            Sum::Sysv(s) => {
                // As GNU: fold the 32-bit sum to 16 bits twice.
                let s = s as u32;
                let r = (s & 0xffff) + (s >> 16);
                ((r & 0xffff) + (r >> 16)) as u16
            }
        };
        Digest::from_bytes(&v.to_be_bytes())
    }
}
