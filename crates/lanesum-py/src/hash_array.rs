//! `hash_array`: every value of an Arrow binary or string column, hashed in the SIMD
//! lanes without a copy, as a fixed-size-binary (or hex string) Arrow array.

use std::ffi::CString;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::arrow_ffi::{self, Offsets, OutBuffers};
use crate::batch;
use crate::names::parse_algorithm;

/// A column of digests, exported through the Arrow PyCapsule interface
/// (`pyarrow.array(d)`, `polars.Series(d)`, `arro3.core.Array.from_arrow(d)`).
#[pyclass(frozen, module = "lanesum", name = "DigestArray")]
pub struct DigestArray {
    data: Arc<OutBuffers>,
}

#[pymethods]
impl DigestArray {
    /// The Arrow C data interface: `(schema capsule, array capsule)`, sharing the buffers.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        arrow_ffi::export(py, &self.data)
    }

    fn __len__(&self) -> usize {
        self.data.len
    }

    /// Nulls (rows that were null in the input).
    #[getter]
    fn null_count(&self) -> usize {
        self.data.null_count
    }

    fn __repr__(&self) -> String {
        format!(
            "<lanesum.DigestArray {} rows, format {:?}>",
            self.data.len, self.data.format
        )
    }
}

/// The digests of every value of `array` under `name`: nulls stay null, slices and
/// offsets are honoured; with `hex`, lowercase hex strings. The GIL is released while
/// hashing.
#[pyfunction]
#[pyo3(signature = (array, name, hex=false))]
pub fn hash_array(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    name: &str,
    hex: bool,
) -> PyResult<DigestArray> {
    let alg = parse_algorithm(name)?;
    let chunks = arrow_ffi::import(array)?;
    let total: usize = chunks.iter().map(|c| c.len()).sum();
    let mut msgs: Vec<&[u8]> = Vec::with_capacity(total);
    let mut valid: Vec<bool> = Vec::with_capacity(total);
    for c in &chunks {
        c.rows(|row| {
            valid.push(row.is_some());
            if let Some(r) = row {
                msgs.push(r);
            }
        })?;
    }
    let data = py.detach(|| {
        let size = alg.digest_len();
        if hex {
            build(2 * size, &valid, batch::hex_digests_flat(alg, &msgs), true)
        } else {
            build(size, &valid, batch::digests_flat(alg, &msgs), false)
        }
    });
    drop(msgs);
    drop(chunks);
    Ok(DigestArray {
        data: Arc::new(data),
    })
}

/// The output buffers: digests (or their hex) in row order, zeros or empty strings under
/// nulls. `values` holds the non-null rows' values back to back, `width` bytes each.
fn build(width: usize, valid: &[bool], values: Vec<u8>, hex: bool) -> OutBuffers {
    let len = valid.len();
    let null_count = valid.iter().filter(|v| !**v).count();
    let validity = (null_count > 0).then(|| {
        let mut bits = vec![0u8; len.div_ceil(8)];
        for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v) {
            bits[i / 8] |= 1 << (i % 8);
        }
        bits
    });
    if !hex {
        // Fixed-width binary has a slot under every row: spread the digests out.
        let values = if null_count == 0 {
            values
        } else {
            let mut spread = vec![0u8; len * width];
            let mut next = values.chunks_exact(width.max(1));
            for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v) {
                spread[i * width..(i + 1) * width].copy_from_slice(next.next().unwrap_or(&[]));
            }
            spread
        };
        return OutBuffers {
            format: CString::new(format!("w:{width}")).expect("no NUL"),
            len,
            null_count,
            validity,
            offsets: None,
            values,
        };
    }
    let offsets = if values.len() <= i32::MAX as usize {
        Offsets::Small(offsets_of(len, null_count, width, valid, |e| e as i32))
    } else {
        Offsets::Large(offsets_of(len, null_count, width, valid, |e| e as i64))
    };
    let format = if matches!(offsets, Offsets::Small(_)) {
        "u"
    } else {
        "U"
    };
    OutBuffers {
        format: CString::new(format).expect("no NUL"),
        len,
        null_count,
        validity,
        offsets: Some(offsets),
        values,
    }
}

/// The `len + 1` offsets of a string column of `width`-byte values, none under the rows
/// `valid` marks null: a plain multiple of the row without nulls (a loop the compiler
/// vectorises: the running count took a few ms a million rows).
fn offsets_of<T>(
    len: usize,
    null_count: usize,
    width: usize,
    valid: &[bool],
    cast: impl Fn(usize) -> T,
) -> Vec<T> {
    if null_count == 0 {
        return (0..=len).map(|i| cast(i * width)).collect();
    }
    let mut at = 0usize;
    std::iter::once(cast(0))
        .chain(valid.iter().map(|v| {
            if *v {
                at += width;
            }
            cast(at)
        }))
        .collect()
}
