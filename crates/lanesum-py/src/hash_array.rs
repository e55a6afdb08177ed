//! `hash_array`: every value of an Arrow binary or string column, hashed in the SIMD
//! lanes without a copy, as a fixed-size-binary (or hex string) Arrow array.

use std::ffi::CString;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::arrow_ffi::{self, Offsets, OutBuffers};
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
        let digests = crate::batch::digests_flat(alg, &msgs);
        build(alg.digest_len(), &valid, digests, hex)
    });
    drop(msgs);
    drop(chunks);
    Ok(DigestArray {
        data: Arc::new(data),
    })
}

/// The output buffers: digests (or hex) in row order, zeros or empty strings under nulls.
/// `digests` holds the non-null rows' digests back to back, `size` bytes each.
fn build(size: usize, valid: &[bool], digests: Vec<u8>, hex: bool) -> OutBuffers {
    let len = valid.len();
    let null_count = valid.iter().filter(|v| !**v).count();
    let validity = (null_count > 0).then(|| {
        let mut bits = vec![0u8; len.div_ceil(8)];
        for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v) {
            bits[i / 8] |= 1 << (i % 8);
        }
        bits
    });
    let width = if hex { 2 * size } else { size };
    let values = if hex {
        let mut v = vec![0u8; (len - null_count) * width];
        for (d, out) in digests
            .chunks_exact(size.max(1))
            .zip(v.chunks_exact_mut(width.max(1)))
        {
            hex_into(d, out);
        }
        v
    } else {
        digests
    };
    if !hex {
        // Fixed-size binary has a slot under every row: spread the digests out.
        let values = if null_count == 0 {
            values
        } else {
            let mut spread = vec![0u8; len * size];
            let mut next = values.chunks_exact(size.max(1));
            for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v) {
                spread[i * size..(i + 1) * size].copy_from_slice(next.next().unwrap_or(&[]));
            }
            spread
        };
        return OutBuffers {
            format: CString::new(format!("w:{size}")).expect("no NUL"),
            len,
            null_count,
            validity,
            offsets: None,
            values,
        };
    }
    let mut at = 0usize;
    let ends = valid.iter().map(|v| {
        if *v {
            at += width;
        }
        at
    });
    let offsets = if values.len() <= i32::MAX as usize {
        Offsets::Small(std::iter::once(0).chain(ends.map(|e| e as i32)).collect())
    } else {
        Offsets::Large(std::iter::once(0).chain(ends.map(|e| e as i64)).collect())
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

/// Lowercase hex of `bytes` into `out` (twice as long).
fn hex_into(bytes: &[u8], out: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (b, o) in bytes.iter().zip(out.chunks_exact_mut(2)) {
        o[0] = DIGITS[usize::from(b >> 4)];
        o[1] = DIGITS[usize::from(b & 15)];
    }
}
