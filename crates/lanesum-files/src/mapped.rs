//! Memory maps that survive truncation, for big files where mapping pays.
//!
//! Mapping saves the copy out of the page cache: MD5 of 64 files of 16 MiB side by side
//! took 0.30 s of CPU mapped against 0.38 s read (Zen 3, 2 cores). Files are mapped a
//! window at a time, so the mapped pages counted in the resident set stay bounded. A
//! lone big file hashed on every core is read instead, every core reading a piece (see
//! `lone::hash_lone`): there the faults and the serial unmapping cost more than the
//! copy.
//!
//! A mapped file truncated by another process raises SIGBUS on the vanished pages. For a
//! registered map the handler here puts a zero page at the faulting address and marks the
//! map: hashing completes and the file is reported as changed while it was read. Any other
//! SIGBUS (the whole-input modes' maps, see `source::open_source`) prints the program's
//! message and ends the run with status 1.
//!
//! Nothing is mapped until the program has installed the handler
//! ([`install_sigbus_handler`]): a library must not install signal handlers behind its
//! caller's back, and without one a truncated map would kill the caller.
//!
//! This is one of the two modules that talk to the OS with `unsafe` (mmap, sigaction);
//! the other is `fds`.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Maps registered at once (twice `pipeline::GROUP`, so a group never runs out);
/// more concurrent big files are read instead.
const SLOTS: usize = 256;
static USED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static FAULTED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
/// What the handler writes to standard error for a fault outside the registered maps.
static MESSAGE: OnceLock<&'static str> = OnceLock::new();
/// [`install_sigbus_handler`] has run: maps may be made.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Whether the SIGBUS handler is installed, so that files may be mapped.
pub(crate) fn handler_installed() -> bool {
    INSTALLED.load(Ordering::SeqCst)
}

/// A read-only map of part of a file, registered with the SIGBUS handler.
pub(crate) struct Guarded {
    map: memmap2::Mmap,
    slot: usize,
    /// The file offset the map ends at.
    end: u64,
}

impl Guarded {
    /// Whether part of the mapped range of `f` (the file mapped) vanished while mapped:
    /// those bytes read as zeros. Whole pages past the new end fault (see `on_sigbus`);
    /// the rest of the page the file now ends in reads as zeros without a fault, so the
    /// size is asked again too. Call after reading the map.
    pub(crate) fn truncated(&self, f: &File) -> bool {
        FAULTED[self.slot].load(Ordering::SeqCst) || ends_before(f, self.end)
    }
}

/// Whether `f` now ends before `end` (or can no longer be stat'ed): how a truncation
/// inside a mapped page shows, since those bytes read as zeros without a fault.
pub(crate) fn ends_before(f: &File, end: u64) -> bool {
    f.metadata().map_or(true, |m| m.len() < end)
}

impl std::ops::Deref for Guarded {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        START[self.slot].store(0, Ordering::SeqCst);
        LEN[self.slot].store(0, Ordering::SeqCst);
        USED[self.slot].store(false, Ordering::SeqCst);
    }
}

/// Map `len` bytes of `f` from `offset` (a multiple of the page size); `None` (read it
/// instead) if that fails, every slot is taken or no handler is installed.
pub(crate) fn map(f: &File, offset: u64, len: usize) -> Option<Guarded> {
    if !handler_installed() {
        return None;
    }
    let slot = (0..SLOTS).find(|&i| {
        USED[i]
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })?;
    // SAFETY: the map is only read. Pages that vanish (the file truncated meanwhile) fault
    // with SIGBUS, which `on_sigbus` answers with a zero page for this registered range;
    // other concurrent writes only change the bytes hashed, as with read().
    let map = match unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map(f) } {
        Ok(m) => m,
        Err(_) => {
            USED[slot].store(false, Ordering::SeqCst);
            return None;
        }
    };
    FAULTED[slot].store(false, Ordering::SeqCst);
    LEN[slot].store(len, Ordering::SeqCst);
    START[slot].store(map.as_ptr() as usize, Ordering::SeqCst);
    Some(Guarded {
        map,
        slot,
        end: offset + len as u64,
    })
}

