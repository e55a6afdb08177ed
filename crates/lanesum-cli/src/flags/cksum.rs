//! cksum's options once getopt has read them all: the algorithm and its length, the
//! output style, and the combinations GNU cksum 9.9 refuses, in its order and words.

use clap::ArgMatches;
use lanesum::Algorithm;

use super::given::{check_only_flags, last_value, Flags};
use super::values::{cksum_algorithm, parse_length};
use crate::cksum_names::CkAlg;
use crate::options::CksumAlg;
use crate::quote::quote;
use crate::report::Reporter;

/// What cksum's options decide.
pub struct Choice {
    pub alg: CksumAlg,
    /// The algorithm hashed (none when checking with a length-less `-a sha2`: each line
    /// says).
    pub algs: Vec<Algorithm>,
    /// Tagged lines (cksum's default, but for the legacy formats, which have no tag).
    pub tagged: bool,
    /// `*` in untagged lines (`--untagged -b`).
    pub binary: bool,
}

/// Read `-a`, `-l` and the style flags as cksum does (`operands`: files named).
pub fn choose(f: &Flags, m: &ArgMatches, operands: usize, rep: &mut Reporter) -> Choice {
    let specified = last_value(m, "algorithm");
    let alg = match &specified {
        Some(v) => cksum_algorithm(v, rep),
        None => CkAlg::Crc,
    };
    let length_arg = last_value(m, "length");
    let length = length_arg
        .as_deref()
        .map_or(0, |v| parse_length(v, rep) as usize);
    let shown = || length_arg.clone().unwrap_or_default();

    // The length, as GNU checks it after reading every option.
    let variable = alg.variable() || matches!(alg, CkAlg::Other(a) if a.with_bits(8).is_some());
    if length != 0 && !variable {
        rep.fatal("--length is only supported with --algorithm blake2b, sha2, or sha3");
    }
    let mut bits = length;
    if matches!(alg, CkAlg::Sha2 | CkAlg::Sha3) {
        if length_arg.is_none() && !f.check {
            rep.fatal(&format!(
                "--algorithm={} requires specifying --length 224, 256, 384, or 512",
                if alg == CkAlg::Sha2 { "sha2" } else { "sha3" }
            ));
        }
        if (!f.check || length_arg.is_some()) && !alg.allows_bits(length) {
            rep.error(&format!("invalid length: {}", quote(shown(), rep.utf8)));
            rep.fatal(&format!(
                "digest length for {} must be 224, 256, 384, or 512",
                quote(alg.tag(), rep.utf8)
            ));
        }
    } else if length != 0 {
        let max = match alg {
            CkAlg::Other(a) => match a.family_default() {
                Algorithm::Blake2s(_) | Algorithm::Blake2sp(_) => 256,
                Algorithm::Blake2b(_) | Algorithm::Blake2bp(_) => 512,
                _ => crate::options::BLAKE3_MAX_BYTES * 8,
            },
            _ => 512,
        };
        if length > max {
            rep.error(&format!("invalid length: {}", quote(shown(), rep.utf8)));
            rep.fatal(&format!(
                "maximum digest length for {} is {max} bits",
                quote(alg.tag(), rep.utf8)
            ));
        }
        if !length.is_multiple_of(8) {
            rep.error(&format!("invalid length: {}", quote(shown(), rep.utf8)));
            rep.fatal("length is not a multiple of 8");
        }
    }
    if bits == 0 {
        bits = alg.default_bits();
    }
    if alg.is_legacy() && f.check && specified.is_some() {
        rep.fatal("--check is not supported with --algorithm={bsd,sysv,crc,crc32b}");
    }
    let usage = |rep: &mut Reporter, msg: &str| -> ! {
        rep.error(msg);
        rep.usage_error("")
    };
    if f.base64 && f.raw {
        usage(rep, "--base64 and --raw are mutually exclusive");
    }
    let tagged = !f.untagged;
    if tagged && f.binary == Some(false) {
        usage(rep, "--text mode is only supported with --untagged");
    }
    if f.zero && f.check {
        usage(
            rep,
            "the --zero option is not supported when verifying checksums",
        );
    }
    if f.binary.is_some() && f.check {
        usage(
            rep,
            "the --binary and --text options are meaningless when verifying checksums",
        );
    }
    check_only_flags(f, rep);
    if f.raw && operands > 1 {
        rep.fatal("the --raw option is not supported with multiple files");
    }
    let algs = match alg.algorithm(bits) {
        Some(a) => vec![a],
        // `-c -a sha2` without `-l`: each line's length decides.
        None => Vec::new(),
    };
    Choice {
        alg: CksumAlg {
            alg,
            specified: specified.is_some(),
        },
        algs,
        tagged: tagged && !alg.is_legacy(),
        binary: f.binary == Some(true),
    }
}
