//! `hash_many` of BLAKE2b and BLAKE2s: the messages side by side in SIMD lanes, through
//! the `blake2b_simd` and `blake2s_simd` crates' own many-message code (with AVX2, 4
//! BLAKE2b or 8 BLAKE2s messages at once; the crates detect the CPU themselves).
//!
//! One message at a time, BLAKE2b ran at 0.82-0.84 GB/s and BLAKE2s at 0.45 on a core of
//! Zen 5 whatever the batch; side by side the crates' code hashes several times that.

use crate::Digest;

/// Messages handed to the crates at once: their jobs (112 bytes each for BLAKE2b) stay
/// in the cache, and a column of a million values needs no second million-entry list.
const GROUP: usize = 1024;

/// `hash_many_b` and `hash_many_s`: the two crates take the same calls.
macro_rules! hash_many_fn {
    ($name:ident, $krate:ident, $what:literal) => {
        #[doc = concat!("The digests of `msgs` under ", $what, " of `len` bytes, in order.")]
        pub(crate) fn $name<M: AsRef<[u8]>>(msgs: &[M], len: u8) -> Vec<Digest> {
            let mut params = $krate::Params::new();
            params.hash_length(len.into());
            let mut out = Vec::with_capacity(msgs.len());
            for group in msgs.chunks(GROUP) {
                let mut jobs: Vec<$krate::many::HashManyJob> = group
                    .iter()
                    .map(|m| $krate::many::HashManyJob::new(&params, m.as_ref()))
                    .collect();
                $krate::many::hash_many(jobs.iter_mut());
                out.extend(
                    jobs.iter()
                        .map(|j| Digest::from_bytes(j.to_hash().as_bytes())),
                );
            }
            out
        }
    };
}

hash_many_fn!(hash_many_b, blake2b_simd, "BLAKE2b (1 to 64 bytes)");
hash_many_fn!(hash_many_s, blake2s_simd, "BLAKE2s (1 to 32 bytes)");

/// Messages the crates hash at once on this CPU (BLAKE2b, BLAKE2s): what `lanesum speed`
/// shows as the path's lanes.
pub(crate) fn degrees() -> (usize, usize) {
    (blake2b_simd::many::degree(), blake2s_simd::many::degree())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blake2::{Blake2bRef, Blake2sRef};
    use rand::{Rng, SeedableRng};

    /// Batches of every size from 1 to 17 (past two groups of 8) and one past a
    /// [`GROUP`], messages of ragged lengths across block edges, several output lengths:
    /// against the RFC reference.
    #[test]
    fn many_match_the_rfc_reference() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0xb2);
        for count in (1..=17).chain([GROUP + 3]) {
            let msgs: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let len = match rng.random_range(0..4) {
                        0 => rng.random_range(0..3),
                        1 => 128 * rng.random_range(0..4),
                        _ => rng.random_range(0..1200),
                    };
                    (0..len).map(|_| rng.random()).collect()
                })
                .collect();
            for len in [1u8, 16, 20, 32] {
                let got = hash_many_s(&msgs, len);
                for (m, d) in msgs.iter().zip(&got) {
                    let want = Blake2sRef::digest(len.into(), &[], m);
                    assert_eq!(d.as_bytes(), &want[..], "blake2s-{len} of {count}");
                }
            }
            for len in [1u8, 20, 32, 48, 64] {
                let got = hash_many_b(&msgs, len);
                for (m, d) in msgs.iter().zip(&got) {
                    let want = Blake2bRef::digest(len.into(), &[], m);
                    assert_eq!(d.as_bytes(), &want[..], "blake2b-{len} of {count}");
                }
            }
        }
        assert!(hash_many_b(&[] as &[&[u8]], 64).is_empty());
    }
}
