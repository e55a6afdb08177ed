//! `hash_many`: a list of buffers through the library's SIMD lanes in one call.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::buffer::Bytes;
use crate::names::parse_algorithm;

/// One message held for the batch: a bytes object read in place, or a view of any other
/// buffer (which also pins a bytearray against resizing while the GIL is released).
enum Held<'py> {
    Bytes(Bound<'py, PyBytes>),
    View(Bytes),
}

impl Held<'_> {
    fn as_slice(&self) -> &[u8] {
        match self {
            Held::Bytes(b) => b.as_bytes(),
            Held::View(v) => v.as_slice(),
        }
    }
}

/// `hash_many(name, buffers) -> list[bytes]`: the digest of each buffer, in order, hashed
/// together in the SIMD lanes and over every core, with the GIL released.
#[pyfunction]
pub fn hash_many<'py>(
    py: Python<'py>,
    name: &str,
    buffers: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let alg = parse_algorithm(name)?;
    let mut held = Vec::new();
    for item in buffers.try_iter()? {
        let item = item?;
        held.push(match item.cast_into::<PyBytes>() {
            Ok(b) => Held::Bytes(b),
            Err(e) => Held::View(Bytes::get(&e.into_inner())?),
        });
    }
    let slices: Vec<&[u8]> = held.iter().map(Held::as_slice).collect();
    let digests = py.detach(|| lanesum::hash_many_par(alg, &slices));
    PyList::new(py, digests.iter().map(|d| PyBytes::new(py, d.as_bytes())))
}
