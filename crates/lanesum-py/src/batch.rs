//! `hash_many`: a list of buffers through the library's SIMD lanes in one call.

use lanesum::Algorithm;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rayon::prelude::*;

use crate::buffer::Bytes;
use crate::forked;
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
    for (i, item) in buffers.try_iter()?.enumerate() {
        let item = item?;
        held.push(match item.cast_into::<PyBytes>() {
            Ok(b) => Held::Bytes(b),
            Err(e) => Held::View(Bytes::get(&e.into_inner()).map_err(|e| at_item(py, i, e))?),
        });
    }
    let slices: Vec<&[u8]> = held.iter().map(Held::as_slice).collect();
    let flat = py.detach(|| digests_flat(alg, &slices));
    let size = alg.digest_len();
    PyList::new(
        py,
        (0..slices.len()).map(|i| PyBytes::new(py, &flat[i * size..(i + 1) * size])),
    )
}

/// Messages per `hash_many_into` call when a big batch is cut into groups, and the bytes
/// a group may hold before it is cut early.
const GROUP: usize = 8192;
const GROUP_BYTES: usize = 8 << 20;

/// `e`, raised for item `i` of a batch, saying which item (a TypeError's message; other
/// errors as they are).
fn at_item(py: Python<'_>, i: usize, e: PyErr) -> PyErr {
    if e.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(format!("item {i}: {}", e.value(py)))
    } else {
        e
    }
}

/// The digests of `msgs`, back to back (`digest_len` bytes each), over every core.
///
/// A big batch goes through `lanesum::hash_many_into` a group of consecutive messages
/// at a time, the groups spread over rayon's threads, each writing its digests in place:
/// a million 64-byte values in one `hash_many_par` call spent a quarter of its time in
/// page faults (a `Digest` of 72 bytes per value, 72 MB fresh each call, plus the
/// scheduler's sorted copies), where groups reuse warm memory. Small batches, or few
/// large messages, go to `hash_many_par` whole.
pub fn digests_flat(alg: Algorithm, msgs: &[&[u8]]) -> Vec<u8> {
    digests_as(alg, msgs, false)
}

/// As [`digests_flat`], each digest as lowercase hex (twice as long), written by the
/// thread that hashed its group while the digests are in its cache. Converting after
/// the hashing, on one thread, took longer than the hashing itself: 1,000,000 SHA-256
/// digests of 64 B values, 2 cores, 75 ms to hash and 100 ms more with hex.
pub fn hex_digests_flat(alg: Algorithm, msgs: &[&[u8]]) -> Vec<u8> {
    digests_as(alg, msgs, true)
}

fn digests_as(alg: Algorithm, msgs: &[&[u8]], hex: bool) -> Vec<u8> {
    forked::parallel(|| digests_on_pool(alg, msgs, hex))
}

fn digests_on_pool(alg: Algorithm, msgs: &[&[u8]], hex: bool) -> Vec<u8> {
    let size = alg.digest_len();
    let width = if hex { 2 * size } else { size };
    let mut out = vec![0u8; msgs.len() * width];
    if msgs.len() < 2 * GROUP {
        for (d, o) in lanesum::hash_many_par(alg, msgs)
            .iter()
            .zip(out.chunks_exact_mut(width.max(1)))
        {
            if hex {
                lanesum::hex_lower_into(d.as_bytes(), o);
            } else {
                o.copy_from_slice(d.as_bytes());
            }
        }
        return out;
    }
    let mut groups: Vec<(&[&[u8]], &mut [u8])> = Vec::new();
    let (mut rest, mut rest_out) = (msgs, out.as_mut_slice());
    while !rest.is_empty() {
        let mut bytes = 0;
        let n = rest
            .iter()
            .take(GROUP)
            .take_while(|m| {
                bytes += m.len();
                bytes <= GROUP_BYTES
            })
            .count()
            .max(1);
        let (g, r) = rest.split_at(n);
        let (go, ro) = std::mem::take(&mut rest_out).split_at_mut(n * width);
        groups.push((g, go));
        rest = r;
        rest_out = ro;
    }
    groups
        .into_par_iter()
        .for_each_init(Vec::new, |raw, (g, o)| {
            if !hex {
                return lanesum::hash_many_into(alg, g, o);
            }
            raw.resize(g.len() * size, 0);
            lanesum::hash_many_into(alg, g, raw);
            for (d, h) in raw
                .chunks_exact(size.max(1))
                .zip(o.chunks_exact_mut(width.max(1)))
            {
                lanesum::hex_lower_into(d, h);
            }
        });
    out
}
