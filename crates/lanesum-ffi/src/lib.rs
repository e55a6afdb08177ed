//! lanesum's C ABI: algorithms by name, one-shot hashing, streaming hashers (plain,
//! engine-backed, multi-algorithm), `hash_many` over pointer + length arrays and file
//! hashing, for C, C++, Go (cgo) and any language with a C FFI. The header is
//! `include/lanesum.h`, generated from this crate by cbindgen (tests/header.rs keeps it
//! current).
//!
//! Conventions of every call:
//! * Fallible calls return a [`LanesumStatus`]: 0 on success, else a code, with a message
//!   in `lanesum_last_error()` (per thread). A panic never unwinds into C: it is caught
//!   and reported as `LANESUM_ERR_PANIC`.
//! * Objects are handles (a table slot and a generation), not pointers: the null handle,
//!   a freed one (use after free, double free) and one of another kind are reported as
//!   errors, never undefined behaviour, and any handle may be used from any thread (calls
//!   on one handle take turns).
//! * Algorithms are ids from `lanesum_algorithm("sha256", &id)`, parsed once, so a small
//!   hash does not parse a name; new algorithms of the library appear here by name with
//!   no change.
//! * Pointer arguments are checked for null where the call needs them; lengths and
//!   buffers are the caller's to get right, as in any C API.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

use std::ffi::c_char;

mod algorithms;
mod files;
mod hashers;
mod md_state;
mod oneshot;
mod ptrs;
mod registry;
mod status;
mod stream;

pub use algorithms::{
    lanesum_algorithm, lanesum_algorithm_block_len, lanesum_algorithm_digest_len,
    lanesum_algorithm_name, lanesum_algorithm_names_count, lanesum_algorithm_names_get,
    LanesumAlgorithm,
};
pub use files::{
    lanesum_hash_files, lanesum_install_sigbus_handler, LanesumFileCallback, LanesumFileOptions,
    LanesumFileResult,
};
pub use hashers::{
    lanesum_engine_free, lanesum_engine_global, lanesum_engine_new, lanesum_hasher_copy,
    lanesum_hasher_digest_len, lanesum_hasher_finalize, lanesum_hasher_free, lanesum_hasher_new,
    lanesum_hasher_reset, lanesum_hasher_update, lanesum_hasher_update_many,
    lanesum_lane_hasher_new, lanesum_multi_hasher_new, LanesumEngine, LanesumHasher,
};
pub use md_state::{lanesum_hasher_from_md_state, lanesum_hasher_md_state, LanesumMdState};
pub use oneshot::{lanesum_hash, lanesum_hash_many};
pub use ptrs::LanesumSlice;
pub use status::{lanesum_last_error, lanesum_status_str, LanesumStatus};

/// The ABI version this header describes. It changes only when a call, type or constant
/// changes incompatibly; additions keep it. Compare it with `lanesum_abi_version()` to
/// catch a header and library that don't match.
pub const LANESUM_ABI_VERSION: u32 = 1;

/// The ABI version of the library linked (see `LANESUM_ABI_VERSION`).
#[no_mangle]
pub extern "C" fn lanesum_abi_version() -> u32 {
    LANESUM_ABI_VERSION
}

/// The library's version, `"0.1.0"` (static).
#[no_mangle]
pub extern "C" fn lanesum_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
