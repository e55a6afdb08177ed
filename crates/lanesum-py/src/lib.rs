//! `lanesum._lanesum`, the extension module behind the `lanesum` Python package: hashlib-
//! compatible hashers, batches (`hash_many`, Arrow `hash_array`), files (`hash_files`,
//! `check`) and engine streams, all over the lanesum library.
#![deny(clippy::undocumented_unsafe_blocks)]

// Python buffers and the Arrow C interfaces: the only modules with `unsafe`.
mod arrow_ffi;
mod buffer;

mod batch;
mod check;
mod files;
mod forked;
mod hash_array;
mod hash_object;
mod names;
mod streams;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// hashlib-style constructors, one per algorithm the library has at its default length
/// (`sha256`, `sha512_256`, `md5p8`, ...), keyed by hashlib's spelling, and hashlib's
/// `shake_128` and `shake_256` (no length of their own). The families with parameters
/// (`blake2b`, `blake2s`, `blake3`) are functions of their own.
#[pyfunction]
fn constructors(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for alg in names::defaults() {
        let name = hash_object::hashlib_name(alg);
        if matches!(name.as_str(), "blake2b" | "blake2s" | "blake3") {
            continue;
        }
        out.set_item(name, hash_object::Constructor::new(alg))?;
    }
    for (name, alg) in names::HASHLIB_XOFS {
        out.set_item(name, hash_object::Constructor::xof(name, alg))?;
    }
    Ok(out)
}

// Every object keeps its state behind a lock and reads buffers through pinned views, so
// the module is safe without the GIL (free-threaded CPython).
#[pymodule(gil_used = false)]
fn _lanesum(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<hash_object::Hash>()?;
    m.add_class::<hash_object::Constructor>()?;
    m.add_class::<hash_array::DigestArray>()?;
    m.add_class::<files::FileRecord>()?;
    m.add_class::<files::FileHashes>()?;
    m.add_class::<files::Excludes>()?;
    m.add_class::<check::CheckResult>()?;
    m.add_class::<streams::LaneHasher>()?;
    m.add_class::<streams::MultiHasher>()?;
    m.add_function(wrap_pyfunction!(hash_object::new, m)?)?;
    m.add_function(wrap_pyfunction!(hash_object::blake2b, m)?)?;
    m.add_function(wrap_pyfunction!(hash_object::blake2s, m)?)?;
    m.add_function(wrap_pyfunction!(hash_object::blake3, m)?)?;
    m.add_function(wrap_pyfunction!(constructors, m)?)?;
    m.add_function(wrap_pyfunction!(names::algorithm_names, m)?)?;
    m.add_function(wrap_pyfunction!(names::digest_size, m)?)?;
    m.add_function(wrap_pyfunction!(names::isa_levels, m)?)?;
    m.add_function(wrap_pyfunction!(names::isa_active, m)?)?;
    m.add_function(wrap_pyfunction!(batch::hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(hash_array::hash_array, m)?)?;
    m.add_function(wrap_pyfunction!(files::hash_files, m)?)?;
    m.add_function(wrap_pyfunction!(check::check, m)?)?;
    forked::register(m)?;
    Ok(())
}
