//! The one place that maps algorithms onto the Merkle-Damgård families and dispatches on
//! them.
//!
//! Code above the families (the streaming hasher, `hash_many`, `StreamBatch`, the lane
//! engine) is generic over `F: Family`; it reaches a concrete family only through
//! [`lookup`] and the macros here. A per-family value of some type `T<F>` is a
//! [`OneOf<E>`] (one family's, chosen by an algorithm) or an [`AllOf<E>`] (every family's),
//! where `E: Each` names `T` (`E::Of<F> = T<F>`). Adding a family means its folder, its
//! algorithms' rows in `algorithm.rs`, and a variant, a field and an arm here.
//!
//! The SHA-3 and SHAKE sponges are a second set, for the lane engine only
//! ([`lookup_sponge`], [`SpongeOf`], [`AllSponges`], the macros' `sponge` forms): the
//! other users keep their own SHA-3 paths, and need not be built for six more families.

use crate::family::Family;
use crate::md5::{self, Md5};
use crate::sha1::{self, Sha1};
use crate::sha256::{self, Sha256};
use crate::sha3::family as sponge;
use crate::sha512::{self, Sha512};
use crate::sm3::{self, Sm3};
use crate::Algorithm;

/// A type for each family: `Of<Md5>`, `Of<Sha1>`, ...
pub(crate) trait Each {
    type Of<F: Family>;
}

/// A value of the family of one algorithm.
pub(crate) enum OneOf<E: Each> {
    Md5(E::Of<Md5>),
    Sha1(E::Of<Sha1>),
    Sha256(E::Of<Sha256>),
    Sha512(E::Of<Sha512>),
    Sm3(E::Of<Sm3>),
}

/// A value for every family.
pub(crate) struct AllOf<E: Each> {
    pub md5: E::Of<Md5>,
    pub sha1: E::Of<Sha1>,
    pub sha256: E::Of<Sha256>,
    pub sha512: E::Of<Sha512>,
    pub sm3: E::Of<Sm3>,
}

/// The SHA-3 and SHAKE sponges as families, for the lane engine only: `hash_many` and
/// `StreamBatch` drive their sponges themselves (`sha3::many`). A value of the sponge of
/// one algorithm.
pub(crate) enum SpongeOf<E: Each> {
    Sha3_224(E::Of<sponge::Sha3_224>),
    Sha3_256(E::Of<sponge::Sha3_256>),
    Sha3_384(E::Of<sponge::Sha3_384>),
    Sha3_512(E::Of<sponge::Sha3_512>),
    Shake128(E::Of<sponge::Shake128>),
    Shake256(E::Of<sponge::Shake256>),
}

/// A value for every sponge.
pub(crate) struct AllSponges<E: Each> {
    pub sha3_224: E::Of<sponge::Sha3_224>,
    pub sha3_256: E::Of<sponge::Sha3_256>,
    pub sha3_384: E::Of<sponge::Sha3_384>,
    pub sha3_512: E::Of<sponge::Sha3_512>,
    pub shake128: E::Of<sponge::Shake128>,
    pub shake256: E::Of<sponge::Shake256>,
}

/// Initial chaining states (the families' constants).
pub(crate) struct Iv;

impl Each for Iv {
    type Of<F: Family> = &'static F::State;
}

/// `alg`'s family, with the algorithm's initial chaining state; `None` for algorithms
/// without lane kernels (BLAKE2, BLAKE3, the modes).
pub(crate) fn lookup(alg: Algorithm) -> Option<OneOf<Iv>> {
    Some(match alg {
        Algorithm::Md5 => OneOf::Md5(&md5::IV),
        Algorithm::Sha1 => OneOf::Sha1(&sha1::IV),
        Algorithm::Sha224 => OneOf::Sha256(&sha256::IV_224),
        Algorithm::Sha256 => OneOf::Sha256(&sha256::IV_256),
        Algorithm::Sha384 => OneOf::Sha512(&sha512::IV_384),
        Algorithm::Sha512 => OneOf::Sha512(&sha512::IV_512),
        Algorithm::Sha512_224 => OneOf::Sha512(&sha512::IV_512_224),
        Algorithm::Sha512_256 => OneOf::Sha512(&sha512::IV_512_256),
        Algorithm::Sm3 => OneOf::Sm3(&sm3::IV),
        _ => return None,
    })
}

