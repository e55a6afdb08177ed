//! `hash_many`: many whole messages at once, for every algorithm.
//!
//! The Merkle-Damgård algorithms go through the SIMD lanes (`lanes`); BLAKE3's short
//! messages through its own lanes (`blake3::many`), SHA-3 and SHAKE through theirs
//! (`sha3`), BLAKE2b and BLAKE2s through their crates' (`blake2::many`); the others one
//! at a time.

mod lanes;
mod spread;

use lanes::hash_md_into;
pub(crate) use lanes::{hash_md, hash_one};
pub(crate) use spread::{spread, SPREAD_MIN};

use crate::families::{self, each};
use crate::hasher::hash_at;
use crate::isa::{self, Features};
use crate::lanes::LaneKernel;
use crate::{Algorithm, Digest};

/// The digests of `msgs` under `alg`, in order, using the best kernels of this CPU.
///
/// ```
/// use lanesum::{hash, hash_many, Algorithm};
/// let msgs: Vec<Vec<u8>> = (0..100).map(|i| vec![i as u8; i * 37]).collect();
/// let digests = hash_many(Algorithm::Sha256, &msgs);
/// assert_eq!(digests[42], hash(Algorithm::Sha256, &msgs[42]));
/// ```
///
/// # Panics
/// As [`Hasher::new`](crate::Hasher::new), for a hand-built algorithm with an
/// impossible length (also [`hash_many_into`] and [`hash_many_par`]).
pub fn hash_many<M: AsRef<[u8]>>(alg: Algorithm, msgs: &[M]) -> Vec<Digest> {
    run(alg, msgs, isa::active(), None).expect("auto kernel choice always exists")
}

/// Like [`hash_many`], writing the digests back to back into `out`
/// (`alg.digest_len()` bytes each, in order): for many small messages, where building
/// a [`Digest`] per message and copying it out costs as much as hashing them (a
/// column of a million 64-byte values), the Merkle-Damgård algorithms write straight
/// from their lanes.
///
/// ```
/// use lanesum::{hash, hash_many_into, Algorithm};
/// let msgs: Vec<Vec<u8>> = (0..100).map(|i| vec![i as u8; 64]).collect();
/// let mut out = vec![0u8; 100 * 32];
/// hash_many_into(Algorithm::Sha256, &msgs, &mut out);
/// assert_eq!(&out[42 * 32..43 * 32], hash(Algorithm::Sha256, &msgs[42]).as_bytes());
/// ```
///
/// # Panics
/// If `out.len()` is not `msgs.len() * alg.digest_len()`.
pub fn hash_many_into<M: AsRef<[u8]>>(alg: Algorithm, msgs: &[M], out: &mut [u8]) {
    let size = alg.digest_len();
    assert_eq!(
        out.len(),
        msgs.len() * size,
        "hash_many_into: out must hold {} digests of {size} bytes",
        msgs.len()
    );
    if hash_md_into(alg, msgs, isa::active(), out).is_some() {
        return;
    }
    for (d, o) in hash_many(alg, msgs)
        .iter()
        .zip(out.chunks_exact_mut(size.max(1)))
    {
        o.copy_from_slice(d.as_bytes());
    }
}

/// Like [`hash_many`], spreading the messages over all rayon threads.
///
/// ```
/// use lanesum::{hash, hash_many_par, Algorithm};
/// let msgs: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 64 << 10]).collect();
/// assert_eq!(hash_many_par(Algorithm::Md5, &msgs)[7], hash(Algorithm::Md5, &msgs[7]));
/// ```
#[cfg(feature = "rayon")]
pub fn hash_many_par<M: AsRef<[u8]> + Sync>(alg: Algorithm, msgs: &[M]) -> Vec<Digest> {
    hash_many_cores(alg, &slices(msgs))
}

