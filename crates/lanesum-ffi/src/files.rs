//! Files and trees through `lanesum-files`' pipeline (small files in SIMD lanes, big ones
//! mapped or streamed side by side), results handed to a callback in input order.

use std::ffi::{c_char, c_void, OsStr};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use lanesum_files::{hash_paths, Options};

use crate::algorithms::{self, LanesumAlgorithm};
use crate::ptrs;
use crate::status::{run, Error, LanesumStatus, Result};

/// How operands are expanded and read; a null pointer means all defaults (no recursion,
/// big files mapped once `lanesum_install_sigbus_handler` was called).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LanesumFileOptions {
    /// Non-zero: walk directories and hash the regular files below them, sorted by name.
    pub recursive: i32,
    /// Non-zero: follow symbolic links met in a walk (loops are reported).
    pub follow_links: i32,
    /// Non-zero: stay on each operand's file system.
    pub one_file_system: i32,
    /// Non-zero: map big files (only after `lanesum_install_sigbus_handler`).
    pub mmap: i32,
    /// Glob patterns of walked entries to skip (`*.tmp`, `.git`); may be null if
    /// `excludes_len` is 0.
    pub excludes: *const *const c_char,
    /// Number of patterns in `excludes`.
    pub excludes_len: usize,
}

/// One file's result, valid only during the callback.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LanesumFileResult {
    /// The path as given or found by a walk (bytes, not NUL-terminated: see `path_len`).
    pub path: *const u8,
    /// Length of `path`.
    pub path_len: usize,
    /// 0: `digests` holds the digests. Otherwise the file's error (`errno` value when the
    /// system gave one, else -1), described by `error`.
    pub os_error: i32,
    /// The error message (NUL-terminated), or null when `os_error` is 0.
    pub error: *const c_char,
    /// Bytes hashed.
    pub size: u64,
    /// The digests, one per algorithm in order, one after the other.
    pub digests: *const u8,
    /// Total length of `digests`.
    pub digests_len: usize,
}

/// Called once per file in order; return 0 to go on, anything else to stop (then
/// `lanesum_hash_files` returns `LANESUM_ERR_CANCELLED`).
pub type LanesumFileCallback =
    Option<unsafe extern "C" fn(user: *mut c_void, result: *const LanesumFileResult) -> i32>;

/// Make truncated mapped files an error rather than a SIGBUS crash, so that big files can be
/// mapped (faster than read). For programs, not libraries: it installs a process-wide
/// signal handler. Call it first thing, before threads start.
#[no_mangle]
pub extern "C" fn lanesum_install_sigbus_handler() -> LanesumStatus {
    run(|| {
        lanesum_files::install_sigbus_handler("lanesum: a mapped file shrank while hashed\n");
        Ok(())
    })
}

/// Hash `npaths` files (`-` is standard input; with `recursive`, directories' files)
/// under `nalgs` algorithms; `callback(user, result)` gets each file's result in order.
/// A file's own failure (missing, unreadable) is in its result, not the return value,
/// which is `LANESUM_OK`, an argument error (a bad exclude glob) or `LANESUM_ERR_CANCELLED`.
///
/// # Safety
/// `paths` must point to `npaths` NUL-terminated strings, `algs` to `nalgs` ids, `opts`
/// be null or point to valid options (with `excludes_len` strings in `excludes`); the
/// callback must not unwind.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hash_files(
    paths: *const *const c_char,
    npaths: usize,
    algs: *const LanesumAlgorithm,
    nalgs: usize,
    opts: *const LanesumFileOptions,
    callback: LanesumFileCallback,
    user: *mut c_void,
) -> LanesumStatus {
    run(|| {
        let callback = callback.ok_or_else(|| Error::null("callback"))?;
        // SAFETY: the caller's contract.
        let path_ptrs = unsafe { ptrs::array(paths, npaths, "paths") }?;
        let paths = path_ptrs
            .iter()
            // SAFETY: the caller's contract: each is a C string.
            .map(|&p| unsafe { ptrs::c_bytes(p, "paths[i]") }.map(OsStr::from_bytes))
            .collect::<Result<Vec<&OsStr>>>()?;
        // SAFETY: the caller's contract.
        let ids = unsafe { ptrs::array(algs, nalgs, "algs") }?;
        if ids.is_empty() {
            return Err(Error::argument("no algorithms"));
        }
        let algs = ids
            .iter()
            .map(|&a| algorithms::get(a))
            .collect::<Result<Vec<_>>>()?;
        // SAFETY: the caller's contract.
        let options = unsafe { options(opts) }?;
        let results = hash_paths(paths.iter().copied(), &algs, &options)
            .map_err(|e| Error::argument(e.to_string()))?;
        let mut digests = Vec::new();
        for f in results {
            let path = f.path.into_vec();
            digests.clear();
            let message: Vec<u8> = match &f.result {
                Ok(_) => Vec::new(),
                Err(e) => {
                    let mut m = e.to_string().replace('\0', "?").into_bytes();
                    m.push(0);
                    m
                }
            };
            let mut r = LanesumFileResult {
                path: path.as_ptr(),
                path_len: path.len(),
                os_error: 0,
                error: std::ptr::null(),
                size: 0,
                digests: std::ptr::null(),
                digests_len: 0,
            };
            match &f.result {
                Ok(h) => {
                    for d in &h.digests {
                        digests.extend_from_slice(d.as_bytes());
                    }
                    r.size = h.size;
                    r.digests = digests.as_ptr();
                    r.digests_len = digests.len();
                }
                Err(e) => {
                    r.os_error = e.raw_os_error().unwrap_or(-1);
                    r.error = message.as_ptr().cast();
                }
            }
            // SAFETY: the caller's contract: a valid callback that does not unwind;
            // `r` and what it points to live until it returns.
            if unsafe { callback(user, &r) } != 0 {
                return Err(Error::new(
                    LanesumStatus::LANESUM_ERR_CANCELLED,
                    "the callback stopped the walk",
                ));
            }
        }
        Ok(())
    })
}

/// The options C gave, or the defaults.
///
/// # Safety
/// As `lanesum_hash_files`' `opts`.
unsafe fn options(opts: *const LanesumFileOptions) -> Result<Options> {
    let mut o = Options::default();
    if opts.is_null() {
        return Ok(o);
    }
    // SAFETY: non-null; the caller's contract.
    let c = unsafe { &*opts };
    // SAFETY: the caller's contract.
    let excludes = unsafe { ptrs::array(c.excludes, c.excludes_len, "excludes") }?;
    o.recursive = c.recursive != 0;
    o.follow_links = c.follow_links != 0;
    o.one_file_system = c.one_file_system != 0;
    o.mmap = c.mmap != 0;
    for &p in excludes {
        // SAFETY: the caller's contract: each is a C string.
        o.excludes
            .push(unsafe { ptrs::c_str(p, "excludes[i]") }?.to_owned());
    }
    Ok(o)
}
