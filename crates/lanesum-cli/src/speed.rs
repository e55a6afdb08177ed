//! `lanesum speed`: benchmarks (placeholder; another change fills this in).
//!
//! `speed` is recognised only as the very first argument, so a file literally named
//! `speed` must be hashed as `lanesum ./speed` (or `lanesum -- speed`).

use std::ffi::OsString;

/// Run the benchmark subcommand with the arguments after `speed`; returns the exit status.
pub fn run(_args: Vec<OsString>) -> i32 {
    eprintln!("lanesum speed: not yet implemented");
    1
}