/// `alg`'s sponge, with its initial (zero) state; `None` for all but SHA-3 and SHAKE.
pub(crate) fn lookup_sponge(alg: Algorithm) -> Option<SpongeOf<Iv>> {
    let iv = &sponge::IV;
    Some(match alg {
        Algorithm::Sha3_224 => SpongeOf::Sha3_224(iv),
        Algorithm::Sha3_256 => SpongeOf::Sha3_256(iv),
        Algorithm::Sha3_384 => SpongeOf::Sha3_384(iv),
        Algorithm::Sha3_512 => SpongeOf::Sha3_512(iv),
        Algorithm::Shake128(_) => SpongeOf::Shake128(iv),
        Algorithm::Shake256(_) => SpongeOf::Shake256(iv),
        _ => return None,
    })
}

/// `each!(one, |F, x| body)`: `body` with `x` bound to the value in the [`OneOf`] `one`
/// and the type `F` to its family; every arm gives the same type.
/// `each!(one, all, |F, x, y| body)`: the same with `y` bound to `&all`'s value for that
/// family (an [`AllOf`]). The same on a [`SpongeOf`] and an [`AllSponges`]:
/// `each!(sponge one, ...)`.
macro_rules! each {
    (sponge $one:expr, |$F:ident, $x:pat_param| $body:expr) => {
        $crate::families::dispatch!(sponge plain, $one, _, |$F, $x, _| $body)
    };
    (sponge $one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(sponge plain, $one, ($all), |$F, $x, $y| $body)
    };
    ($one:expr, |$F:ident, $x:pat_param| $body:expr) => {
        $crate::families::dispatch!(plain, $one, _, |$F, $x, _| $body)
    };
    ($one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(plain, $one, ($all), |$F, $x, $y| $body)
    };
}

/// `map!(one, |F, x| body)` and `map!(one, all, |F, x, y| body)`: as [`each!`], with
/// each result put in its family's variant (a `OneOf` or `SpongeOf` of another `Each`).
macro_rules! map {
    (sponge $one:expr, |$F:ident, $x:pat_param| $body:expr) => {
        $crate::families::dispatch!(sponge wrap, $one, _, |$F, $x, _| $body)
    };
    (sponge $one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(sponge wrap, $one, ($all), |$F, $x, $y| $body)
    };
    ($one:expr, |$F:ident, $x:pat_param| $body:expr) => {
        $crate::families::dispatch!(wrap, $one, _, |$F, $x, _| $body)
    };
    ($one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(wrap, $one, ($all), |$F, $x, $y| $body)
    };
}

