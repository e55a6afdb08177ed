//! A first pass over the arguments as getopt_long makes it: glibc's exact diagnostics,
//! left to right, and `--help`/`--version` acted on where getopt reaches them.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::help::{help_text, version_text};
use super::table::OptSpec;
use super::values::{cksum_algorithm, parse_algorithms, parse_length, parse_size_arg};
use crate::personality::{Group, Personality};
use crate::quote::quote;
use crate::report::Reporter;

/// Walk the arguments as getopt_long would, reporting its errors and handling
/// `--help`, `--version` and argument-checking of `-l`/`-a` at the point getopt
/// reaches them. With `posix` (POSIXLY_CORRECT), options end at the first operand:
/// returns its index, where the operands start.
pub fn scan(
    p: &Personality,
    specs: &[&OptSpec],
    args: &[OsString],
    posix: bool,
    rep: &mut Reporter,
) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_bytes();
        i += 1;
        if a == b"--" {
            return None;
        }
        if let Some(body) = a.strip_prefix(b"--") {
            let (name, value) = match body.iter().position(|&b| b == b'=') {
                Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
                None => (body, None),
            };
            let spec = long_option(specs, a, name, rep);
            if spec.optional {
                if let Some(v) = value {
                    check_value(p, spec, v, rep);
                }
            } else if spec.takes_arg() {
                let val = match value {
                    Some(v) => v.to_vec(),
                    None => {
                        if i >= args.len() {
                            rep.usage_error(&format!(
                                "option '--{}' requires an argument",
                                spec.long
                            ));
                        }
                        i += 1;
                        args[i - 1].as_bytes().to_vec()
                    }
                };
                check_value(p, spec, &val, rep);
            } else {
                if value.is_some() {
                    rep.usage_error(&format!(
                        "option '--{}' doesn't allow an argument",
                        spec.long
                    ));
                }
                act_on_flag(p, spec.long, specs, rep);
            }
        } else if a.len() > 1 && a[0] == b'-' {
            let mut j = 1;
            while j < a.len() {
                let c = a[j];
                j += 1;
                let Some(spec) = specs.iter().find(|s| s.short == Some(c)) else {
                    let shown = if c.is_ascii_graphic() || c == b' ' {
                        (c as char).to_string()
                    } else {
                        String::from_utf8_lossy(&[c]).into_owned()
                    };
                    rep.usage_error(&format!("invalid option -- '{shown}'"));
                };
                if spec.takes_arg() {
                    let val = if j < a.len() {
                        a[j..].to_vec()
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].as_bytes().to_vec()
                    } else {
                        rep.usage_error(&format!("option requires an argument -- '{}'", c as char));
                    };
                    check_value(p, spec, &val, rep);
                    break;
                }
            }
        } else if posix {
            return Some(i - 1);
        }
    }
    None
}

/// The option `--name` (argument `arg` as written) stands for: exact, or the one it
/// abbreviates; getopt's error if none or several.
fn long_option<'a>(
    specs: &[&'a OptSpec],
    arg: &[u8],
    name: &[u8],
    rep: &mut Reporter,
) -> &'a OptSpec {
    let specs: Vec<&OptSpec> = specs.iter().copied().filter(|s| s.has_long).collect();
    if let Some(s) = specs.iter().find(|s| s.long.as_bytes() == name) {
        return s;
    }
    let cands: Vec<&OptSpec> = specs
        .iter()
        .copied()
        .filter(|s| s.long.as_bytes().starts_with(name))
        .collect();
    match cands[..] {
        [] => rep.usage_error(&format!(
            "unrecognized option '{}'",
            String::from_utf8_lossy(arg)
        )),
        [one] => one,
        _ => {
            let list: Vec<String> = cands.iter().map(|s| format!("'--{}'", s.long)).collect();
            // The whole argument, `=value` included, as glibc shows it.
            rep.usage_error(&format!(
                "option '{}' is ambiguous; possibilities: {}",
                String::from_utf8_lossy(arg),
                list.join(" ")
            ))
        }
    }
}

fn act_on_flag(p: &Personality, long: &str, specs: &[&OptSpec], rep: &mut Reporter) {
    let text = match long {
        "help" => help_text(p, &rep.prog, specs),
        "version" => version_text(p),
        _ => return,
    };
    rep.write(text.as_bytes());
    rep.flush_now();
    std::process::exit(0);
}

/// Argument errors getopt's caller reports as soon as it sees the option.
fn check_value(p: &Personality, spec: &OptSpec, val: &[u8], rep: &mut Reporter) {
    if p.has(Group::Cksum) {
        // cksum checks a length's value only once every option is read.
        match spec.long {
            "length" => {
                parse_length(val, rep);
            }
            "algorithm" => {
                cksum_algorithm(val, rep);
            }
            _ => {}
        }
        return;
    }
    match spec.long {
        // A bad number is fatal inside parse_length.
        "length" if !parse_length(val, rep).is_multiple_of(8) => {
            rep.error(&format!("invalid length: {}", quote(val, rep.utf8)));
            rep.fatal("length is not a multiple of 8");
        }
        "algorithm" => {
            parse_algorithms(val, rep);
        }
        "etag" | "blocks" | "torrent-pieces" | "s3" => {
            parse_size_arg(spec.long, val, rep);
        }
        _ => {}
    }
}