/// Map the first `len` bytes of `f` (all of it), unregistered: a truncation under this
/// map is fatal (the handler's message, status 1). `None` if mapping fails.
pub(crate) fn map_whole(f: &File, len: usize) -> Option<memmap2::Mmap> {
    // SAFETY: the mapping is only read. If another process truncates the file while it is
    // mapped, reading the vanished pages raises SIGBUS, which the installed handler turns
    // into the program's message and exit status 1 (only callers that checked
    // `handler_installed` map); other concurrent writes only change the bytes hashed.
    unsafe { memmap2::MmapOptions::new().len(len).map(f) }.ok()
}

/// Install the SIGBUS handler that lets this crate map files; programs call it first
/// thing, before any thread starts. Without it files are always read.
///
/// A fault in a map of the pipeline's (a file truncated while it was hashed) reads as
/// zeros and the file is reported as having shrunk. A fault anywhere else (a whole-input
/// map of [`open_source`](crate::open_source), or memory of the program's own) writes
/// `message` to standard error and ends the process with status 1. The first message
/// given is kept.
pub fn install_sigbus_handler(message: &'static str) {
    let _ = MESSAGE.set(message);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        PAGE.store(page as usize, Ordering::SeqCst);
    }
    // SAFETY: a zeroed sigaction with a handler address, SA_SIGINFO and an empty mask is a
    // valid argument; the handler only uses atomics and async-signal-safe system calls.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigbus as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        if libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut()) == 0 {
            INSTALLED.store(true, Ordering::SeqCst);
        }
    }
}

extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t for a SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::SeqCst);
    for i in 0..SLOTS {
        let start = START[i].load(Ordering::SeqCst);
        let len = LEN[i].load(Ordering::SeqCst);
        if start != 0 && addr >= start && addr < start + len {
            // SAFETY: replaces one page inside a live map that this process owns with an
            // anonymous zero page; mmap is a plain system call, safe in a signal handler.
            let p = unsafe {
                libc::mmap(
                    (addr & !(page - 1)) as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                FAULTED[i].store(true, Ordering::SeqCst);
                return;
            }
        }
    }
    // OnceLock::get is an atomic load: async-signal-safe.
    let msg = MESSAGE.get().map_or(&b"SIGBUS\n"[..], |m| m.as_bytes());
    // SAFETY: write(2) and _exit(2) are async-signal-safe; `msg` is a valid buffer.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::_exit(1);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The handler's message in this crate's tests.
    pub(crate) const TEST_MESSAGE: &str = "lanesum-files test: SIGBUS outside a map\n";

    #[test]
    fn truncation_reads_zeros_and_is_reported() {
        install_sigbus_handler(TEST_MESSAGE);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
        let f = File::options().read(true).write(true).open(&p).unwrap();
        let map = map(&f, 0, 1 << 20).unwrap();
        assert_eq!(map[100], 7);
        assert!(!map.truncated(&f));
        f.set_len(4096).unwrap();
        assert_eq!(map[4095], 7);
        assert_eq!(map[(1 << 20) - 1], 0); // a vanished page: zero, not a crash
        assert!(map.truncated(&f));
    }

    #[test]
    fn truncation_inside_the_last_page_is_reported() {
        // No SIGBUS there: the bytes past the new end read as zeros.
        install_sigbus_handler(TEST_MESSAGE);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 8192]).unwrap();
        let f = File::options().read(true).write(true).open(&p).unwrap();
        let map = map(&f, 0, 8192).unwrap();
        assert!(!map.truncated(&f));
        f.set_len(8000).unwrap();
        assert_eq!(map[8100], 0);
        assert!(map.truncated(&f));
    }
}
