//! Raw pointers from C turned into Rust references, with null and size checks: the one
//! place where caller-provided memory is trusted, each use stating the caller's contract.

use std::ffi::{c_char, CStr};

use crate::status::{Error, Result};

/// A byte slice passed as pointer + length (`ptr` may be null when `len` is 0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LanesumSlice {
    /// The first byte; may be null when `len` is 0.
    pub ptr: *const u8,
    /// Length in bytes.
    pub len: usize,
}

fn check_len(len: usize, what: &str) -> Result<()> {
    if len > isize::MAX as usize {
        return Err(Error::argument(format!(
            "{what}: length {len} is too large"
        )));
    }
    Ok(())
}

/// `len` bytes at `ptr`; a null `ptr` is an error unless `len` is 0.
///
/// # Safety
/// Unless null, `ptr` must be valid for reads of `len` bytes for `'a`, not written meanwhile.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    check_len(len, what)?;
    // SAFETY: non-null, len checked; the caller guarantees `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// `len` writable bytes at `ptr`; a null `ptr` is an error unless `len` is 0.
///
/// # Safety
/// Unless null, `ptr` must be valid for writes of `len` bytes for `'a`, and not accessed
/// otherwise meanwhile.
pub(crate) unsafe fn bytes_mut<'a>(ptr: *mut u8, len: usize, what: &str) -> Result<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    check_len(len, what)?;
    // SAFETY: non-null, len checked; the caller guarantees `len` writable bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// `len` elements of `T` at `ptr`; a null `ptr` is an error unless `len` is 0.
///
/// # Safety
/// Unless null, `ptr` must point to `len` initialized, aligned values of `T` for `'a`.
pub(crate) unsafe fn array<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    check_len(len.saturating_mul(size_of::<T>()), what)?;
    // SAFETY: non-null, size checked; the caller guarantees `len` valid elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The bytes of a slice descriptor.
///
/// # Safety
/// As [`bytes`] for `s.ptr` and `s.len`.
pub(crate) unsafe fn slice<'a>(s: &LanesumSlice, what: &str) -> Result<&'a [u8]> {
    // SAFETY: forwarded contract.
    unsafe { bytes(s.ptr, s.len, what) }
}

/// A NUL-terminated C string as bytes (without the NUL).
///
/// # Safety
/// Unless null, `ptr` must point to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn c_bytes<'a>(ptr: *const c_char, what: &str) -> Result<&'a [u8]> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-null; the caller guarantees a NUL-terminated string.
    Ok(unsafe { CStr::from_ptr(ptr) }.to_bytes())
}

/// A NUL-terminated UTF-8 string.
///
/// # Safety
/// As [`c_bytes`].
pub(crate) unsafe fn c_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    // SAFETY: forwarded contract.
    let b = unsafe { c_bytes(ptr, what) }?;
    std::str::from_utf8(b).map_err(|_| Error::argument(format!("{what} is not UTF-8")))
}

/// Store `value` through an out-pointer.
///
/// # Safety
/// Unless null, `ptr` must be valid for a write of one aligned `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T, what: &str) -> Result<()> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-null; the caller guarantees it is writable and aligned.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Store `value` through an optional out-pointer (null: nothing is stored).
///
/// # Safety
/// As [`put`].
pub(crate) unsafe fn put_opt<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-null; the caller guarantees it is writable and aligned.
        unsafe { ptr.write(value) };
    }
}
