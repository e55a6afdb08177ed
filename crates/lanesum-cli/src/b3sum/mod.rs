//! The `b3sum` personality, following b3sum 1.8's CLI.
//!
//! Hashing prints `hex  name` (`--tag`: `BLAKE3 (name) = hex`; `--no-names`: `hex`;
//! `--raw`: the output bytes, one input only). `-l/--length` counts output bytes and
//! `--seek` is the output offset, both any size (the output is streamed). Names are shown
//! as b3sum does: lossy UTF-8, `\`, LF and CR escaped, the line prefixed with `\` when
//! escaped. `--keyed` reads a 32-byte key from standard input (so `-` is refused) and
//! `--derive-key CONTEXT` hashes in key-derivation mode. `--check` is in [`check`].
//! Usage errors are clap's, as in b3sum (exit 2); a bad key ends the run with
//! `Error: ...`, exit 1.
//!
//! Plain BLAKE3 from offset 0 goes through lanesum's lanes (many small files hashed
//! together); the keyed and key-derivation modes, an offset, and outputs longer than
//! [`LANES_MAX_OUTPUT`] use the blake3 crate's hasher on each input in turn (large files
//! on every core, as b3sum). `--num-threads N` sizes the rayon pool both use;
//! `--no-mmap` reads files with read() instead of mapping them (large ones streamed).

mod check;

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use lanesum::{Algorithm, Digest};

use crate::hashing::{self, Input, Source};
use crate::output;
use crate::report::Reporter;

fn command() -> Command {
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    Command::new("b3sum")
        .no_binary_name(true)
        .version(env!("CARGO_PKG_VERSION"))
        .infer_long_args(false)
        .arg(
            Arg::new("file")
                .value_name("FILE")
                .num_args(1..)
                .action(ArgAction::Append)
                // As b3sum's: a path value parser, which refuses an empty name.
                .value_parser(value_parser!(PathBuf))
                .help("Files to hash, or checkfiles to check; none or - means standard input"),
        )
        .arg(
            flag(
                "keyed",
                "Use the keyed mode, reading the 32-byte key from stdin",
            )
            .requires("file"),
        )
        .arg(
            Arg::new("derive-key")
                .long("derive-key")
                .value_name("CONTEXT")
                .conflicts_with("keyed")
                .help("Use the key derivation mode, with the given context string"),
        )
        .arg(
            Arg::new("length")
                .short('l')
                .long("length")
                .value_name("LEN")
                .value_parser(value_parser!(u64))
                .help("The number of output bytes, before hex encoding [default: 32]"),
        )
        .arg(
            Arg::new("seek")
                .long("seek")
                .value_name("SEEK")
                .value_parser(value_parser!(u64))
                .help("The starting output byte offset, before hex encoding [default: 0]"),
        )
        .arg(
            Arg::new("num-threads")
                .long("num-threads")
                .value_name("NUM")
                .value_parser(value_parser!(usize))
                .help("The maximum number of hashing threads (0: the default)"),
        )
        .arg(flag(
            "no-mmap",
            "Read files with read() instead of mapping them",
        ))
        .arg(flag("no-names", "Omit filenames in the output"))
        .arg(flag(
            "raw",
            "Write raw output bytes instead of hex (one input only)",
        ))
        .arg(flag(
            "tag",
            "Output BSD-style checksums: BLAKE3 ([FILE]) = [HASH]",
        ))
        .arg(
            flag("check", "Read BLAKE3 sums from the files and check them")
                .short('c')
                .conflicts_with_all(["derive-key", "keyed", "length", "raw", "tag", "no-names"]),
        )
        .arg(
            flag(
                "quiet",
                "Skip printing OK for each verified file (with --check)",
            )
            .requires("check"),
        )
}

/// b3sum reports fatal errors through anyhow: `Error: MSG`, exit 1.
fn fatal(rep: &mut Reporter, msg: &str) -> ! {
    rep.flush_now();
    eprintln!("Error: {msg}");
    std::process::exit(1);
}

