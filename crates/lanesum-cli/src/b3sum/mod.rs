//! The `b3sum` personality, following b3sum 1.8's CLI.
//!
//! Hashing prints `hex  name` (`--tag`: `BLAKE3 (name) = hex`; `--no-names`: `hex`;
//! `--raw`: the output bytes, one input only). `-l/--length` counts output bytes and
//! `--seek` is the output offset, both any size (the output is streamed). Names are shown
//! as b3sum does: lossy UTF-8, `\`, LF and CR escaped, the line prefixed with `\` when
//! escaped. `--keyed` reads a 32-byte key from standard input (so `-` is refused) and
//! `--derive-key CONTEXT` hashes in key-derivation mode. `--check` is in `check`, the two ways of computing
//! the output in `hashing`.
//! Usage errors are clap's, as in b3sum (exit 2); a bad key ends the run with
//! `Error: ...`, exit 1.
//!
//! Plain BLAKE3 from offset 0 goes through lanesum's lanes (many small files hashed
//! together); the keyed and key-derivation modes, an offset, and outputs longer than
//! `hashing::LANES_MAX_OUTPUT` use the blake3 crate's hasher on each input in turn (large files
//! on every core, as b3sum). `--num-threads N` sizes the rayon pool both use;
//! `--no-mmap` reads files with read() instead of mapping them (large ones streamed).

mod check;
mod hashing;

use std::os::unix::ffi::OsStrExt;

pub use hashing::Hashing;
use lanesum_files::Input;

use crate::options::B3sumOptions;
use crate::output;
use crate::report::Reporter;

/// Hash or check every file of `opts` with `hashing` (made first, since it reads the key
/// before the threads start, as b3sum does); returns the exit status.
pub fn run(opts: &B3sumOptions, hashing: &Hashing, rep: &mut Reporter) -> i32 {
    if opts.check {
        return check::run(&opts.files, hashing, opts.quiet, rep);
    }
    let inputs: Vec<Input> = opts.files.iter().map(|f| Input::from_operand(f)).collect();
    let mut failed = false;
    for (name, res) in opts.files.iter().zip(hashing.run(&inputs)) {
        let out = match res {
            Ok(out) => out,
            Err(e) => {
                failed = true;
                let shown = String::from_utf8_lossy(name.as_bytes()).into_owned();
                rep.error(&format!("{shown}: {e}"));
                continue;
            }
        };
        let len = opts.len;
        if !opts.names {
            out.emit(len, !opts.raw, rep);
            if !opts.raw {
                rep.write(b"\n");
            }
        } else {
            let (shown, escaped) = output::b3sum_name(name.as_bytes());
            if escaped {
                rep.write(b"\\");
            }
            if opts.tag {
                rep.write(format!("BLAKE3 ({shown}) = ").as_bytes());
                out.emit(len, true, rep);
                rep.write(b"\n");
            } else {
                out.emit(len, true, rep);
                rep.write(format!("  {shown}\n").as_bytes());
            }
        }
        rep.flush();
    }
    i32::from(failed)
}
