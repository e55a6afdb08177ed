//! The command's calls into the OS that need `unsafe`: signals, the thread CPU clock and
//! the standard descriptors. (The file pipeline's own, maps and descriptors, are in
//! `lanesum_files`.)

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

/// Bit `fd` set: standard descriptor `fd` (0 or 1) was closed when the process started
/// (`<&-`, `>&-`). Rust's runtime opens /dev/null on closed standard descriptors before
/// `main`, so this is noted earlier, by [`note_closed_at_start`].
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Runs [`note_closed_at_start`] as the C library starts the program, before Rust's
/// runtime (an ELF initializer: Linux only; elsewhere closed descriptors read as empty
/// and take output silently).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_AT_START: extern "C" fn() = note_closed_at_start;

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
extern "C" fn note_closed_at_start() {
    for fd in 0..2 {
        // SAFETY: fcntl(F_GETFD) only reads the descriptor's flags; a closed one gives -1.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            CLOSED_AT_START.fetch_or(1 << fd, Ordering::Relaxed);
        }
    }
}

fn closed_at_start(fd: i32) -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & (1 << fd) != 0
}

/// Standard input was closed when the process started.
pub fn stdin_closed_at_start() -> bool {
    closed_at_start(0)
}

/// Standard output was closed when the process started.
pub fn stdout_closed_at_start() -> bool {
    closed_at_start(1)
}

/// Make standard input and output that were closed at start fail as closed ones do in a
/// C program (EBADF, so "-: Bad file descriptor", "write error: Bad file descriptor"),
/// instead of reading and writing the /dev/null Rust's runtime put there: stdin is
/// reopened write-only and stdout read-only. Call before any thread starts.
pub fn keep_closed_std_fds_failing() {
    for (fd, flags) in [(0, libc::O_WRONLY), (1, libc::O_RDONLY)] {
        if !closed_at_start(fd) {
            continue;
        }
        // SAFETY: open() of a constant NUL-terminated path; dup2() onto a standard
        // descriptor only replaces what it refers to; close() of the descriptor open()
        // returned, which nothing else holds.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), flags | libc::O_CLOEXEC);
            if null >= 0 {
                libc::dup2(null, fd);
                libc::close(null);
            }
        }
    }
}

/// Descriptor 1 as a writer that reports every failure. `io::Stdout` takes EBADF for
/// success (for programs started with stdout closed), which would hide it.
pub struct RawStdout(ManuallyDrop<File>);

impl RawStdout {
    pub fn new() -> RawStdout {
        // SAFETY: descriptor 1 is open for the life of the process (Rust's runtime opens
        // /dev/null on it if it was closed); ManuallyDrop never closes it.
        RawStdout(ManuallyDrop::new(unsafe { File::from_raw_fd(1) }))
    }
}

impl Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

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
