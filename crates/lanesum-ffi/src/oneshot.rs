//! Whole messages: one (`lanesum_hash`) or many at once through the SIMD lanes
//! (`lanesum_hash_many`).

use lanesum::{hash, hash_many, hash_many_par};

use crate::algorithms::{self, LanesumAlgorithm};
use crate::ptrs::{self, LanesumSlice};
use crate::status::{run, Error, LanesumStatus, Result};

/// The digest of `len` bytes at `data` under `alg`, written to `out` (`out_cap` bytes;
/// the digest length goes to `*out_len` unless it is null).
///
/// # Safety
/// `data` must be null or readable for `len` bytes, `out` null or writable for `out_cap`
/// bytes, `out_len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hash(
    alg: LanesumAlgorithm,
    data: *const u8,
    len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> LanesumStatus {
    run(|| {
        let a = algorithms::get(alg)?;
        // SAFETY: the caller's contract.
        let data = unsafe { ptrs::bytes(data, len, "data") }?;
        // SAFETY: the caller's contract.
        let buf = unsafe { ptrs::bytes_mut(out, out_cap, "out") }?;
        let n = a.digest_len();
        if n > buf.len() {
            return Err(Error::buffer(n, buf.len()));
        }
        buf[..n].copy_from_slice(hash(a, data).as_bytes());
        // SAFETY: the caller's contract.
        unsafe { ptrs::put_opt(out_len, n) };
        Ok(())
    })
}

/// The digests of `count` messages (`msgs[i]`, pointer + length each) under `alg`, hashed
/// together in SIMD lanes; digest `i` goes to `out + i * digest_len` (`out_cap` must be at
/// least `count * digest_len`). With `parallel` non-zero the work is spread over every
/// core.
///
/// # Safety
/// `msgs` must be null (with `count` 0) or point to `count` descriptors, each readable for
/// its length during the call; `out` null or writable for `out_cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn lanesum_hash_many(
    alg: LanesumAlgorithm,
    msgs: *const LanesumSlice,
    count: usize,
    out: *mut u8,
    out_cap: usize,
    parallel: i32,
) -> LanesumStatus {
    run(|| {
        let a = algorithms::get(alg)?;
        // SAFETY: the caller's contract.
        let descs = unsafe { ptrs::array(msgs, count, "msgs") }?;
        let msgs = descs
            .iter()
            // SAFETY: the caller's contract: each descriptor is readable.
            .map(|s| unsafe { ptrs::slice(s, "msgs[i].ptr") })
            .collect::<Result<Vec<&[u8]>>>()?;
        // SAFETY: the caller's contract.
        let buf = unsafe { ptrs::bytes_mut(out, out_cap, "out") }?;
        let n = a.digest_len();
        let need = n
            .checked_mul(count)
            .ok_or_else(|| Error::argument("count * digest length overflows"))?;
        if need > buf.len() {
            return Err(Error::buffer(need, buf.len()));
        }
        let digests = if parallel != 0 {
            hash_many_par(a, &msgs)
        } else {
            hash_many(a, &msgs)
        };
        crate::stream::write_digests(&digests, buf);
        Ok(())
    })
}