/// Longest output taken from the lanes. They hold each digest until its window is printed
/// and make the output a block at a time: 20,000 files of 0-8 KiB took 0.07 s in lanes
/// and 0.12 s one at a time through the blake3 crate with 32-byte outputs, the same with
/// 1 KiB, 0.29 s against 0.16 s with 4 KiB, and 3.0 s (78 MB) against 1.1 s with 64 KiB.
const LANES_MAX_OUTPUT: u64 = 512;

/// How an input's BLAKE3 output is computed.
enum Hashing {
    /// Plain BLAKE3 from offset 0 (of the output length asked for): through the lanes.
    Lanes(Algorithm),
    /// Through the blake3 crate, continuing a copy of this hasher (keyed, key
    /// derivation, or plain), output read from `seek`. `keyed`: standard input held the
    /// key, so `-` can't be hashed.
    Xof {
        base: Box<blake3::Hasher>,
        seek: u64,
        keyed: bool,
    },
}

impl Hashing {
    fn new(m: &ArgMatches, len: u64, rep: &mut Reporter) -> Hashing {
        let seek = m.get_one::<u64>("seek").copied().unwrap_or(0);
        let keyed = m.get_flag("keyed");
        let base = if keyed {
            match read_key() {
                Ok(key) => blake3::Hasher::new_keyed(&key),
                Err(msg) => fatal(rep, &msg),
            }
        } else if let Some(context) = m.get_one::<String>("derive-key") {
            blake3::Hasher::new_derive_key(context)
        } else if seek == 0 && len <= LANES_MAX_OUTPUT {
            return Hashing::Lanes(Algorithm::Blake3(len as usize));
        } else {
            blake3::Hasher::new()
        };
        Hashing::Xof {
            base: Box::new(base),
            seek,
            keyed,
        }
    }

    /// The output of every input, in order.
    fn run<'a>(&'a self, inputs: &'a [Input]) -> Box<dyn Iterator<Item = io::Result<Output>> + 'a> {
        match self {
            Hashing::Lanes(alg) => Box::new(
                hashing::hash_inputs(inputs, std::slice::from_ref(alg))
                    .map(|r| r.map(|mut h| Output::Digest(h.digests.swap_remove(0)))),
            ),
            Hashing::Xof { base, seek, keyed } => Box::new(inputs.iter().map(move |input| {
                if *keyed && *input == Input::Stdin {
                    return Err(io::Error::other("Cannot open `-` in keyed mode"));
                }
                let mut out = xof(blake3::Hasher::clone(base), input)?;
                out.set_position(*seek);
                Ok(Output::Reader(out))
            })),
        }
    }
}

