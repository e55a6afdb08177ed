//! Return codes, the thread's last error message, and the wrapper every entry point runs
//! its body in (so that no panic crosses the C boundary).

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What every fallible call returns: `LANESUM_OK` (0) or why it failed. On failure
/// `lanesum_last_error()` holds a message saying more.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LanesumStatus {
    /// Success.
    LANESUM_OK = 0,
    /// A required pointer was null, or a handle was the zero (null) handle.
    LANESUM_ERR_NULL = 1,
    /// An unknown algorithm name, or an algorithm id this library never handed out.
    LANESUM_ERR_ALGORITHM = 2,
    /// A handle that was freed already, never allocated, or of the wrong kind.
    LANESUM_ERR_HANDLE = 3,
    /// The output buffer is too small; the message says how large it must be.
    LANESUM_ERR_BUFFER = 4,
    /// The hasher was finalized: reset it before updating it again.
    LANESUM_ERR_STATE = 5,
    /// The operation does not apply to this kind of hasher (copying an engine hasher).
    LANESUM_ERR_UNSUPPORTED = 6,
    /// An invalid argument: a string that is not UTF-8, no algorithms, a bad glob.
    LANESUM_ERR_ARGUMENT = 7,
    /// The file callback asked to stop.
    LANESUM_ERR_CANCELLED = 8,
    /// A bug in lanesum: a panic was caught at the boundary. The handle involved (if any)
    /// can only be freed afterwards.
    LANESUM_ERR_PANIC = 9,
}

use LanesumStatus::*;

/// A failed call's code and message.
#[derive(Debug)]
pub(crate) struct Error {
    pub status: LanesumStatus,
    pub message: String,
}

impl Error {
    pub fn new(status: LanesumStatus, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    pub fn null(what: &str) -> Error {
        Error::new(LANESUM_ERR_NULL, format!("{what} is null"))
    }

    pub fn argument(message: impl Into<String>) -> Error {
        Error::new(LANESUM_ERR_ARGUMENT, message)
    }

    pub fn buffer(needed: usize, given: usize) -> Error {
        Error::new(
            LANESUM_ERR_BUFFER,
            format!("output buffer of {given} bytes is too small: {needed} needed"),
        )
    }
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

thread_local! {
    /// The message of this thread's last failed call; C reads it through a pointer, so it
    /// is replaced only by the next failure.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let c = CString::new(message.replace('\0', "?")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs an entry point's body: its error becomes a status and this thread's last error,
/// and a panic becomes `LANESUM_ERR_PANIC` instead of unwinding into C (which would abort
/// the process, or worse).
pub(crate) fn run(body: impl FnOnce() -> Result<()>) -> LanesumStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => LANESUM_OK,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown payload".into());
            set_last_error(&format!("lanesum panicked (a bug, please report): {what}"));
            LANESUM_ERR_PANIC
        }
    }
}

/// As [`run`] for the few entry points that return a value rather than a status: a
/// panic gives `fallback`.
pub(crate) fn run_or<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// The message of the last call on this thread that failed (empty if none has).
///
/// The pointer stays valid until the next failing lanesum call on the same thread. Go and
/// other runtimes that move work between threads should read it in the same native call
/// as the failing one.
#[no_mangle]
pub extern "C" fn lanesum_last_error() -> *const c_char {
    run_or(c"".as_ptr(), || LAST_ERROR.with(|e| e.borrow().as_ptr()))
}

/// A fixed description of a status code (for codes this library does not know, "unknown
/// status"). Never null; the string is static.
#[no_mangle]
pub extern "C" fn lanesum_status_str(status: i32) -> *const c_char {
    let s = match status {
        0 => c"ok",
        1 => c"null pointer or handle",
        2 => c"unknown algorithm",
        3 => c"invalid handle (freed, never allocated, or of another kind)",
        4 => c"output buffer too small",
        5 => c"hasher finalized; reset it first",
        6 => c"not supported by this kind of hasher",
        7 => c"invalid argument",
        8 => c"cancelled by the callback",
        9 => c"internal panic",
        _ => c"unknown status",
    };
    s.as_ptr()
}
