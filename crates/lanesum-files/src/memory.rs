//! Buffers that grow with the work and fail as errors, never as an abort.
//!
//! Rust's `vec![0; n]` aborts the process when the allocation fails (under `ulimit -v`, or
//! a container's memory limit that refuses address space). Every large buffer of the
//! pipeline is grown here instead, with `try_reserve`, so that a refused allocation
//! becomes an [`io::ErrorKind::OutOfMemory`] error on the file that needed it, reported
//! in its place like any other I/O error.

use std::io;

/// Bytes of address space this process may still map or allocate under its soft
/// `ulimit -v` (RLIMIT_AS), or `None` where there is no such limit (or /proc can't tell).
/// Maps count against that limit as much as allocations do: the big-file windows and
/// the small-file buffers are sized to leave most of it to everything else, so that a
/// limited process gets smaller windows rather than failed allocations.
pub(crate) fn address_space_left() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let limit: usize = line
        .trim_start_matches("Max address space")
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().next()?.parse().ok()?;
    Some(limit.saturating_sub(pages.saturating_mul(4096)))
}

/// `want` bytes, or less where the address space left is short (the soft `ulimit -v`
/// less what the process maps now, read from /proc): at most `left / share` then, and
/// at least `floor`. How large a buffer to
/// ask for under a `ulimit -v`, so that it leaves room for the allocations after it
/// (most of which abort when refused).
pub fn within_address_space(want: usize, share: usize, floor: usize) -> usize {
    match address_space_left() {
        Some(left) => want.min(left / share.max(1)).max(floor),
        None => want.max(floor),
    }
}

/// The error of a buffer of `bytes` bytes that could not be allocated.
pub(crate) fn out_of_memory(bytes: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("cannot allocate a buffer of {bytes} bytes (memory or address-space limit)"),
    )
}

/// Make `buf` at least `len` bytes long (zero-filled where it grows); it never shrinks,
/// so a buffer reused for one window after another is zeroed only once.
pub(crate) fn grow_to(buf: &mut Vec<u8>, len: usize) -> io::Result<()> {
    if buf.len() < len {
        buf.try_reserve_exact(len - buf.len())
            .map_err(|_| out_of_memory(len))?;
        buf.resize(len, 0);
    }
    Ok(())
}

/// As [`grow_to`], for a buffer filled piece by piece (a task's small files, one after
/// another): where the capacity must grow it at least doubles, so the buffer is moved
/// O(log n) times rather than once per piece. Growing by exactly what each file needed
/// cost 25% of `-r` over 20,000 files on 16 cores (md5 83 -> 62 ms): every step was a
/// `realloc`, and the moves and page-table changes of 16 threads contend in the kernel.
/// Where doubling is refused (a `ulimit -v`), it grows by exactly what is needed.
pub(crate) fn grow_amortized(buf: &mut Vec<u8>, len: usize) -> io::Result<()> {
    if buf.capacity() < len && buf.try_reserve(len - buf.len()).is_err() {
        return grow_to(buf, len);
    }
    grow_to(buf, len)
}

/// A zero-filled buffer of `len` bytes, or the error saying it could not be had.
pub(crate) fn zeroed(len: usize) -> io::Result<Vec<u8>> {
    let mut v = Vec::new();
    grow_to(&mut v, len)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An allocation no machine can make is an error, not an abort.
    #[test]
    fn impossible_sizes_are_errors() {
        let e = zeroed(usize::MAX / 2).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        let mut v = vec![1u8; 10];
        assert!(grow_to(&mut v, isize::MAX as usize).is_err());
        assert_eq!(v, [1; 10], "a failed growth leaves the buffer as it was");
        grow_to(&mut v, 20).unwrap();
        assert_eq!(v.len(), 20);
        grow_to(&mut v, 5).unwrap();
        assert_eq!(v.len(), 20, "never shrinks");
        let mut w = Vec::new();
        let mut moves = 0;
        for len in (1..=1000).map(|i| i * 100) {
            let cap = w.capacity();
            grow_amortized(&mut w, len).unwrap();
            assert_eq!(w.len(), len);
            moves += usize::from(w.capacity() != cap);
        }
        assert!(moves <= 20, "{moves} reallocations for 1000 steps");
        assert!(grow_amortized(&mut w, isize::MAX as usize).is_err());
    }

    /// Without a limit (the test runner's), the sizes asked for; under one, within it.
    #[test]
    fn sizes_fit_the_address_space() {
        match address_space_left() {
            None => assert_eq!(within_address_space(1 << 30, 4, 1), 1 << 30),
            Some(left) => assert!(within_address_space(usize::MAX, 4, 1) <= left / 4 + 1),
        }
        assert_eq!(within_address_space(0, 4, 7), 7);
    }
}
