//! The one place that maps algorithms onto the Merkle-Damgård families and dispatches on
//! them.
//!
//! Code above the families (the streaming hasher, `hash_many`, `StreamBatch`, the lane
//! engine) is generic over `F: Family`; it reaches a concrete family only through
//! [`lookup`] and the macros here. A per-family value of some type `T<F>` is a
//! [`OneOf<E>`] (one family's, chosen by an algorithm) or an [`AllOf<E>`] (every family's),
//! where `E: Each` names `T` (`E::Of<F> = T<F>`). Adding a family means its folder, its
//! algorithms' rows in `algorithm.rs`, and a variant, a field and an arm here.

use crate::family::Family;
use crate::md5::{self, Md5};
use crate::sha1::{self, Sha1};
use crate::sha256::{self, Sha256};
use crate::sha512::{self, Sha512};
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
}

/// A value for every family.
pub(crate) struct AllOf<E: Each> {
    pub md5: E::Of<Md5>,
    pub sha1: E::Of<Sha1>,
    pub sha256: E::Of<Sha256>,
    pub sha512: E::Of<Sha512>,
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
        _ => return None,
    })
}

/// `each!(one, |F, x| body)`: `body` with `x` bound to the value in the [`OneOf`] `one`
/// and the type `F` to its family; every arm gives the same type.
/// `each!(one, all, |F, x, y| body)`: the same with `y` bound to `&all`'s value for that
/// family (an [`AllOf`]).
macro_rules! each {
    ($one:expr, |$F:ident, $x:pat_param| $body:expr) => {
        $crate::families::dispatch!(plain, $one, $crate::families::NONE, |$F, $x, _| $body)
    };
    ($one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(plain, $one, $all, |$F, $x, $y| $body)
    };
}

/// `map!(one, |F, x| body)` and `map!(one, all, |F, x, y| body)`: as [`each!`], with
/// each result put in its family's variant (a `OneOf` of another `Each`).
macro_rules! map {
    ($one:expr, |$F:ident, $x:pat_param| $body:expr) => {
        $crate::families::dispatch!(wrap, $one, $crate::families::NONE, |$F, $x, _| $body)
    };
    ($one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        $crate::families::dispatch!(wrap, $one, $all, |$F, $x, $y| $body)
    };
}

/// The match behind [`each!`] and [`map!`]: one arm per family.
macro_rules! dispatch {
    ($how:ident, $one:expr, $all:expr, |$F:ident, $x:pat_param, $y:pat_param| $body:expr) => {
        match $one {
            $crate::families::OneOf::Md5($x) => {
                $crate::families::dispatch!(@arm $how, Md5, md5, $all, $F, $y, $body)
            }
            $crate::families::OneOf::Sha1($x) => {
                $crate::families::dispatch!(@arm $how, Sha1, sha1, $all, $F, $y, $body)
            }
            $crate::families::OneOf::Sha256($x) => {
                $crate::families::dispatch!(@arm $how, Sha256, sha256, $all, $F, $y, $body)
            }
            $crate::families::OneOf::Sha512($x) => {
                $crate::families::dispatch!(@arm $how, Sha512, sha512, $all, $F, $y, $body)
            }
        }
    };
    (@arm $how:ident, $v:ident, $m:ident, $all:expr, $F:ident, $y:pat_param, $body:expr) => {{
        #[allow(non_camel_case_types, dead_code)]
        type $F = $crate::$m::$v;
        let $y = &$all.$m;
        $crate::families::dispatch!(@out $how, $v, $body)
    }};
    (@out plain, $v:ident, $e:expr) => {
        $e
    };
    (@out wrap, $v:ident, $e:expr) => {
        $crate::families::OneOf::$v($e)
    };
}

/// Nothing per family: the `all` of an [`each!`] or [`map!`] that has none.
pub(crate) struct Nothing;

impl Each for Nothing {
    type Of<F: Family> = ();
}

pub(crate) const NONE: AllOf<Nothing> = AllOf {
    md5: (),
    sha1: (),
    sha256: (),
    sha512: (),
};

/// `all!(|F| body)`: an [`AllOf`] of `body` for each family `F`.
macro_rules! all {
    (|$F:ident| $body:expr) => {
        $crate::families::AllOf {
            md5: {
                #[allow(non_camel_case_types, dead_code)]
                type $F = $crate::md5::Md5;
                $body
            },
            sha1: {
                #[allow(non_camel_case_types, dead_code)]
                type $F = $crate::sha1::Sha1;
                $body
            },
            sha256: {
                #[allow(non_camel_case_types, dead_code)]
                type $F = $crate::sha256::Sha256;
                $body
            },
            sha512: {
                #[allow(non_camel_case_types, dead_code)]
                type $F = $crate::sha512::Sha512;
                $body
            },
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
            if let Some(words) = words {
                let word = if alg.block_len() == 128 { 8 } else { 4 };
                assert!(alg.digest_len() <= words * word, "{alg}");
            }
        }
    }
}
