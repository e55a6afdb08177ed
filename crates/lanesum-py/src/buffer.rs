//! Read-only views of Python buffer-protocol objects (bytes, bytearray, memoryview, mmap,
//! numpy arrays, ...).
//!
//! pyo3 offers `PyBuffer` only where the limited API has the buffer protocol (3.11 on);
//! this package is built for the stable ABI from 3.9, so the two functions and the
//! `Py_buffer` struct are declared here. Both have been exported by every CPython 3 with
//! this layout, which 3.11 then froze into the stable ABI unchanged.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// CPython's `Py_buffer`.
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

/// `PyBUF_C_CONTIGUOUS`: the exporter refuses anything not laid out in one C-order run.
const PYBUF_C_CONTIGUOUS: c_int = 0x0020 | 0x0010 | 0x0008;

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// One object's bytes, borrowed for as long as this lives (the exporter keeps them still:
/// a bytearray cannot be resized while a view of it is held).
pub struct Bytes {
    raw: RawBuffer,
}

// SAFETY: the view only reads memory that its exporter keeps alive and unmoved until
// `PyBuffer_Release`; the slice it hands out is read-only. It is released with the GIL
// held (see Drop), so moving it between threads is sound.
unsafe impl Send for Bytes {}
// SAFETY: shared access only reads the bytes.
unsafe impl Sync for Bytes {}

impl Bytes {
    /// The bytes of `obj`, or a TypeError (not a buffer; `str`, as hashlib says), a
    /// BufferError (not contiguous) or the exporter's own error (a released memoryview
    /// or a closed mmap: ValueError, as hashlib raises).
    pub fn get(obj: &Bound<'_, PyAny>) -> PyResult<Bytes> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        let mut raw = RawBuffer {
            buf: ptr::null_mut(),
            obj: ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: ptr::null_mut(),
            shape: ptr::null_mut(),
            strides: ptr::null_mut(),
            suboffsets: ptr::null_mut(),
            internal: ptr::null_mut(),
        };
        // A cheap check first: objects without the protocol get hashlib's TypeError rather
        // than whatever the C call would say.
        // SAFETY: `obj` is a live object and the GIL is held (we have a `Bound`); `raw`
        // is a writable Py_buffer that the call fills on success.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut raw, PYBUF_C_CONTIGUOUS) };
        if rc != 0 {
            let err = PyErr::fetch(obj.py());
            // Exporters word a layout they can't give differently (numpy: ValueError,
            // memoryview: BufferError); whether memoryview() takes the object tells a
            // non-contiguous buffer from no buffer at all.
            let py = obj.py();
            let view = py
                .import("builtins")
                .and_then(|b| b.getattr("memoryview"))
                .and_then(|mv| mv.call1((obj,)));
            return Err(match view {
                Ok(_) => PyBufferError::new_err(format!(
                    "lanesum needs a C-contiguous buffer; this {} is not ({}); copy it \
                     first, e.g. bytes(x) or numpy.ascontiguousarray(x)",
                    type_name(obj),
                    err.value(py)
                )),
                Err(e) if e.is_instance_of::<PyTypeError>(py) => PyTypeError::new_err(format!(
                    "object supporting the buffer API required, not '{}'",
                    type_name(obj)
                )),
                // A buffer that can't be read now: a released view, a closed mmap.
                Err(_) => err,
            });
        }
        Ok(Bytes { raw })
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        if self.raw.len <= 0 || self.raw.buf.is_null() {
            return &[];
        }
        // SAFETY: a C-contiguous view is `len` bytes from `buf`, alive and unchanged
        // until PyBuffer_Release in Drop.
        unsafe { std::slice::from_raw_parts(self.raw.buf as *const u8, self.raw.len as usize) }
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        Python::attach(|_| {
            // SAFETY: `raw` was filled by a successful PyObject_GetBuffer and is released
            // once, with the GIL held.
            unsafe { PyBuffer_Release(&mut self.raw) }
        });
    }
}

/// An object's type name, for error messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// Input at least this long is hashed with the GIL released, as hashlib does (below it
/// the hand-off costs more than it frees).
pub const GIL_MIN: usize = 2048;

/// Calls `f` with `obj`'s bytes, with the GIL released from [`GIL_MIN`] bytes on. bytes
/// (immutable) are read directly, without the buffer protocol's bookkeeping; everything
/// else through a view, which pins it (a bytearray cannot be resized under a view, by
/// another thread while the GIL is released or on a free-threaded build).
pub fn with_bytes<R: Send>(
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(&[u8]) -> R + Send,
) -> PyResult<R> {
    with_bytes_from(obj, GIL_MIN, f)
}

/// [`with_bytes`] with the GIL released from `gil_min` bytes on. The engine's streams
/// release it always: a write may wait for a round another thread is hashing.
pub fn with_bytes_from<R: Send>(
    obj: &Bound<'_, PyAny>,
    gil_min: usize,
    f: impl FnOnce(&[u8]) -> R + Send,
) -> PyResult<R> {
    let py = obj.py();
    if let Ok(b) = obj.cast::<PyBytes>() {
        let data = b.as_bytes();
        return Ok(if data.len() >= gil_min {
            py.detach(|| f(data))
        } else {
            f(data)
        });
    }
    let view = Bytes::get(obj)?;
    let data = view.as_slice();
    Ok(if data.len() >= gil_min {
        py.detach(|| f(data))
    } else {
        f(data)
    })
}
