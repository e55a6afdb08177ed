//! CRC-32/ISO-HDLC, CRC-32C, CRC-64/NVME and POSIX `cksum`'s CRC, through `crc-fast`
//! (folding with carry-less multiplication: tens of GB/s per core).

use crc_fast::CrcAlgorithm;

use crate::{Algorithm, Digest};

/// One CRC stream.
#[derive(Clone)]
pub(crate) struct Crc {
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
            digest: crc_fast::Digest::new(which),
            len: 0,
            posix: alg == Algorithm::Crc,
            width,
        })
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        self.digest.update(data);
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
