//! `lanesum`: a drop-in md5sum/sha*sum/b2sum/b3sum. See `personality` for the tools it
//! acts as, `flags` for their arguments, and the modules `main` dispatches to for the
//! formats. The files themselves are found and read by the `lanesum_files` crate.
//!
//! Modules depend one way: `main` -> `flags` -> `options`/`personality` (plain data);
//! `main` -> `hash`, `check`, `modes`, `b3sum`, `speed` -> `options`, `output`, `report`.
//! Nothing imports `main` or `flags`.
//!
//! Reference is GNU coreutils 9.1 (9.9 for `cksum` and `sum`, whose behaviour shared with
//! 9.1 is compared with it too; tests/cksum.rs holds 9.9's own); output, diagnostics and
//! exit status were compared byte for byte with it (see tests/coreutils.rs). Deliberate
//! differences:
//! * `--help` and `--version` texts are our own (`md5sum (lanesum) 0.1.0`), and getopt's
//!   left-to-right handling means `--help` wins only if it precedes a bad option, as in
//!   coreutils; their wording is not copied.
//! * 9.1 rules where newer coreutils differ: check results escape a name only when it
//!   holds a LF (newer: also `\` and CR); see `output`. `cksum` follows 9.9 there; 9.9's
//!   md5sum ... sha512sum, which became cksum, keep 9.1's behaviour here (no `--base64`,
//!   `--raw`, `--untagged`, only their own lines when checking).
//! * `cksum -a` also takes lanesum's names (in lowercase).
//! * Locale: quoting in diagnostics follows `LC_ALL`/`LC_CTYPE`/`LANG` (UTF-8 or not);
//!   messages are never translated.
//! * `lanesum -l` refuses fixed-length algorithms; its BLAKE3 output is capped at 64 KiB
//!   (the b3sum personality streams any length).
//! * `lanesum speed` is a subcommand: a file named `speed` must be written `./speed`.
//! * A closed stdout ends the process by SIGPIPE, like coreutils, even where the parent
//!   ignores SIGPIPE (coreutils then prints `write error`: Rust's runtime ignores SIGPIPE
//!   before `main`, so the parent's choice cannot be seen); other write errors print
//!   `PROG: write error`, exit 1.
//! * A standard descriptor closed at start (`<&-`, `>&-`) fails as in coreutils
//!   (`-: Bad file descriptor`, `standard input: Bad file descriptor`, `write error: Bad
//!   file descriptor`) on Linux, where `sys` notes it before Rust's runtime opens
//!   /dev/null there; elsewhere closed stdin reads as empty and closed stdout takes the
//!   output silently. A stdin open for writing only is an error, as in coreutils.
//! * Diagnostics show non-UTF-8 bytes of an unknown option as U+FFFD (coreutils: the
//!   raw bytes).
//! * The b3sum personality follows b3sum 1.8.7 (compared byte for byte, see
//!   tests/b3sum.rs) except for `--help` and `--version`, usage errors never coloured,
//!   a standard input open for writing only, which is an error as above (b3sum reads it
//!   as empty), and write errors, which end the run as above (b3sum panics). Its keyed and
//!   key-derivation modes hash each file in turn with the blake3 crate (as b3sum does),
//!   not in lanes.
//! * Files are hashed in bounded memory (see `lanesum_files`); files over 1 MiB are
//!   mapped a window at a time (a lone one of BLAKE3, CRCs or XXH3 is read by every core
//!   at once instead) and a file truncated meanwhile is reported ("file shrank while it
//!   was read"). `--etag`, `--blocks` and `--torrent-pieces` map files of
//!   16 MiB and more whole: there a truncation ends the run with a message and exit status
//!   1 (SIGBUS). `LANESUM_NO_MMAP=1` reads with read() instead.

#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod b3sum;
mod check;
mod cksum_names;
mod flags;
mod hash;
mod json;
mod modes;
mod options;
mod output;
mod personality;
mod progress;
mod quote;
mod report;
mod speed;
#[allow(unsafe_code)]
mod sys;

use std::ffi::{OsStr, OsString};

use options::Action;
use personality::{Personality, Syntax};
use report::Reporter;

/// What the SIGBUS handler says when a file mapped whole (`--etag`, `--blocks`,
/// `--torrent-pieces`, b3sum's keyed modes) is truncated under the map.
const SIGBUS_MESSAGE: &str = "lanesum: a file shrank while it was being read (memory-mapped); \
run again, or set LANESUM_NO_MMAP=1 to read files with read()\n";

fn main() {
    // A program's calls, made first, while the process has one thread.
    lanesum_files::install_sigbus_handler(SIGBUS_MESSAGE);
    lanesum_files::reserve_descriptors();
    sys::fit_malloc_to_address_limit();
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| OsString::from("lanesum"));
    let rest: Vec<OsString> = args.collect();
    std::process::exit(run(&arg0, rest));
}

