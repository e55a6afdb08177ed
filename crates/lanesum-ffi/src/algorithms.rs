//! Algorithms by name: names are parsed once into small ids that every other call takes,
//! so that a hash of a few bytes does not pay for parsing a name each time.

use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use lanesum::Algorithm;

use crate::ptrs;
use crate::status::{run, run_or, Error, LanesumStatus, Result};

/// An algorithm (with its output length) as an id from `lanesum_algorithm()`; 0 is none.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanesumAlgorithm {
    /// Opaque; valid for the life of the process.
    pub id: u32,
}

/// Distinct algorithms (names with different output lengths count apart) a process can
/// look up; far more than any program uses.
const CAPACITY: usize = 4096;

struct Entry {
    alg: Algorithm,
    name: CString,
}

/// Append-only: lookups by id read without a lock, new names are added under `ADD`.
static TABLE: [OnceLock<Entry>; CAPACITY] = [const { OnceLock::new() }; CAPACITY];
static LEN: AtomicU32 = AtomicU32::new(0);
static ADD: Mutex<()> = Mutex::new(());

/// The id of `alg`, added to the table if new.
pub(crate) fn intern(alg: Algorithm) -> Result<LanesumAlgorithm> {
    let find = |len: u32| {
        (0..len as usize)
            .find(|&i| TABLE[i].get().is_some_and(|e| e.alg == alg))
            .map(|i| LanesumAlgorithm { id: i as u32 + 1 })
    };
    if let Some(a) = find(LEN.load(Ordering::Acquire)) {
        return Ok(a);
    }
    let _guard = ADD.lock().unwrap_or_else(|p| p.into_inner());
    let len = LEN.load(Ordering::Acquire);
    if let Some(a) = find(len) {
        return Ok(a);
    }
    let slot = TABLE.get(len as usize).ok_or_else(|| {
        Error::argument(format!(
            "more than {CAPACITY} distinct algorithms looked up"
        ))
    })?;
    let name = CString::new(alg.to_string()).unwrap_or_default();
    let _ = slot.set(Entry { alg, name });
    LEN.store(len + 1, Ordering::Release);
    Ok(LanesumAlgorithm { id: len + 1 })
}

fn entry(a: LanesumAlgorithm) -> Result<&'static Entry> {
    (a.id as usize)
        .checked_sub(1)
        .and_then(|i| TABLE.get(i))
        .and_then(OnceLock::get)
        .ok_or_else(|| {
            Error::new(
                LanesumStatus::LANESUM_ERR_ALGORITHM,
                format!(
                    "algorithm id {} was not returned by lanesum_algorithm",
                    a.id
                ),
            )
        })
}

/// The algorithm behind an id.
pub(crate) fn get(a: LanesumAlgorithm) -> Result<Algorithm> {
    entry(a).map(|e| e.alg)
}

/// Parse a name as the library does (case-insensitive, `sha-256`, `blake2b-256`, `b3`).
pub(crate) fn parse(name: &str) -> Result<Algorithm> {
    name.parse::<Algorithm>()
        .map_err(|e| Error::new(LanesumStatus::LANESUM_ERR_ALGORITHM, e.to_string()))
}

/// Look up an algorithm by name: `md5`, `sha1`, `sha256`, `SHA-512/256`, `blake2b-256`,
/// `blake3`, ... (case-insensitive; the names `lanesum_algorithm_names_get` lists, with
/// `-BITS` choosing an output length where a family allows one).
///
/// # Safety
/// `name` must be null or a NUL-terminated string; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_algorithm(
    name: *const c_char,
    out: *mut LanesumAlgorithm,
) -> LanesumStatus {
    run(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { ptrs::c_str(name, "name") }?;
        let a = intern(parse(name)?)?;
        // SAFETY: the caller's contract.
        unsafe { ptrs::put(out, a, "out") }
    })
}

/// The digest length in bytes of `alg`.
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_algorithm_digest_len(
    alg: LanesumAlgorithm,
    out: *mut usize,
) -> LanesumStatus {
    run(|| {
        let n = get(alg)?.digest_len();
        // SAFETY: the caller's contract.
        unsafe { ptrs::put(out, n, "out") }
    })
}

/// The block length in bytes of `alg` (what Go's `hash.Hash.BlockSize` reports).
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_algorithm_block_len(
    alg: LanesumAlgorithm,
    out: *mut usize,
) -> LanesumStatus {
    run(|| {
        let n = get(alg)?.block_len();
        // SAFETY: the caller's contract.
        unsafe { ptrs::put(out, n, "out") }
    })
}

/// The canonical name of `alg` (`sha512-256`, `blake2b-256`), static; null for an id
/// this library never returned.
#[no_mangle]
pub extern "C" fn lanesum_algorithm_name(alg: LanesumAlgorithm) -> *const c_char {
    run_or(std::ptr::null(), || {
        entry(alg).map_or(std::ptr::null(), |e| e.name.as_ptr())
    })
}

/// The algorithm names this build knows, as documentation lists them (`md5`,
/// `blake2b[-BITS]`, ...): this many.
#[no_mangle]
pub extern "C" fn lanesum_algorithm_names_count() -> usize {
    Algorithm::NAMES.len()
}

/// The `i`-th known name (static), or null past the end.
#[no_mangle]
pub extern "C" fn lanesum_algorithm_names_get(i: usize) -> *const c_char {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    run_or(std::ptr::null(), || {
        let names = NAMES.get_or_init(|| {
            Algorithm::NAMES
                .iter()
                .map(|n| CString::new(*n).unwrap_or_default())
                .collect()
        });
        names.get(i).map_or(std::ptr::null(), |n| n.as_ptr())
    })
}