/// The messages as slices, for spreading them over the cores.
#[cfg(feature = "rayon")]
fn slices<M: AsRef<[u8]>>(msgs: &[M]) -> Vec<&[u8]> {
    msgs.iter().map(AsRef::as_ref).collect()
}

/// [`hash_many_par`] with the `rayon` feature, else [`hash_many`]: what the modes use.
pub(crate) fn hash_many_cores(alg: Algorithm, msgs: &[&[u8]]) -> Vec<Digest> {
    let level = isa::active();
    spread(msgs, |part| {
        run(alg, part, level, None).expect("auto kernel choice always exists")
    })
}

/// A compression path [`hash_many_with`](crate::diagnostics::hash_many_with) can be forced
/// onto: its name and lane count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// The path's name, as `lanesum speed` shows it (`x1`, `avx512x2`, `shani-x4`, ...).
    pub name: &'static str,
    /// Messages it hashes at once.
    pub lanes: usize,
}

/// The kernels `alg` has at `level`, the single-stream one first.
pub(crate) fn kernel_infos(alg: Algorithm, level: Features) -> Vec<KernelInfo> {
    fn info<W: Copy>(k: &LaneKernel<W>) -> KernelInfo {
        KernelInfo {
            name: k.name,
            lanes: k.lanes,
        }
    }
    if let Some(iv) = families::lookup(alg) {
        return each!(iv, |F, _iv| lanes::kernels::<F>(level)
            .iter()
            .map(info)
            .collect());
    }
    let mut v = vec![KernelInfo {
        name: "x1",
        lanes: 1,
    }];
    if crate::sha3::Params::of(alg).is_some() {
        v.extend(
            crate::sha3::lanes_paths(level)
                .into_iter()
                .map(|(name, lanes)| KernelInfo { name, lanes }),
        );
    }
    if let Algorithm::Blake3(_) = alg {
        // Chunks of different small messages share SIMD lanes (blake3/many.rs).
        v.push(KernelInfo {
            name: "lanes",
            lanes: if level.avx512().is_some() { 16 } else { 8 },
        });
    }
    let (b, s) = crate::blake2::many::degrees();
    match alg {
        Algorithm::Blake2b(_) => v.push(KernelInfo {
            name: "many",
            lanes: b,
        }),
        Algorithm::Blake2s(_) => v.push(KernelInfo {
            name: "many",
            lanes: s,
        }),
        _ => {}
    }
    v
}

/// `msgs` hashed at `level`, on the kernel named `forced` for every message if given
/// (`None` if `alg` has no such kernel here).
pub(crate) fn run<M: AsRef<[u8]>>(
    alg: Algorithm,
    msgs: &[M],
    level: Features,
    forced: Option<&str>,
) -> Option<Vec<Digest>> {
    assert!(alg.is_valid(), "invalid output length for {alg:?}");
    if families::lookup(alg).is_some() {
        return hash_md(alg, msgs, level, forced);
    }
    if let Some(p) = crate::sha3::Params::of(alg) {
        return crate::sha3::hash_many(alg, p, msgs, level, forced);
    }
    let hash_each = || {
        msgs.iter()
            .map(|m| hash_at(alg, m.as_ref(), level))
            .collect()
    };
    // BLAKE2 side by side for more than one message (or when forced), of a valid length
    // (an invalid one panics in `hash_at` with the library's message, not the crates').
    let batch_of_valid = alg.is_valid() && (msgs.len() > 1 || forced.is_some());
    match (alg, forced) {
        (Algorithm::Blake3(n), None | Some("lanes")) => {
            Some(crate::blake3::many::hash_many(msgs, n, level))
        }
        (Algorithm::Blake2b(n), None | Some("many")) if batch_of_valid => {
            Some(crate::blake2::many::hash_many_b(msgs, n))
        }
        (Algorithm::Blake2s(n), None | Some("many")) if batch_of_valid => {
            Some(crate::blake2::many::hash_many_s(msgs, n))
        }
        (_, None | Some("x1")) => Some(hash_each()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
