//! Standard output and error as the *sum tools use them.
//!
//! Stdout is flushed before every diagnostic, so stdout and stderr keep their order when
//! both go to the same place, and after every record when it is a terminal; otherwise it
//! is written in large blocks (one write per file costs more than hashing a small file).
//! A closed pipe ends the process by SIGPIPE, like coreutils; a stdout closed at start
//! prints `PROG: write error: Bad file descriptor` once anything is written to it; any
//! other write failure prints `PROG: write error` and exits 1, as md5sum 9.1 does on
//! /dev/full. Every output of the command goes through the one [`Reporter`] (`lanesum
//! speed`'s included), so none panics on a failed write.

use std::io::{self, BufWriter, Write};
use std::process;

use crate::{progress, quote, sys};

/// The program's voice: its name for diagnostics and the locale's quoting.
pub struct Reporter {
    pub prog: String,
    pub utf8: bool,
    out: BufWriter<sys::RawStdout>,
    /// Stdout is a terminal: show each record as soon as it is complete.
    interactive: bool,
}

impl Reporter {
    pub fn new(prog: &str) -> Reporter {
        Reporter {
            prog: prog.to_string(),
            utf8: quote::utf8_locale(),
            out: BufWriter::with_capacity(64 * 1024, sys::RawStdout::new()),
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
            progress::suspend(|| self.out.flush())
        } else {
            self.out.flush()
        };
        if let Err(e) = res {
            self.write_failed(e);
        }
    }

    /// `text` on stderr as it is (whole lines), after the records written so far and off
    /// the progress bar. A failing stderr is ignored: there is nowhere left to say so.
    pub fn stderr(&mut self, text: &str) {
        self.flush_now();
        progress::suspend(|| {
            let _ = io::stderr().lock().write_all(text.as_bytes());
        });
    }

    /// `PROG: MSG` on stderr.
    pub fn error(&mut self, msg: &str) {
        self.stderr(&format!("{}: {}\n", self.prog, msg));
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

    /// End the run as a program reporting through anyhow does (b3sum): `Error: MSG`,
    /// exit 1.
    pub fn fatal_as_anyhow(&mut self, msg: &str) -> ! {
        self.stderr(&format!("Error: {msg}\n"));
        process::exit(1);
    }

    fn write_failed(&mut self, e: io::Error) -> ! {
        if e.kind() == io::ErrorKind::BrokenPipe {
            sys::die_of_sigpipe();
        }
        // A stdout closed at start fails as in coreutils, whose close_stdout() sees EBADF
        // from fclose(). Otherwise md5sum 9.1 says just "write error" (its errno is gone
        // by then); match it.
        if e.raw_os_error() == Some(libc::EBADF) && sys::stdout_closed_at_start() {
            let _ = writeln!(io::stderr(), "{}: write error: {}", self.prog, strerror(&e));
        } else {
            let _ = writeln!(io::stderr(), "{}: write error", self.prog);
        }
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
