//! `lanesum speed`'s arguments into [`SpeedOptions`] (clap's parser and diagnostics; ours
//! for bad values: `lanesum speed: ...`, exit 1).

use std::ffi::OsString;
use std::time::Duration;

use clap::{Arg, ArgAction, Command};
use lanesum::Algorithm;

use crate::options::SpeedOptions;
use crate::report::Reporter;

const DEFAULT_SIZES: [usize; 4] = [64, 1024, 16 * 1024, 1024 * 1024];
/// Messages per batch: enough to fill the widest kernels' lanes.
const BATCH: usize = 64;

fn command() -> Command {
    Command::new("lanesum speed")
        .about("Measure hashing throughput (GB/s per core) of every path on this CPU")
        .arg(
            Arg::new("algorithm")
                .short('a')
                .long("algorithm")
                .value_name("ALGO[,ALGO...]")
                .help("algorithms to measure [default: md5,sha1,sha256,sha512,blake2b,blake2s,blake3]"),
        )
        .arg(
            Arg::new("sizes")
                .long("sizes")
                .value_name("BYTES[,BYTES...]")
                .help("message sizes (suffixes K, M allowed) [default: 64,1K,16K,1M]"),
        )
        .arg(
            Arg::new("batch")
                .long("batch")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("messages hashed together per measurement [default: 64]"),
        )
        .arg(
            Arg::new("counts")
                .long("counts")
                .action(ArgAction::SetTrue)
                .help("instead: auto path throughput for 1..=64 messages at each size (cliff check); every count cycles through as many bytes as 64 messages, so all see the same caches"),
        )
        .arg(
            Arg::new("modes")
                .long("modes")
                .action(ArgAction::SetTrue)
                .help("instead: the whole-input modes (md5p8, blake2bp/sp, blocks, etag, torrent) vs their plain hashes on one buffer of the largest --sizes [default: 1G], on one core and on all cores"),
        )
        .arg(
            Arg::new("time")
                .long("time")
                .value_name("SECONDS")
                .value_parser(clap::value_parser!(f64))
                .help("minimum time per measurement [default: 0.2]"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("one JSON object per measurement"),
        )
}

/// A message size of `--sizes`: bytes, or with a K or M suffix (powers of 1024).
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1024),
        (i, 'm' | 'M') => (&s[..i], 1024 * 1024),
        _ => (s, 1),
    };
    num.parse::<usize>().ok()?.checked_mul(mul)
}

/// Parse the words after `speed`; `Err` is the exit status once clap's help or error, or
/// ours, has been printed.
pub fn parse(args: Vec<OsString>, rep: &mut Reporter) -> Result<SpeedOptions, i32> {
    let m = match command().no_binary_name(true).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            let text = e.render().to_string();
            return Err(if e.use_stderr() {
                rep.stderr(&text);
                1
            } else {
                rep.write(text.as_bytes());
                0
            });
        }
    };
    let fail = |rep: &mut Reporter, msg: &str| {
        rep.stderr(&format!("lanesum speed: {msg}\n"));
        1
    };
    let algs: Vec<Algorithm> = match m.get_one::<String>("algorithm") {
        None => [
            "md5",
            "sha1",
            "sha256",
            "sha512",
            "blake2b",
            "blake2s",
            "blake3",
            "sha3-256",
            "sha3-512",
            "shake128",
            "sm3",
            "crc32",
            "crc32c",
            "crc64nvme",
            "xxh64",
            "xxh3",
            "xxh128",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect(),
        Some(list) => match list.split(',').map(str::parse).collect() {
            Ok(v) => v,
            Err(e) => return Err(fail(rep, &e.to_string())),
        },
    };
    let sizes: Vec<usize> = match m.get_one::<String>("sizes") {
        None => DEFAULT_SIZES.to_vec(),
        Some(list) => match list.split(',').map(parse_size).collect::<Option<Vec<_>>>() {
            Some(v) if !v.is_empty() && v.iter().all(|&s| (1..=1 << 30).contains(&s)) => v,
            _ => return Err(fail(rep, &format!("invalid --sizes '{list}'"))),
        },
    };
    let batch = m
        .get_one::<usize>("batch")
        .copied()
        .unwrap_or(BATCH)
        .clamp(1, 4096);
    let time = m.get_one::<f64>("time").copied().unwrap_or(0.2);
    if time.is_nan() {
        return Err(fail(rep, &format!("invalid --time '{time}'")));
    }
    let modes = m.get_flag("modes");
    // The table hashes `batch` messages of each size from one buffer.
    if !modes && sizes.iter().any(|&s| s.saturating_mul(batch) > 1 << 30) {
        return Err(fail(
            rep,
            "at most 1 GiB of messages per size (--sizes x --batch)",
        ));
    }
    let modes = modes.then(|| match m.get_one::<String>("sizes") {
        Some(_) => *sizes.iter().max().expect("at least one size"),
        None => 1 << 30,
    });
    Ok(SpeedOptions {
        algs,
        sizes,
        batch,
        min: Duration::from_secs_f64(time.clamp(0.01, 60.0)),
        json: m.get_flag("json"),
        counts: m.get_flag("counts"),
        modes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_command_is_consistent() {
        command().no_binary_name(true).debug_assert();
    }
}
