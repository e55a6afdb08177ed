//! The flags as given, after clap has read them: each kind's last value, in order where
//! order matters (coreutils' rules), for `coreutils` and `cksum` to judge.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use clap::ArgMatches;

use super::table::OptSpec;
use crate::report::Reporter;

/// The flags, as the last of each kind given leaves them.
#[derive(Default)]
pub(super) struct Flags {
    pub check: bool,
    pub status: bool,
    pub warn: bool,
    pub quiet: bool,
    /// `--binary` (Some(true)) or `--text` (Some(false)), the last given; `--tag` sets it,
    /// and cksum's `--untagged` after `--tag` clears it.
    pub binary: Option<bool>,
    pub ignore_missing: bool,
    pub strict: bool,
    pub tag: bool,
    /// cksum's `--untagged`, after any `--tag`.
    pub untagged: bool,
    pub zero: bool,
    pub json: bool,
    pub base64: bool,
    pub raw: bool,
    pub debug: bool,
    /// sum's `-s` (after any `-r`).
    pub sysv: bool,
    pub recursive: bool,
    pub dereference: bool,
    pub one_file_system: bool,
    pub progress: Option<bool>,
}

impl Flags {
    pub(super) fn from_matches(m: &ArgMatches, specs: &[&OptSpec]) -> Flags {
        let mut f = Flags::default();
        for (_, id) in events(m, specs) {
            match id {
                "check" => f.check = true,
                "status" => (f.status, f.warn, f.quiet) = (true, false, false),
                "warn" => (f.status, f.warn, f.quiet) = (false, true, false),
                "quiet" => (f.status, f.warn, f.quiet) = (false, false, true),
                "binary" => f.binary = Some(true),
                "text" => f.binary = Some(false),
                "ignore-missing" => f.ignore_missing = true,
                "strict" => f.strict = true,
                "tag" => (f.tag, f.untagged, f.binary) = (true, false, Some(true)),
                "untagged" => {
                    if f.tag {
                        f.binary = None;
                    }
                    (f.tag, f.untagged) = (false, true);
                }
                "base64" => f.base64 = true,
                "raw" => f.raw = true,
                "debug" => f.debug = true,
                "sysv" => f.sysv = true,
                "bsd" => f.sysv = false,
                "zero" => f.zero = true,
                "json" => f.json = true,
                "recursive" => f.recursive = true,
                "dereference" => f.dereference = true,
                "one-file-system" => f.one_file_system = true,
                "progress" => f.progress = Some(true),
                "no-progress" => f.progress = Some(false),
                _ => {}
            }
        }
        f
    }
}

/// Options in the order given, for the flags whose meaning depends on order.
fn events(m: &ArgMatches, specs: &[&OptSpec]) -> Vec<(usize, &'static str)> {
    let mut ev = Vec::new();
    for s in specs {
        // Count flags have a default of 0 that clap also indexes; only real uses count.
        if m.value_source(s.long) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        if let Some(idx) = m.indices_of(s.long) {
            ev.extend(idx.map(|i| (i, s.long)));
        }
    }
    ev.sort();
    ev
}

pub(super) fn last_value(m: &ArgMatches, id: &str) -> Option<Vec<u8>> {
    m.try_get_many::<OsString>(id)
        .ok()
        .flatten()
        .and_then(|mut v| v.next_back())
        .map(|v| v.as_bytes().to_vec())
}

/// `--check`'s modifiers without `--check`: a usage error, in coreutils' order and words.
pub(super) fn check_only_flags(f: &Flags, rep: &mut Reporter) {
    for (set, name) in [
        (f.ignore_missing, "--ignore-missing"),
        (f.status, "--status"),
        (f.warn, "--warn"),
        (f.quiet, "--quiet"),
        (f.strict, "--strict"),
    ] {
        if set && !f.check {
            rep.error(&format!(
                "the {name} option is meaningful only when verifying checksums"
            ));
            rep.usage_error("");
        }
    }
}