/// The 32-byte key of `--keyed`: all of standard input, which must be exactly 32 bytes.
fn read_key() -> Result<[u8; 32], String> {
    let mut bytes = Vec::with_capacity(33);
    hashing::stdin_file()
        .and_then(|f| f.take(33).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    match bytes.len() {
        n if n < 32 => Err(format!("expected 32 key bytes from stdin, found {n}")),
        32 => Ok(bytes.try_into().expect("32 bytes")),
        _ => Err("read more than 32 key bytes from stdin".to_string()),
    }
}

/// Inputs at least this large are hashed on every core (the blake3 crate's advice).
const RAYON_MIN: usize = 128 << 10;

/// `hasher` continued with all of `input`: a regular file whole (mapped when large, and a
/// file cut short meanwhile is an error), anything else streamed (large files too where
/// they may not be mapped).
fn xof(mut hasher: blake3::Hasher, input: &Input) -> io::Result<blake3::OutputReader> {
    match hashing::open_source(input)? {
        Source::Whole(data) => {
            if data.len() >= RAYON_MIN {
                hasher.update_rayon(&data);
            } else {
                hasher.update(&data);
            }
            if data.shrank_below(data.len()) {
                return Err(io::Error::other("file shrank while it was read"));
            }
        }
        Source::Stream(r) => {
            hasher.update_reader(r)?;
        }
    }
    Ok(hasher.finalize_xof())
}

/// One input's BLAKE3 output: a finished digest, or a reader of the extendable output.
enum Output {
    Digest(Digest),
    Reader(blake3::OutputReader),
}

impl Output {
    /// Write `len` bytes of output, as hex or raw, a block at a time (`len` may be huge).
    fn emit(self, len: u64, hex: bool, rep: &mut Reporter) {
        let mut reader = match self {
            Output::Digest(d) if hex => return rep.write(d.to_hex().as_bytes()),
            Output::Digest(d) => return rep.write(d.as_bytes()),
            Output::Reader(r) => r,
        };
        let mut block = [0u8; 4096];
        let mut left = len;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            reader.fill(&mut block[..n]);
            if hex {
                rep.write(lanesum::hex_lower(&block[..n]).as_bytes());
            } else {
                rep.write(&block[..n]);
            }
            left -= n as u64;
        }
    }

    /// The first 32 bytes of output, as `--check` compares them.
    fn first32(self) -> [u8; 32] {
        let mut out = [0u8; 32];
        match self {
            Output::Digest(d) => out.copy_from_slice(&d.as_bytes()[..32]),
            Output::Reader(mut r) => r.fill(&mut out),
        }
        out
    }
}

pub fn run(args: Vec<OsString>, rep: &mut Reporter) -> i32 {
    let m = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => e.exit(),
    };
    let mut files: Vec<OsString> = m
        .get_many::<PathBuf>("file")
        .map(|v| v.map(|p| p.clone().into_os_string()).collect())
        .unwrap_or_default();
    if files.is_empty() {
        files.push("-".into());
    }
    let raw = m.get_flag("raw");
    if raw && files.len() > 1 {
        fatal(rep, "Only one filename can be provided when using --raw");
    }
    if m.get_flag("no-mmap") {
        hashing::forbid_mmap();
    }
    let check = m.get_flag("check");
    let len = if check {
        32
    } else {
        m.get_one::<u64>("length").copied().unwrap_or(32)
    };
    // The key is read before the threads start, as b3sum does.
    let hashing = Hashing::new(&m, len, rep);
    let threads = m.get_one::<usize>("num-threads").copied().unwrap_or(0);
    if let Err(e) = crate::start_threads(threads) {
        // anyhow's chain, as b3sum prints it.
        let msg = match std::error::Error::source(&e) {
            Some(cause) => format!("{e}\n\nCaused by:\n    {cause}"),
            None => e.to_string(),
        };
        fatal(rep, &msg);
    }
    if check {
        return check::run(&files, &hashing, m.get_flag("quiet"), rep);
    }
    hash(&files, &hashing, len, &m, rep)
}

fn hash(
    files: &[OsString],
    hashing: &Hashing,
    len: u64,
    m: &ArgMatches,
    rep: &mut Reporter,
) -> i32 {
    let (raw, tag) = (m.get_flag("raw"), m.get_flag("tag"));
    let names = !raw && !m.get_flag("no-names");
    let inputs: Vec<Input> = files.iter().map(Input::from_operand).collect();
    let mut failed = false;
    for (name, res) in files.iter().zip(hashing.run(&inputs)) {
        let out = match res {
            Ok(out) => out,
            Err(e) => {
                failed = true;
                let shown = String::from_utf8_lossy(name.as_bytes()).into_owned();
                rep.error(&format!("{shown}: {e}"));
                continue;
            }
        };
        if !names {
            out.emit(len, !raw, rep);
            if !raw {
                rep.write(b"\n");
            }
        } else {
            let (shown, escaped) = output::b3sum_name(name.as_bytes());
            if escaped {
                rep.write(b"\\");
            }
            if tag {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_command_is_consistent() {
        command().debug_assert();
    }
}
