//! The C calls of streaming hashers (plain, engine-backed and multi-algorithm, with one
//! set of calls for all: update, finalize, reset, copy, free) and of engines.

use lanesum::{Engine, Hasher, MultiHasher};

use crate::algorithms::{self, LanesumAlgorithm};
use crate::ptrs::{self, LanesumSlice};
use crate::registry::{self, Object, GLOBAL_ENGINE};
use crate::status::{run, Error, LanesumStatus, Result};
use crate::stream::{write_digests, Stream};

/// A streaming hasher; 0 is the null handle. Any kind of hasher may be used from any
/// thread, and one handle by several threads (calls on it take turns).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanesumHasher {
    /// Opaque.
    pub id: u64,
}

/// Lanes shared by the engine hashers made on it; 0 is the null handle.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanesumEngine {
    /// Opaque.
    pub id: u64,
}

/// Register `stream` and store its handle in `*out`.
///
/// # Safety
/// `out` must be null or writable.
pub(crate) unsafe fn new_stream(stream: Stream, out: *mut LanesumHasher) -> Result<()> {
    if out.is_null() {
        return Err(Error::null("out"));
    }
    let id = registry::insert(Object::Stream(Box::new(stream)))?;
    // SAFETY: `out` is non-null and, by the caller's contract, writable.
    unsafe { ptrs::put(out, LanesumHasher { id }, "out") }
}

/// A new engine: streams on it share lanes with each other, not with other engines'
/// (a separate engine keeps one group of streams from waiting on another's rounds).
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_engine_new(out: *mut LanesumEngine) -> LanesumStatus {
    run(|| {
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let id = registry::insert(Object::Engine(Engine::new()))?;
        // SAFETY: the caller's contract.
        unsafe { ptrs::put(out, LanesumEngine { id }, "out") }
    })
}

/// The process-wide engine (what most programs use); never needs freeing.
#[no_mangle]
pub extern "C" fn lanesum_engine_global() -> LanesumEngine {
    LanesumEngine { id: GLOBAL_ENGINE }
}

/// Free an engine made by `lanesum_engine_new`. Hashers made on it stay usable.
#[no_mangle]
pub extern "C" fn lanesum_engine_free(engine: LanesumEngine) -> LanesumStatus {
    run(|| {
        if engine.id == GLOBAL_ENGINE {
            return Err(Error::argument("the global engine is never freed"));
        }
        registry::remove(engine.id, "an engine", |o| matches!(o, Object::Engine(_)))
    })
}

/// A plain streaming hasher of `alg` (single-stream kernels; copyable).
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_new(
    alg: LanesumAlgorithm,
    out: *mut LanesumHasher,
) -> LanesumStatus {
    run(|| {
        let a = algorithms::get(alg)?;
        // SAFETY: the caller's contract.
        unsafe { new_stream(Stream::Plain(a, Some(Hasher::new(a))), out) }
    })
}

/// A streaming hasher of `alg` whose blocks share SIMD lanes with the other streams of
/// `engine` (MD5, SHA-1, SHA-2, SM3, SHA-3 and SHAKE; other algorithms hash alone). The
/// one to use when many threads hash streams at once.
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_lane_hasher_new(
    engine: LanesumEngine,
    alg: LanesumAlgorithm,
    out: *mut LanesumHasher,
) -> LanesumStatus {
    run(|| {
        let a = algorithms::get(alg)?;
        let e = registry::engine(engine.id)?;
        let h = e.hasher(a);
        // SAFETY: the caller's contract.
        unsafe { new_stream(Stream::Lane(e, a, Some(h)), out) }
    })
}

/// A hasher computing `count` algorithms of one stream in one pass, on `engine`; its
/// digests come out one after the other in the order of `algs`.
///
/// # Safety
/// `algs` must point to `count` algorithm ids (or be null with `count` 0, which fails);
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_multi_hasher_new(
    engine: LanesumEngine,
    algs: *const LanesumAlgorithm,
    count: usize,
    out: *mut LanesumHasher,
) -> LanesumStatus {
    run(|| {
        // SAFETY: the caller's contract.
        let ids = unsafe { ptrs::array(algs, count, "algs") }?;
        if ids.is_empty() {
            return Err(Error::argument(
                "a multi hasher needs at least one algorithm",
            ));
        }
        let algs = ids
            .iter()
            .map(|&a| algorithms::get(a))
            .collect::<Result<Vec<_>>>()?;
        let e = registry::engine(engine.id)?;
        let h = MultiHasher::with_engine(&e, &algs);
        // SAFETY: the caller's contract.
        unsafe { new_stream(Stream::Multi(e, algs, Some(h)), out) }
    })
}

