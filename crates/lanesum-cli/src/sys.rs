//! The command's calls into the OS that need `unsafe`: signals and the thread CPU clock.
//! (The file pipeline's own, maps and descriptors, are in `lanesum_files`.)

use std::time::Duration;

/// End as a C program writing to a closed pipe would: killed by SIGPIPE (the shell sees
/// status 141 and prints nothing). Rust ignores SIGPIPE, so restore the default first.
pub fn die_of_sigpipe() -> ! {
    default_sigpipe();
    // SAFETY: raise() with a valid signal number has no memory-safety preconditions.
    unsafe {
        libc::raise(libc::SIGPIPE);
    }
    std::process::exit(141);
}

/// Restore the default SIGPIPE action (Rust's runtime ignores it), so that writing to a
/// closed pipe ends the process quietly, as it does `md5sum`, instead of the write
/// failing: `lanesum speed | head -3` then stops at once, mid-report.
pub fn default_sigpipe() {
    // SAFETY: signal() with valid constants has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Under an address-space limit (`ulimit -v`), keep malloc to one arena: glibc reserves
/// 64 MiB of address space for each further arena (up to 8 per core), which under
/// `ulimit -v 204800` left too little for anything else, and an allocation that fails
/// outside the pipeline's own buffers aborts. Without a limit nothing changes (arenas
/// only cost address space, and spare threads contention). Call before threads start.
pub fn fit_malloc_to_address_limit() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only the struct passed.
    let limited = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0
        && lim.rlim_cur != libc::RLIM_INFINITY;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if limited {
        // SAFETY: mallopt only sets an allocator parameter; called before other threads.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
    let _ = limited;
}

/// CPU time consumed by the calling thread.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID exists on Linux
    // and every Unix lanesum builds for.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Point standard output at `file` (tests of the command's write errors, in a child).
#[cfg(test)]
pub fn stdout_to(file: &std::fs::File) {
    use std::os::fd::AsRawFd;
    // SAFETY: dup2 onto descriptor 1 only replaces what standard output refers to; both
    // descriptors are valid while `file` lives.
    let rc = unsafe { libc::dup2(file.as_raw_fd(), 1) };
    assert_eq!(rc, 1, "dup2");
}