/// Dispatch on the personality and what its arguments ask for; returns the exit status
/// once every output has gone out (the reporter is dropped, so flushed, here).
fn run(arg0: &OsStr, rest: Vec<OsString>) -> i32 {
    let p = Personality::from_argv0(arg0);
    if let Err(e) = lanesum::isa::try_active() {
        Reporter::new("lanesum").stderr(&format!("lanesum: {e}\n"));
        return 2;
    }
    if p.speed && rest.first().is_some_and(|a| a == "speed") {
        return run_speed(rest[1..].to_vec());
    }
    let mut rep = Reporter::new(&p.program_name(arg0));
    match p.syntax {
        Syntax::B3sum => run_b3sum(rest, &mut rep),
        Syntax::Getopt => run_coreutils(p, rest, &mut rep),
    }
}

/// lanesum and the coreutils tools: hash, check, or a whole-input mode.
fn run_coreutils(p: &'static Personality, args: Vec<OsString>, rep: &mut Reporter) -> i32 {
    sys::keep_closed_std_fds_failing();
    let opts = flags::parse_coreutils(p, args, rep);
    let on_caller = opts.action == Action::Hash
        && lanesum_files::hashes_on_caller(&opts.files, &opts.algs, &opts.input);
    if let Err(e) = start_threads(opts.threads, on_caller) {
        rep.fatal(&format!("cannot start threads: {e}"));
    }
    let status = match opts.action {
        Action::Mode(mode) => modes::run(&opts, mode, rep),
        Action::Check => check::run(&opts, rep),
        Action::Hash => hash::run(&opts, rep),
    };
    // coreutils closes a standard input it read before exiting; one closed at start
    // fails there, after each read of it has failed on its own.
    if sys::stdin_closed_at_start() && opts.files.iter().any(|f| f == "-") {
        rep.error("standard input: Bad file descriptor");
        return 1;
    }
    status
}

/// b3sum: the key is read before the threads start, as b3sum does.
fn run_b3sum(args: Vec<OsString>, rep: &mut Reporter) -> i32 {
    let opts = flags::parse_b3sum(args, rep);
    let hashing = b3sum::Hashing::new(&opts, rep);
    // Its one algorithm, whatever the length: BLAKE3 spreads a long stream over the pool.
    let blake3 = [lanesum::Algorithm::Blake3(32)];
    let on_caller =
        !opts.check && lanesum_files::hashes_on_caller(&opts.files, &blake3, &opts.input);
    if let Err(e) = start_threads(opts.threads, on_caller) {
        // anyhow's chain, as b3sum prints it.
        let msg = match std::error::Error::source(&e) {
            Some(cause) => format!("{e}\n\nCaused by:\n    {cause}"),
            None => e.to_string(),
        };
        rep.fatal_as_anyhow(&msg);
    }
    b3sum::run(&opts, &hashing, rep)
}

/// `lanesum speed`: its report is printed line by line as measured, and a reader that
/// stops early ends it (SIGPIPE's default action). Everything runs in a pool of one
/// thread, whose CPU clock is the one measured.
fn run_speed(args: Vec<OsString>) -> i32 {
    sys::default_sigpipe();
    sys::keep_closed_std_fds_failing();
    let mut rep = Reporter::new("lanesum");
    match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(pool) => pool.install(|| match flags::parse_speed(args, &mut rep) {
            Ok(opts) => speed::run(&opts, &mut rep),
            Err(code) => code,
        }),
        Err(e) => {
            rep.stderr(&format!("lanesum speed: {e}\n"));
            1
        }
    }
}

/// Start rayon's global pool (`threads`: 0 for its default size, at most
/// `lanesum_files::most_threads`) once the options are read, so that a process limit on
/// threads is reported rather than panicking where the pool is first used.
///
/// With `on_caller` (a few small files, or a pipe under one algorithm that doesn't spread
/// over the cores, which the pipeline hashes on this thread: see
/// `lanesum_files::hashes_on_caller`), the pool is this thread alone, whatever `threads`
/// says, and the pool's threads are not started: `md5sum small-file` as fast as it can
/// be, and a file that grew meanwhile is still hashed, here. Code that waits for rayon
/// work must then either run it itself (rayon's joins, scopes and parallel iterators do)
/// or not wait on this thread: the `MultiHasher`'s background and the pipeline's windows
/// check `rayon::current_thread_index()`, and the threads of the program's own (the walk
/// of `-r`, a stream's reader) never enter rayon, where they would wait for this thread
/// while it waits for them.
fn start_threads(threads: usize, on_caller: bool) -> Result<(), rayon::ThreadPoolBuildError> {
    let pool = rayon::ThreadPoolBuilder::new();
    if on_caller {
        return pool.num_threads(1).use_current_thread().build_global();
    }
    pool.num_threads(threads.min(lanesum_files::most_threads()))
        .build_global()
}
