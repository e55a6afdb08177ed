//! The process's descriptor table: the limit on open files, and growing the table.
//!
//! One of the two modules that talk to the OS with `unsafe` (getrlimit, setrlimit, fcntl);
//! the other is `mapped`. The policy (how many files to keep open) is the pipeline's.

/// The soft limit on open files (`ulimit -n`), or `usize::MAX` where it can't be read or
/// is unlimited.
pub(crate) fn open_file_limit() -> usize {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
        usize::try_from(lim.rlim_cur).unwrap_or(usize::MAX)
    } else {
        usize::MAX
    }
}

/// Raise the soft limit on open files to `want`, or to the hard limit where that is
/// lower; nothing if it is at least `want` already (as Go programs do at start).
pub(crate) fn raise_open_file_limit(want: usize) {
    let want = libc::rlim_t::try_from(want).unwrap_or(libc::rlim_t::MAX);
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write only the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < want {
            lim.rlim_cur = want.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// Grow the descriptor table past `above` by taking a descriptor at least that high (a
/// duplicate of a standard one) and closing it at once; the table never shrinks. Nothing
/// if no standard descriptor is open or the limit on open files is below `above`.
pub(crate) fn grow_descriptor_table(above: usize) {
    let Ok(above) = libc::c_int::try_from(above) else {
        return;
    };
    for fd in 0..=2 {
        // SAFETY: fcntl(F_DUPFD_CLOEXEC) only creates a new descriptor (or fails: `fd` not
        // open, or the limit on open files below the target), which is closed at once.
        unsafe {
            let high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, above);
            if high >= 0 {
                libc::close(high);
                return;
            }
        }
    }
}