/// Absorb `len` bytes at `data` (null allowed when `len` is 0).
///
/// # Safety
/// `data` must be null or valid for reads of `len` bytes during the call.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_update(
    hasher: LanesumHasher,
    data: *const u8,
    len: usize,
) -> LanesumStatus {
    run(|| {
        // SAFETY: the caller's contract.
        let data = unsafe { ptrs::bytes(data, len, "data") }?;
        registry::with_stream(hasher.id, |s| s.update(data))
    })
}

/// Absorb `data[i]` into `hashers[i]` for each of `count` hashers, in one call: plain
/// hashers (`lanesum_hasher_new`) of MD5, SHA-1, the SHA-2 family, SM3, BLAKE2b and
/// BLAKE2s side by side in SIMD lanes, each buffer read in place; the others one after
/// another. For a program that gathers many streams' writes itself (a server's request
/// bodies) and hands them over together: as fast per byte as `lanesum_hash_many`, with
/// no engine and no copy. A handle may appear once; when any handle is bad or finalized,
/// nothing is absorbed.
///
/// # Safety
/// `hashers` and `data` must be null (with `count` 0) or point to `count` values each,
/// every descriptor readable for its length during the call.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_update_many(
    hashers: *const LanesumHasher,
    data: *const LanesumSlice,
    count: usize,
) -> LanesumStatus {
    run(|| {
        // SAFETY: the caller's contract.
        let handles = unsafe { ptrs::array(hashers, count, "hashers") }?;
        // SAFETY: the caller's contract.
        let descs = unsafe { ptrs::array(data, count, "data") }?;
        let chunks = descs
            .iter()
            // SAFETY: the caller's contract: each descriptor is readable.
            .map(|s| unsafe { ptrs::slice(s, "data[i].ptr") })
            .collect::<Result<Vec<&[u8]>>>()?;
        let ids: Vec<u64> = handles.iter().map(|h| h.id).collect();
        registry::with_streams(&ids, |streams| Stream::update_many(streams, &chunks))
    })
}

/// The bytes `lanesum_hasher_finalize` writes: the digest length, or for a
/// multi-algorithm hasher the sum of its algorithms' digest lengths.
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_digest_len(
    hasher: LanesumHasher,
    out: *mut usize,
) -> LanesumStatus {
    run(|| {
        let n = registry::with_stream(hasher.id, |s| Ok(s.digest_len()))?;
        // SAFETY: the caller's contract.
        unsafe { ptrs::put(out, n, "out") }
    })
}

/// Write the digest (a multi-algorithm hasher: every digest, in order) into `out`, which
/// holds `out_cap` bytes; the length written goes to `*out_len` unless it is null. The
/// hasher is then finalized: update or finalize it again only after a reset. A buffer too
/// small fails before anything is finalized.
///
/// # Safety
/// `out` must be null or writable for `out_cap` bytes; `out_len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_finalize(
    hasher: LanesumHasher,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> LanesumStatus {
    run(|| {
        // SAFETY: the caller's contract.
        let buf = unsafe { ptrs::bytes_mut(out, out_cap, "out") }?;
        let digests = registry::with_stream(hasher.id, |s| {
            let need = s.digest_len();
            if need > buf.len() {
                return Err(Error::buffer(need, buf.len()));
            }
            s.finalize()
        })?;
        let n = write_digests(&digests, buf);
        // SAFETY: the caller's contract.
        unsafe { ptrs::put_opt(out_len, n) };
        Ok(())
    })
}

/// Start over, as a new hasher of the same kind, algorithms and engine (also after
/// finalize).
#[no_mangle]
pub extern "C" fn lanesum_hasher_reset(hasher: LanesumHasher) -> LanesumStatus {
    run(|| {
        registry::with_stream(hasher.id, |s| {
            s.reset();
            Ok(())
        })
    })
}

/// A new hasher in the same state as `hasher` (a plain one: engine hashers can't be
/// copied, `LANESUM_ERR_UNSUPPORTED`). Used to take a digest and go on writing.
///
/// # Safety
/// `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hasher_copy(
    hasher: LanesumHasher,
    out: *mut LanesumHasher,
) -> LanesumStatus {
    run(|| {
        let copy = registry::with_stream(hasher.id, |s| match s {
            Stream::Plain(a, h) => Ok(Stream::Plain(*a, h.clone())),
            _ => Err(Error::new(
                LanesumStatus::LANESUM_ERR_UNSUPPORTED,
                "only plain hashers (lanesum_hasher_new) can be copied",
            )),
        })?;
        // SAFETY: the caller's contract.
        unsafe { new_stream(copy, out) }
    })
}

/// Free a hasher of any kind, finalized or not. Freeing it again, or using it after, is
/// reported as `LANESUM_ERR_HANDLE`.
#[no_mangle]
pub extern "C" fn lanesum_hasher_free(hasher: LanesumHasher) -> LanesumStatus {
    run(|| registry::remove(hasher.id, "a hasher", |o| matches!(o, Object::Stream(_))))
}
