//! The one place that reads inputs and computes digests.
//!
//! Output and check code ask [`hash_inputs`] for results and never open files
//! themselves, so the body can later be replaced by a batch engine that hashes many
//! files at once in SIMD lanes without touching the formats around it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};

use lanesum::{Algorithm, Digest, Hasher};

/// Read size: large enough that per-read overhead vanishes, small enough to stay in L2.
const CHUNK: usize = 256 * 1024;

/// Something to hash: standard input (the operand `-`) or a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(OsString),
}

impl Input {
    /// `-` means standard input, as for every *sum tool.
    pub fn from_operand(op: &OsString) -> Input {
        if op == "-" {
            Input::Stdin
        } else {
            Input::Path(op.clone())
        }
    }
}

/// The digests of one input, one per requested algorithm and in the same order.
#[derive(Clone, Debug)]
pub struct Hashed {
    pub size: u64,
    pub digests: Vec<Digest>,
}

/// Hash each input under every algorithm, yielding results in input order.
///
/// Each input is read once; every chunk feeds all the algorithms' hashers. The iterator
/// is lazy so callers can print each result before the next file is read.
pub fn hash_inputs<'a>(
    inputs: &'a [Input],
    algs: &'a [Algorithm],
) -> impl Iterator<Item = io::Result<Hashed>> + 'a {
    let mut buf = Vec::new();
    inputs.iter().map(move |input| {
        if buf.is_empty() {
            buf = vec![0u8; CHUNK];
        }
        match input {
            Input::Stdin => hash_reader(io::stdin().lock(), algs, &mut buf),
            Input::Path(p) => hash_reader(File::open(p)?, algs, &mut buf),
        }
    })
}

fn hash_reader(mut r: impl Read, algs: &[Algorithm], buf: &mut [u8]) -> io::Result<Hashed> {
    let mut hashers: Vec<Hasher> = algs.iter().map(|&a| Hasher::new(a)).collect();
    let mut size = 0u64;
    loop {
        let n = match r.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        size += n as u64;
        for h in &mut hashers {
            h.update(&buf[..n]);
        }
    }
    Ok(Hashed {
        size,
        digests: hashers.into_iter().map(Hasher::finalize).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn one_read_many_algorithms_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..(CHUNK * 2 + 17)).map(|i| (i * 7) as u8).collect();
        File::create(&p).unwrap().write_all(&data).unwrap();
        let algs = [Algorithm::Md5, Algorithm::Sha256, Algorithm::Blake2b(32)];
        let inputs = [
            Input::Path(p.clone().into()),
            Input::Path(dir.path().join("missing").into()),
        ];
        let out: Vec<_> = hash_inputs(&inputs, &algs).collect();
        let first = out[0].as_ref().unwrap();
        assert_eq!(first.size, data.len() as u64);
        for (d, &a) in first.digests.iter().zip(&algs) {
            assert_eq!(*d, lanesum::hash(a, &data));
        }
        assert_eq!(out[1].as_ref().unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
