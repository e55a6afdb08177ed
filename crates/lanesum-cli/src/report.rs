//! Standard output and error as the *sum tools use them.
//!
//! Stdout is flushed before every diagnostic, so stdout and stderr keep their order when
//! both go to the same place, and after every record when it is a terminal; otherwise it
//! is written in large blocks (one write per file costs more than hashing a small file).
//! A closed stdout ends the process by SIGPIPE, like coreutils; any other write failure
//! prints `PROG: write error` and exits 1, as md5sum 9.1 does on /dev/full.

use std::io::{self, BufWriter, Write};
use std::process;

use crate::quote;

/// The program's voice: its name for diagnostics and the locale's quoting.
pub struct Reporter {
    pub prog: String,
    pub utf8: bool,
    out: BufWriter<io::Stdout>,
    /// Stdout is a terminal: show each record as soon as it is complete.
    interactive: bool,
}

impl Reporter {
    pub fn new(prog: &str) -> Reporter {
        Reporter {
            prog: prog.to_string(),
            utf8: quote::utf8_locale(),
            out: BufWriter::with_capacity(64 * 1024, io::stdout()),
            interactive: io::IsTerminal::is_terminal(&io::stdout()),
        }
    }

    /// Append bytes to the current stdout record.
    pub fn write(&mut self, bytes: &[u8]) {
        if let Err(e) = self.out.write_all(bytes) {
            self.write_failed(e);
        }
    }

    /// End a record: on a terminal, show it now.
    pub fn flush(&mut self) {
        if self.interactive {
            self.flush_now();
        }
    }

    /// Push out everything written so far.
    pub fn flush_now(&mut self) {
        let res = if self.interactive {
            crate::progress::suspend(|| self.out.flush())
        } else {
            self.out.flush()
        };
        if let Err(e) = res {
            self.write_failed(e);
        }
    }

    /// `PROG: MSG` on stderr.
    pub fn error(&mut self, msg: &str) {
        self.flush_now();
        crate::progress::suspend(|| {
            let _ = writeln!(io::stderr().lock(), "{}: {}", self.prog, msg);
        });
    }

    /// `PROG: 'name': strerror` for an I/O failure on a file.
    pub fn file_error(&mut self, name: &[u8], e: &io::Error) {
        let q = quote::quotef(name, self.utf8);
        self.error(&format!("{q}: {}", strerror(e)));
    }

    /// A usage error: message, then the `Try` hint, exit status 1.
    pub fn usage_error(&mut self, msg: &str) -> ! {
        if !msg.is_empty() {
            self.error(msg);
        }
        let _ = writeln!(
            io::stderr(),
            "Try '{} --help' for more information.",
            self.prog
        );
        process::exit(1);
    }

    /// Print `msg` and exit 1.
    pub fn fatal(&mut self, msg: &str) -> ! {
        self.error(msg);
        process::exit(1);
    }

    fn write_failed(&mut self, e: io::Error) -> ! {
        if e.kind() == io::ErrorKind::BrokenPipe {
            die_of_sigpipe();
        }
        // md5sum 9.1 says just "write error" here (its errno is gone by then); match it.
        let _ = writeln!(io::stderr(), "{}: write error", self.prog);
        process::exit(1);
    }
}

/// The last records go out when the reporter ends, with the same error handling as any
/// other write (`lanesum > /dev/full` fails with status 1).
impl Drop for Reporter {
    fn drop(&mut self) {
        self.flush_now();
    }
}

/// The C library's text for an error, without Rust's ` (os error N)` suffix.
pub fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => s[..i].to_string(),
        _ => s,
    }
}

/// End as a C program writing to a closed pipe would: killed by SIGPIPE (the shell sees
/// status 141 and prints nothing). Rust ignores SIGPIPE, so restore the default first.
fn die_of_sigpipe() -> ! {
    default_sigpipe();
    // SAFETY: raise() with a valid signal number has no memory-safety preconditions.
    unsafe {
        libc::raise(libc::SIGPIPE);
    }
    process::exit(141);
}

/// Restore the default SIGPIPE action (Rust's runtime ignores it), so that writing to a
/// closed pipe ends the process quietly, as it does `md5sum`, instead of the write
/// failing: `lanesum speed | head -3` then stops at once rather than panicking in `println!`.
pub fn default_sigpipe() {
    // SAFETY: signal() with valid constants has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