/// The match behind [`each!`] and [`map!`]: one arm per family of the set (the
/// Merkle–Damgård families, or with `sponge` first the sponges). `_` for `all`: none.
macro_rules! dispatch {
    ($how:ident, $one:expr, $all:tt, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(@match OneOf, $how, $one, $all, $F, $x, $y, $body,
            Md5 md5 $crate::md5::Md5,
            Sha1 sha1 $crate::sha1::Sha1,
            Sha256 sha256 $crate::sha256::Sha256,
            Sha512 sha512 $crate::sha512::Sha512,
            Sm3 sm3 $crate::sm3::Sm3)
    };
    (sponge $how:ident, $one:expr, $all:tt, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(@match SpongeOf, $how, $one, $all, $F, $x, $y, $body,
            Sha3_224 sha3_224 $crate::sha3::family::Sha3_224,
            Sha3_256 sha3_256 $crate::sha3::family::Sha3_256,
            Sha3_384 sha3_384 $crate::sha3::family::Sha3_384,
            Sha3_512 sha3_512 $crate::sha3::family::Sha3_512,
            Shake128 shake128 $crate::sha3::family::Shake128,
            Shake256 shake256 $crate::sha3::family::Shake256)
    };
    (@match $set:ident, $how:ident, $one:expr, $all:tt, $F:ident, $x:pat_param,
        $y:pat_param, $body:expr, $($v:ident $field:ident $t:ty),*) => {
        match $one {
            $($crate::families::$set::$v($x) => {
                #[allow(non_camel_case_types, dead_code)]
                type $F = $t;
                let $y = $crate::families::dispatch!(@field $all, $field);
                $crate::families::dispatch!(@out $how, $set, $v, $body)
            })*
        }
    };
    (@field _, $field:ident) => {
        ()
    };
    (@field ($all:expr), $field:ident) => {
        &$all.$field
    };
    (@out plain, $set:ident, $v:ident, $e:expr) => {
        $e
    };
    (@out wrap, $set:ident, $v:ident, $e:expr) => {
        $crate::families::$set::$v($e)
    };
}

/// `all!(|F| body)`: an [`AllOf`] of `body` for each family `F`; `all!(sponge |F| body)`
/// an [`AllSponges`].
macro_rules! all {
    (|$F:ident| $body:expr) => {
        $crate::families::all!(@struct AllOf, $F, $body,
            md5 $crate::md5::Md5,
            sha1 $crate::sha1::Sha1,
            sha256 $crate::sha256::Sha256,
            sha512 $crate::sha512::Sha512,
            sm3 $crate::sm3::Sm3)
    };
    (sponge |$F:ident| $body:expr) => {
        $crate::families::all!(@struct AllSponges, $F, $body,
            sha3_224 $crate::sha3::family::Sha3_224,
            sha3_256 $crate::sha3::family::Sha3_256,
            sha3_384 $crate::sha3::family::Sha3_384,
            sha3_512 $crate::sha3::family::Sha3_512,
            shake128 $crate::sha3::family::Shake128,
            shake256 $crate::sha3::family::Shake256)
    };
    (@struct $set:ident, $F:ident, $body:expr, $($field:ident $t:ty),*) => {
        $crate::families::$set {
            $($field: {
                #[allow(non_camel_case_types, dead_code)]
                type $F = $t;
                $body
            },)*
        }
    };
}

pub(crate) use {all, dispatch, each, map};

impl<E: Each> Clone for OneOf<E>
where
    E::Of<Md5>: Clone,
    E::Of<Sha1>: Clone,
    E::Of<Sha256>: Clone,
    E::Of<Sha512>: Clone,
    E::Of<Sm3>: Clone,
{
    fn clone(&self) -> Self {
        map!(self, |_F, x| x.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every algorithm in the lanes has a family and a valid length for it, and the
    /// others none.
    #[test]
    fn lane_algorithms_have_families() {
        for &alg in Algorithm::ALL.iter().chain(Algorithm::MODES) {
            let words = lookup(alg).map(|iv| each!(iv, |F, _iv| F::WORDS));
            assert_eq!(words.is_some(), Algorithm::LANED.contains(&alg), "{alg}");
            let rate = lookup_sponge(alg).map(|iv| each!(sponge iv, |F, _iv| F::BLOCK));
            assert_eq!(
                rate.is_some(),
                alg.lanes_need_stream_batch(),
                "{alg}: a sponge family"
            );
            if let Some(rate) = rate {
                assert_eq!(rate, alg.block_len(), "{alg}");
            }
            if let Some(words) = words {
                let word = if alg.block_len() == 128 { 8 } else { 4 };
                assert!(alg.digest_len() <= words * word, "{alg}");
            }
        }
    }
}
