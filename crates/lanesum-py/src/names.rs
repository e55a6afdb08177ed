//! Algorithm names as Python sees them, all taken from the library (`Algorithm::ALL`,
//! `MODES`, `NAMES`, `FromStr`), so an algorithm added there is reachable here without
//! a change.

use lanesum::Algorithm;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `name` parsed as the library parses it (case-insensitive, `sha-256`, `sha512_256`,
/// `blake2b-256`, ...); a ValueError naming the known algorithms otherwise.
pub fn parse_algorithm(name: &str) -> PyResult<Algorithm> {
    if let Some(alg) = hashlib_xof(name) {
        let hashlib = hashlib_xof_name(alg).unwrap_or(name);
        return Err(PyValueError::new_err(format!(
            "{hashlib} is hashlib's SHAKE, of a length each digest names (lanesum.new, \
             lanesum.{hashlib}); here give the length in the name: {alg}-256 (bits)"
        )));
    }
    name.parse::<Algorithm>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// hashlib's extendable-output functions, under hashlib's names: hash objects with no
/// length of their own (`digest_size` 0), whose `digest(length)` names one each time.
/// The library's `shake128` and `shake256` have a length (16 and 32 bytes by default).
pub const HASHLIB_XOFS: [(&str, Algorithm); 2] = [
    ("shake_128", Algorithm::Shake128(16)),
    ("shake_256", Algorithm::Shake256(32)),
];

/// hashlib's name of SHAKE `alg` (`shake_128`), at any length.
pub fn hashlib_xof_name(alg: Algorithm) -> Option<&'static str> {
    let alg = alg.family_default();
    HASHLIB_XOFS
        .iter()
        .find(|&&(_, a)| a == alg)
        .map(|&(n, _)| n)
}

/// The algorithm of one of hashlib's [`HASHLIB_XOFS`] names (any case), if `name` is one.
pub fn hashlib_xof(name: &str) -> Option<Algorithm> {
    HASHLIB_XOFS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, alg)| alg)
}

/// Every algorithm at its default length: the plain hash functions, then the modes.
pub fn defaults() -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL
        .iter()
        .chain(Algorithm::MODES)
        .copied()
        .filter(|a| a.is_valid())
}

/// The canonical names: every default algorithm's, then any family in
/// `Algorithm::NAMES` (written `blake2b[-BITS]`) not already among them.
#[pyfunction]
pub fn algorithm_names() -> Vec<String> {
    let mut names: Vec<String> = defaults().map(|a| a.to_string()).collect();
    for n in Algorithm::NAMES {
        let base = n.split('[').next().unwrap_or(n).to_string();
        if base.parse::<Algorithm>().is_ok() && !names.contains(&base) {
            names.push(base);
        }
    }
    names
}

/// Digest length in bytes of any algorithm name.
#[pyfunction]
pub fn digest_size(name: &str) -> PyResult<usize> {
    Ok(parse_algorithm(name)?.digest_len())
}

/// The instruction-set levels this CPU has, as `LANESUM_ISA` values (`portable` first,
/// the full level last): what the tests run under.
#[pyfunction]
pub fn isa_levels() -> Vec<String> {
    lanesum::isa::Features::detect()
        .levels()
        .into_iter()
        .map(|f| f.names())
        .collect()
}

/// The level in force (`LANESUM_ISA` or detected); a ValueError if `LANESUM_ISA` names a
/// level this CPU lacks or an unknown word.
#[pyfunction]
pub fn isa_active() -> PyResult<String> {
    lanesum::isa::try_active()
        .map(|f| f.names())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
