//! CRC-32/ISO-HDLC, CRC-32C, CRC-64/NVME and POSIX `cksum`'s CRC, through `crc-fast`
//! (folding with carry-less multiplication: tens of GB/s per core).

use crc_fast::CrcAlgorithm;

#[cfg(feature = "rayon")]
use super::crc_combine::{combine, state_of};
use crate::{Algorithm, Digest};

/// Writes from this size are split over rayon's threads (see [`Crc::update_par`]).
const PAR_MIN: usize = 4 << 20;
/// The smallest piece a thread takes: below it, waking a thread costs more than it saves.
#[cfg(feature = "rayon")]
const PAR_PIECE_MIN: usize = 1 << 20;

/// One CRC stream.
#[derive(Clone)]
pub(crate) struct Crc {
    /// For the pieces of a write split over the cores.
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
    which: CrcAlgorithm,
    digest: crc_fast::Digest,
    /// Bytes absorbed: POSIX `cksum` appends the length to the data.
    len: u64,
    posix: bool,
    /// Digest bytes: 4 or 8.
    width: usize,
}

impl Crc {
    pub(crate) fn new(alg: Algorithm) -> Option<Crc> {
        let (which, width) = match alg {
            Algorithm::Crc32 => (CrcAlgorithm::Crc32IsoHdlc, 4),
            Algorithm::Crc32c => (CrcAlgorithm::Crc32Iscsi, 4),
            Algorithm::Crc64Nvme => (CrcAlgorithm::Crc64Nvme, 8),
            Algorithm::Crc => (CrcAlgorithm::Crc32Cksum, 4),
            _ => return None,
        };
        Some(Crc {
            which,
            digest: crc_fast::Digest::new(which),
            len: 0,
            posix: alg == Algorithm::Crc,
            width,
        })
    }

    /// Whether `update` of `len` bytes may run on rayon's threads.
    pub(crate) fn update_may_spread(len: usize) -> bool {
        cfg!(feature = "rayon") && len >= PAR_MIN
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        #[cfg(feature = "rayon")]
        if data.len() >= PAR_MIN && rayon::current_num_threads() > 1 {
            self.update_par(data);
            return;
        }
        self.digest.update(data);
    }

    /// A large write on every core: a CRC of each piece, then the pieces' CRCs combined
    /// in order (a few carry-less multiplications each). One core's CRC outruns the copy
    /// from the page cache and the faults of a map, so a big file's CRC is otherwise
    /// capped by what one core can read.
    #[cfg(feature = "rayon")]
    fn update_par(&mut self, data: &[u8]) {
        use rayon::prelude::*;
        let pieces = rayon::current_num_threads().min(data.len() / PAR_PIECE_MIN);
        let piece = data.len().div_ceil(pieces);
        // The first piece continues this stream's CRC; each other starts afresh and is
        // joined on in order (see `crc_combine`: a few microseconds each).
        let crcs: Vec<(u64, u64)> = data
            .par_chunks(piece)
            .enumerate()
            .map(|(i, p)| {
                let mut d = if i == 0 {
                    self.digest
                } else {
                    crc_fast::Digest::new(self.which)
                };
                d.update(p);
                (d.finalize(), p.len() as u64)
            })
            .collect();
        let (first, rest) = crcs.split_first().expect("at least one piece");
        let crc = rest.iter().fold(first.0, |crc, &(next, len)| {
            combine(self.which, crc, next, len)
        });
        self.digest = crc_fast::Digest::new_with_init_state(self.which, state_of(self.which, crc));
    }

    pub(crate) fn finalize(&self) -> Digest {
        let value = if self.posix {
            // POSIX: the length follows the data, least significant byte first, in as
            // few bytes as it takes (none for an empty input).
            let mut d = self.digest;
            let bytes = self.len.to_le_bytes();
            let used = 8 - self.len.leading_zeros() as usize / 8;
            d.update(&bytes[..used]);
            d.finalize()
        } else {
            self.digest.finalize()
        };
        Digest::from_bytes(&value.to_be_bytes()[8 - self.width..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes split over the cores and combined give the CRC of the whole, at every
    /// length around the split points, after an earlier small write, for every CRC.
    #[test]
    fn split_writes_combine_to_the_whole() {
        let data: Vec<u8> = (0..(13usize << 20) + 7)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for alg in [
            Algorithm::Crc32,
            Algorithm::Crc32c,
            Algorithm::Crc64Nvme,
            Algorithm::Crc,
        ] {
            for len in [4 << 20, (4 << 20) + 1, (5 << 20) - 3, data.len()] {
                for head in [0usize, 1, 4095] {
                    let mut c = Crc::new(alg).unwrap();
                    c.update(&data[..head]);
                    c.update(&data[head..len]);
                    let mut one = Crc::new(alg).unwrap();
                    for p in data[..len].chunks(1 << 19) {
                        one.update(p); // below PAR_MIN: one core, no combining
                    }
                    assert_eq!(c.finalize(), one.finalize(), "{alg} len {len} head {head}");
                }
            }
        }
    }
}
