//! `lanesum`: a drop-in md5sum/sha*sum/b2sum/b3sum. See `cli` for personalities and
//! the modules it dispatches to for the formats.
//!
//! Reference is GNU coreutils 9.1; output, diagnostics and exit status were compared byte
//! for byte with it (see tests/coreutils.rs). Deliberate differences:
//! * `--help` and `--version` texts are our own (`md5sum (lanesum) 0.1.0`), and getopt's
//!   left-to-right handling means `--help` wins only if it precedes a bad option, as in
//!   coreutils; their wording is not copied.
//! * 9.1 rules where newer coreutils differ: check results escape a name only when it
//!   holds a LF (newer: also `\` and CR); see `output`.
//! * Locale: quoting in diagnostics follows `LC_ALL`/`LC_CTYPE`/`LANG` (UTF-8 or not);
//!   messages are never translated.
//! * `lanesum -l` refuses fixed-length algorithms; its BLAKE3 output is capped at 64 KiB
//!   (the b3sum personality streams any length).
//! * `lanesum speed` is a subcommand: a file named `speed` must be written `./speed`.
//! * A closed stdout ends the process by SIGPIPE, like coreutils, even where the parent
//!   ignores SIGPIPE (coreutils then prints `write error`: Rust's runtime ignores SIGPIPE
//!   before `main`, so the parent's choice cannot be seen); other write errors print
//!   `PROG: write error`, exit 1.
//! * A standard descriptor closed at start (`<&-`, `>&-`) is opened on /dev/null by
//!   Rust's runtime before `main`: closed stdin reads as empty, closed stdout takes the
//!   output silently (coreutils: `Bad file descriptor`, `write error`). A stdin open
//!   for writing only is an error, as in coreutils.
//! * Diagnostics show non-UTF-8 bytes of an unknown option as U+FFFD (coreutils: the
//!   raw bytes).
//! * The b3sum personality follows b3sum 1.8.7 (compared byte for byte, see
//!   tests/b3sum.rs) except for `--help` and `--version`, usage errors never coloured,
//!   a standard input open for writing only, which is an error as above (b3sum reads it
//!   as empty), and write errors, which end the run as above (b3sum panics). Its keyed and
//!   key-derivation modes hash each file in turn with the blake3 crate (as b3sum does),
//!   not in lanes.
//! * Files are hashed in bounded memory (see `pipeline`); files over 1 MiB are mapped a
//!   window at a time and a file truncated meanwhile is reported ("file shrank while it
//!   was read", see `mapped`). `--etag`, `--blocks` and `--torrent-pieces` map files of
//!   16 MiB and more whole: there a truncation ends the run with a message and exit status
//!   1 (SIGBUS). `LANESUM_NO_MMAP=1` reads with read() instead.

mod b3sum;
mod check;
mod cli;
mod hashing;
mod json;
mod mapped;
mod modes;
mod output;
mod pipeline;
mod progress;
mod quote;
mod report;
mod speed;
mod walk;

use std::ffi::OsString;

use cli::Personality;

fn main() {
    mapped::install_sigbus_handler();
    pipeline::reserve_descriptors();
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| OsString::from("lanesum"));
    let rest: Vec<OsString> = args.collect();
    let personality = Personality::from_argv0(&arg0);
    if let Err(e) = lanesum::isa::try_active() {
        eprintln!("lanesum: {e}");
        std::process::exit(2);
    }
    if personality == Personality::Lanesum && rest.first().is_some_and(|a| a == "speed") {
        std::process::exit(speed::run(rest[1..].to_vec()));
    }
    let prog = cli::program_name(personality, &arg0);
    std::process::exit(cli::run(personality, &prog, rest));
}

/// Start rayon's global pool (`threads`: 0 for its default size) once the options are
/// read, so that a process limit on threads is reported rather than panicking where the
/// pool is first used.
fn start_threads(threads: usize) -> Result<(), rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
}
