//! How b3sum's BLAKE3 output of an input is computed: through lanesum's lanes, or the
//! blake3 crate's hasher for what the lanes don't do (keys, offsets, long outputs).

use std::io::{self, Read};

use lanesum::{Algorithm, Digest};
use lanesum_files::{hash_inputs, open_source, stdin_file, Input, Source};

use crate::options::{B3Key, B3sumOptions};
use crate::report::Reporter;

/// Longest output taken from the lanes. They hold each digest until its window is printed
/// and make the output a block at a time: 20,000 files of 0-8 KiB took 0.07 s in lanes
/// and 0.12 s one at a time through the blake3 crate with 32-byte outputs, the same with
/// 1 KiB, 0.29 s against 0.16 s with 4 KiB, and 3.0 s (78 MB) against 1.1 s with 64 KiB.
const LANES_MAX_OUTPUT: u64 = 512;

/// How every input's BLAKE3 output is computed, and how inputs are read.
pub struct Hashing {
    how: How,
    input: lanesum_files::Options,
}

/// Which hasher computes the output.
enum How {
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
    /// The hashing `opts` ask for. `--keyed` reads the key from standard input here: a
    /// bad key ends the run (`Error: ...`, exit 1).
    pub fn new(opts: &B3sumOptions, rep: &mut Reporter) -> Hashing {
        let (seek, len) = (opts.seek, opts.len);
        let keyed = opts.key == B3Key::Keyed;
        let base = match &opts.key {
            B3Key::Keyed => match read_key() {
                Ok(key) => blake3::Hasher::new_keyed(&key),
                Err(msg) => rep.fatal_as_anyhow(&msg),
            },
            B3Key::DeriveKey(context) => blake3::Hasher::new_derive_key(context),
            B3Key::None if seek == 0 && len <= LANES_MAX_OUTPUT => {
                return Hashing {
                    how: How::Lanes(Algorithm::Blake3(len as usize)),
                    input: opts.input.clone(),
                };
            }
            B3Key::None => blake3::Hasher::new(),
        };
        Hashing {
            how: How::Xof {
                base: Box::new(base),
                seek,
                keyed,
            },
            input: opts.input.clone(),
        }
    }

    /// The output of every input, in order.
    pub(super) fn run<'a>(
        &'a self,
        inputs: &'a [Input],
    ) -> Box<dyn Iterator<Item = io::Result<Output>> + 'a> {
        match &self.how {
            How::Lanes(alg) => Box::new(
                hash_inputs(inputs, std::slice::from_ref(alg), &self.input)
                    .map(|r| r.map(|mut h| Output::Digest(h.digests.swap_remove(0)))),
            ),
            How::Xof { base, seek, keyed } => Box::new(inputs.iter().map(move |input| {
                if *keyed && *input == Input::Stdin {
                    return Err(io::Error::other("Cannot open `-` in keyed mode"));
                }
                let mut out = xof(blake3::Hasher::clone(base), input, &self.input)?;
                out.set_position(*seek);
                Ok(Output::Reader(out))
            })),
        }
    }
}

/// The 32-byte key of `--keyed`: all of standard input, which must be exactly 32 bytes.
fn read_key() -> Result<[u8; 32], String> {
    let mut bytes = Vec::with_capacity(33);
    stdin_file()
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
fn xof(
    mut hasher: blake3::Hasher,
    input: &Input,
    opts: &lanesum_files::Options,
) -> io::Result<blake3::OutputReader> {
    match open_source(input, opts)? {
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
pub(super) enum Output {
    Digest(Digest),
    Reader(blake3::OutputReader),
}

impl Output {
    /// Write `len` bytes of output, as hex or raw, a block at a time (`len` may be huge).
    pub(super) fn emit(self, len: u64, hex: bool, rep: &mut Reporter) {
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
    pub(super) fn first32(self) -> [u8; 32] {
        let mut out = [0u8; 32];
        match self {
            Output::Digest(d) => out.copy_from_slice(&d.as_bytes()[..32]),
            Output::Reader(mut r) => r.fill(&mut out),
        }
        out
    }
}
