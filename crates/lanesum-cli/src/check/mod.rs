//! `--check`: parsing checksum files and verifying the files they list.
//!
//! The line grammar is coreutils 9.1's, established by experiment with md5sum/b2sum 9.1
//! and their source (rewritten here, not copied):
//! * A line starting with `#` (in column 1) is a comment; after removing one LF and then
//!   one CR, an empty line is skipped. Every other line that does not parse counts as
//!   improperly formatted (`-w` reports each, `--strict` fails on them).
//! * Leading blanks are skipped; a `\` then means the name is escaped (`\\`, `\n`, `\r`).
//! * Tagged: `TAG (name) = hex`, where `TAG` may be followed by one space or none, the
//!   name runs to the last `)`, and blanks may surround `=`.
//! * Untagged: `hex`, one blank, then `*` (binary) or ` ` (text) and the name; or the
//!   "BSD reversed" `hex name` with a single blank, but the two kinds may not be mixed in
//!   one file (the first decides).
//! * Hex is accepted in either case. A listed `-` is stdin, except in a check file read
//!   from stdin, where that line is improperly formatted.
//!
//! Which algorithm a line uses ([`Dialect`]):
//! * `md5sum` .. `sha512sum`: only their own tag, untagged hex of their exact length.
//! * `b2sum`: `BLAKE2b` or `BLAKE2b-BITS` tags (BITS read as C's strtoumax with base 0,
//!   so `BLAKE2b-0x100` is accepted, as 9.1 does), untagged lines of any even length up
//!   to 128 hex digits; `-l` is ignored when checking, as in b2sum.
//! * `lanesum`: any tag lanesum knows (so one file may mix algorithms). Untagged lines use
//!   the `-a` algorithm whose digest length fits; without `-a` the length decides:
//!   32 hex digits md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 sha512 (the
//!   coreutils tools' lengths; sha512-256, blake2 and blake3 lines need a tag or `-a`).

use std::io::{self, BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use lanesum::Algorithm;
use lanesum_files::{hash_inputs, open_operand, Hashed, Input};

mod cksum;
mod syntax;

use crate::options::{Options, BLAKE3_MAX_BYTES};
use crate::output;
use crate::personality::CheckLines;
use crate::quote::quotef;
use crate::report::{strerror, Reporter};
pub use syntax::Entry;
use syntax::{all_hex, at, bsd_tail, is_white, line_start, strtoumax0, untagged_name};

/// How lines map to algorithms for the current personality.
#[derive(Clone, Debug)]
pub enum Dialect {
    /// A single-algorithm coreutils tool: its tag and hex length only.
    Fixed(Algorithm),
    /// b2sum: `BLAKE2b[-BITS]` tags, untagged length from the hex.
    Blake2b,
    /// lanesum: any known tag; untagged lines by `-a` or by length.
    Multi(Option<Vec<Algorithm>>),
    /// cksum: see `cksum`.
    Cksum(cksum::State),
}

impl Dialect {
    pub fn for_options(opts: &Options) -> Dialect {
        match opts.personality.check_lines {
            CheckLines::Blake2b => Dialect::Blake2b,
            CheckLines::Any => Dialect::Multi(opts.algs_given.then(|| opts.algs.clone())),
            CheckLines::Own => Dialect::Fixed(opts.algs[0]),
            CheckLines::Cksum => {
                let c = opts.cksum.expect("cksum's options carry its algorithm");
                Dialect::Cksum(cksum::State::new(c.alg, c.specified))
            }
        }
    }

    /// The type word in "improperly formatted MD5 checksum line".
    fn type_word(&self) -> String {
        match self {
            Dialect::Fixed(a) => a.tag(),
            Dialect::Blake2b => "BLAKE2b".into(),
            Dialect::Multi(Some(v)) if v.len() == 1 => v[0].family_default().tag(),
            Dialect::Multi(_) => String::new(),
            Dialect::Cksum(st) => st.type_word(),
        }
    }
}

/// The algorithm lanesum assumes for an untagged digest of `hex_len` digits.
fn untagged_algorithm(allowed: &Option<Vec<Algorithm>>, hex_len: usize) -> Option<Algorithm> {
    if hex_len < 2 || !hex_len.is_multiple_of(2) {
        return None;
    }
    let bytes = hex_len / 2;
    match allowed {
        // An algorithm of exactly that length first (`-a blake3,md5`: 32 digits are MD5),
        // then the first variable-length family that can have it.
        Some(list) => list
            .iter()
            .copied()
            .find(|a| a.digest_len() == bytes)
            .or_else(|| {
                list.iter().find_map(|&a| match a {
                    Algorithm::Blake2b(_) if bytes <= 64 => Some(Algorithm::Blake2b(bytes as u8)),
                    Algorithm::Blake2s(_) if bytes <= 32 => Some(Algorithm::Blake2s(bytes as u8)),
                    Algorithm::Blake2bp(_) if bytes <= 64 => Some(Algorithm::Blake2bp(bytes as u8)),
                    Algorithm::Blake2sp(_) if bytes <= 32 => Some(Algorithm::Blake2sp(bytes as u8)),
                    Algorithm::Blake3(_) if bytes <= BLAKE3_MAX_BYTES => {
                        Some(Algorithm::Blake3(bytes))
                    }
                    Algorithm::Shake128(_) if bytes <= BLAKE3_MAX_BYTES => {
                        Some(Algorithm::Shake128(bytes))
                    }
                    Algorithm::Shake256(_) if bytes <= BLAKE3_MAX_BYTES => {
                        Some(Algorithm::Shake256(bytes))
                    }
                    _ => None,
                })
            }),
        None => Some(match hex_len {
            32 => Algorithm::Md5,
            40 => Algorithm::Sha1,
            56 => Algorithm::Sha224,
            64 => Algorithm::Sha256,
            96 => Algorithm::Sha384,
            128 => Algorithm::Sha512,
            _ => return None,
        }),
    }
}

fn same_family(a: Algorithm, b: Algorithm) -> bool {
    a.family_default() == b.family_default()
}

/// Parse one line (LF and CR already removed). `bsd_reversed` carries the file's
/// format decision between lines.
pub fn parse_line(s: &[u8], d: &Dialect, bsd_reversed: &mut Option<bool>) -> Option<Entry> {
    if let Dialect::Cksum(st) = d {
        return cksum::parse_line(s, st, bsd_reversed);
    }
    let (mut i, escaped) = line_start(s);
    let rest = &s[i.min(s.len())..];

    // Tagged lines.
    match d {
        Dialect::Fixed(alg) => {
            let tag = alg.tag();
            if rest.starts_with(tag.as_bytes()) {
                let mut j = i + tag.len();
                if at(s, j) == b' ' {
                    j += 1;
                }
                if at(s, j) != b'(' {
                    return None;
                }
                let (name, hex, _) = bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, false)?;
                return Some(Entry {
                    alg: *alg,
                    hex,
                    base64: false,
                    name,
                });
            }
        }
        Dialect::Blake2b => {
            if rest.starts_with(b"BLAKE2b") {
                let mut j = i + 7;
                if j >= s.len() {
                    return None;
                }
                let c = s[j];
                // b2sum overwrites the byte after the tag; only '(' is put back.
                if c != b'(' {
                    j += 1;
                }
                let mut bits = 512u64;
                if c == b'-' {
                    let (v, used) = strtoumax0(&s[j..])?;
                    if v == 0 || v > 512 || !v.is_multiple_of(8) {
                        return None;
                    }
                    bits = v;
                    j += used;
                }
                if at(s, j) == b' ' {
                    j += 1;
                }
                if at(s, j) != b'(' {
                    return None;
                }
                let alg = Algorithm::Blake2b((bits / 8) as u8);
                let (name, hex, _) = bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, false)?;
                return Some(Entry {
                    alg,
                    hex,
                    base64: false,
                    name,
                });
            }
        }
        Dialect::Cksum(_) => {}
        Dialect::Multi(allowed) => {
            let tok_len = rest
                .iter()
                .take(20)
                .position(|&b| is_white(b) || b == b'(' || b == 0)
                .unwrap_or(rest.len().min(20));
            let tag = std::str::from_utf8(&rest[..tok_len]).ok();
            if let Some(alg) = tag.and_then(Algorithm::from_tag) {
                if let Some(list) = allowed {
                    if !list.iter().any(|&a| same_family(a, alg)) {
                        return None;
                    }
                }
                let mut j = i + tok_len;
                if at(s, j) == b' ' {
                    j += 1;
                }
                if at(s, j) != b'(' {
                    return None;
                }
                // lanesum's tagged lines may carry base64 digests (`--base64`).
                let (name, hex, base64) =
                    bsd_tail(&s[j + 1..], escaped, alg.digest_len() * 2, true)?;
                return Some(Entry {
                    alg,
                    hex,
                    base64,
                    name,
                });
            }
        }
    }

    // Untagged lines.
    let min_len = match d {
        Dialect::Fixed(a) => a.digest_len() * 2 + 2,
        _ => 3,
    };
    if s.len() - i.min(s.len()) < min_len + usize::from(at(s, i) == b'\\') {
        return None;
    }
    let start = i;
    if let Dialect::Blake2b = d {
        let n = s[start..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if n < 2 || !n.is_multiple_of(2) || n > 128 {
            return None;
        }
    }
    // The digest runs to the first blank: a NUL in it (or right after it) makes the line
    // improperly formatted, as in 9.1.
    while i < s.len() && !is_white(s[i]) {
        i += 1;
    }
    if i == s.len() {
        return None;
    }
    let hex = &s[start..i];
    let i = i + 1;
    if !all_hex(hex) {
        return None;
    }
    let alg = match d {
        Dialect::Fixed(a) if hex.len() == a.digest_len() * 2 => *a,
        Dialect::Fixed(_) => return None,
        Dialect::Blake2b => Algorithm::Blake2b((hex.len() / 2) as u8),
        Dialect::Multi(allowed) => untagged_algorithm(allowed, hex.len())?,
        Dialect::Cksum(_) => unreachable!("cksum lines are read by check::cksum"),
    };
    let name = untagged_name(s, i, escaped, bsd_reversed)?;
    Some(Entry {
        alg,
        hex: hex.to_vec(),
        base64: false,
        name,
    })
}

/// Counters for one check file.
#[derive(Default)]
struct Tally {
    misformatted: u64,
    mismatched: u64,
    unreadable: u64,
    properly_formatted: bool,
    matched: bool,
}

/// Verify every check file named in `opts.files`; returns the exit status.
pub fn run(opts: &Options, rep: &mut Reporter) -> i32 {
    let dialect = Dialect::for_options(opts);
    let mut ok = true;
    for f in &opts.files {
        ok &= check_one(f.as_bytes(), &dialect, opts, rep);
    }
    i32::from(!ok)
}

fn check_one(file: &[u8], d: &Dialect, opts: &Options, rep: &mut Reporter) -> bool {
    let is_stdin = file == b"-";
    let shown: Vec<u8> = if is_stdin {
        b"standard input".to_vec()
    } else {
        file.to_vec()
    };
    let reader = match open_operand(std::ffi::OsStr::from_bytes(file)) {
        Ok(f) => f,
        Err(e) => {
            rep.file_error(file, &e);
            return false;
        }
    };
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut t = Tally::default();
    let mut bsd_reversed = None;
    let mut line = Vec::new();
    let mut line_no: u64 = 0;
    // Consecutive lines naming the same regular file are verified from one read of it
    // (standard input, a FIFO or a device is read again for each line). Lines are
    // gathered into a window whose files are hashed together (in SIMD lanes), then the
    // window's results and warnings are reported in line order.
    let mut group: Vec<Entry> = Vec::new();
    let mut window: Vec<Pending> = Vec::new();
    let mut read_failed = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => {
                read_failed = true;
                break;
            }
        }
        line_no += 1;
        if line[0] == b'#' {
            continue;
        }
        let mut len = line.len();
        if line[len - 1] == b'\n' {
            len -= 1;
        }
        if len > 0 && line[len - 1] == b'\r' {
            len -= 1;
        }
        if len == 0 {
            continue;
        }
        match parse_line(&line[..len], d, &mut bsd_reversed) {
            Some(e) if !(is_stdin && e.name == b"-") => {
                t.properly_formatted = true;
                if group
                    .first()
                    .is_some_and(|g| g.name != e.name || !reads_alike(&e.name))
                {
                    window.push(Pending::Group(std::mem::take(&mut group)));
                }
                group.push(e);
            }
            _ => {
                if !group.is_empty() {
                    window.push(Pending::Group(std::mem::take(&mut group)));
                }
                window.push(Pending::Misformatted(line_no, d.type_word()));
            }
        }
        // A listed `-` reads stdin, which may be a terminal: verify what came before first.
        if window.len() >= WINDOW_LINES || group.first().is_some_and(|g| g.name == b"-") {
            verify_window(&mut window, &shown, opts, &mut t, rep);
        }
    }
    if !group.is_empty() {
        window.push(Pending::Group(group));
    }
    verify_window(&mut window, &shown, opts, &mut t, rep);
    if read_failed {
        rep.error(&format!("{}: read error", quotef(&shown, rep.utf8)));
        return false;
    }
    if !t.properly_formatted {
        rep.error(&format!(
            "{}: no properly formatted checksum lines found",
            quotef(&shown, rep.utf8)
        ));
    } else if !opts.status {
        let plural = |n: u64, one: &str, many: &str| {
            format!("WARNING: {n} {}", if n == 1 { one } else { many })
        };
        if t.misformatted != 0 {
            rep.error(&plural(
                t.misformatted,
                "line is improperly formatted",
                "lines are improperly formatted",
            ));
        }
        if t.unreadable != 0 {
            rep.error(&plural(
                t.unreadable,
                "listed file could not be read",
                "listed files could not be read",
            ));
        }
        if t.mismatched != 0 {
            rep.error(&plural(
                t.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ));
        }
        if opts.ignore_missing && !t.matched {
            rep.error(&format!(
                "{}: no file was verified",
                quotef(&shown, rep.utf8)
            ));
        }
    }
    t.properly_formatted
        && t.matched
        && t.mismatched == 0
        && t.unreadable == 0
        && (!opts.strict || t.misformatted == 0)
}

/// Whether two reads of the file `name` give the same bytes (unless it changes
/// meanwhile), so that lines naming it twice in a row can share one read.
fn reads_alike(name: &[u8]) -> bool {
    name != b"-" && std::fs::metadata(std::ffi::OsStr::from_bytes(name)).is_ok_and(|m| m.is_file())
}

/// Lines verified together: enough files to fill every lane of every core, and for the
/// big ones among them to be gathered and streamed side by side as `-r` does (the
/// outputs `-r` holds back are as many). `-c` over `/usr`'s 130k MD5 lines, Intel Xeon:
/// 1.86-1.88 s at 4,096 lines, 1.50-1.52 s at 32,768 (`-r` on the tree: 1.40-1.43 s).
const WINDOW_LINES: usize = 32768;

/// A check-file line awaiting its turn to be reported.
enum Pending {
    /// Consecutive lines naming one file.
    Group(Vec<Entry>),
    /// An improperly formatted line, by line number, with the algorithm its warning names
    /// (cksum's depends on the lines before it).
    Misformatted(u64, String),
}

/// Hash every file of the window (each once, under all its lines' algorithms; files that
/// share an algorithm set are hashed together through the lanes), then report the
/// window's lines in order.
fn verify_window(
    window: &mut Vec<Pending>,
    shown: &[u8],
    opts: &Options,
    t: &mut Tally,
    rep: &mut Reporter,
) {
    let group_algs = |g: &[Entry]| {
        let mut algs: Vec<Algorithm> = Vec::new();
        for e in g {
            if !algs.contains(&e.alg) {
                algs.push(e.alg);
            }
        }
        algs
    };
    // Each line group's algorithms, by window position (`None`: a misformatted line).
    let algs_at: Vec<Option<Vec<Algorithm>>> = window
        .iter()
        .map(|p| match p {
            Pending::Group(g) => Some(group_algs(g)),
            Pending::Misformatted(..) => None,
        })
        .collect();
    let mut results: Vec<Option<io::Result<Hashed>>> = (0..window.len()).map(|_| None).collect();
    let mut sets: Vec<&Vec<Algorithm>> = Vec::new();
    for algs in algs_at.iter().flatten() {
        if !sets.contains(&algs) {
            sets.push(algs);
        }
    }
    for algs in sets {
        let members: Vec<usize> = (0..window.len())
            .filter(|&i| algs_at[i].as_ref() == Some(algs))
            .collect();
        let inputs: Vec<Input> = members
            .iter()
            .map(|&i| match &window[i] {
                Pending::Group(g) if g[0].name == b"-" => Input::Stdin,
                Pending::Group(g) => {
                    Input::Path(std::ffi::OsStr::from_bytes(&g[0].name).to_os_string())
                }
                Pending::Misformatted(..) => unreachable!("only groups are members"),
            })
            .collect();
        for (&i, r) in members.iter().zip(hash_inputs(&inputs, algs, &opts.input)) {
            results[i] = Some(r);
        }
    }
    for ((p, result), algs) in window.drain(..).zip(results).zip(&algs_at) {
        match p {
            Pending::Misformatted(line_no, word) => {
                t.misformatted += 1;
                if opts.warn {
                    let sp = if word.is_empty() { "" } else { " " };
                    rep.error(&format!(
                        "{}: {line_no}: improperly formatted {word}{sp}checksum line",
                        quotef(shown, rep.utf8)
                    ));
                }
            }
            Pending::Group(g) => {
                let algs = algs.as_deref().expect("every group has its algorithms");
                let result = result.unwrap_or_else(|| Err(io::Error::other("no result")));
                report_group(g, algs, &result, opts, t, rep);
            }
        }
    }
}

/// Report each line of one file's group against that file's digests.
fn report_group(
    group: Vec<Entry>,
    algs: &[Algorithm],
    result: &io::Result<Hashed>,
    opts: &Options,
    t: &mut Tally,
    rep: &mut Reporter,
) {
    let mut out = Vec::new();
    // cksum escapes check results as coreutils 9.9 does (any `\`, CR or LF).
    let escape_all = opts.personality.check_lines == CheckLines::Cksum;
    for e in group {
        out.clear();
        match result {
            Err(err) if opts.ignore_missing && err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => {
                t.unreadable += 1;
                let q = quotef(&e.name, rep.utf8);
                rep.error(&format!("{q}: {}", strerror(err)));
                if !opts.status {
                    output::push_check_name_as(&mut out, &e.name, escape_all);
                    out.extend_from_slice(b": FAILED open or read\n");
                }
            }
            Ok(h) => {
                let pos = algs.iter().position(|&a| a == e.alg).unwrap_or(0);
                let d = &h.digests[pos];
                let good = if e.base64 {
                    d.to_base64().as_bytes() == e.hex
                } else {
                    d.to_hex().as_bytes() == e.hex.to_ascii_lowercase()
                };
                if good {
                    t.matched = true;
                } else {
                    t.mismatched += 1;
                }
                if !opts.status && (!good || !opts.quiet) {
                    output::push_check_name_as(&mut out, &e.name, escape_all);
                    out.extend_from_slice(if good { b": OK\n" } else { b": FAILED\n" });
                }
            }
        }
        if !out.is_empty() {
            rep.write(&out);
            rep.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "b1946ac92492d2347c6235b4d2611184";

    fn p(line: &str, d: &Dialect) -> Option<Entry> {
        parse_line(line.as_bytes(), d, &mut None)
    }

    #[test]
    fn md5sum_lines() {
        let d = Dialect::Fixed(Algorithm::Md5);
        for ok in [
            format!("{H}  a"),
            format!("  \t{H} *a"),
            format!("MD5 (a) = {H}"),
            format!("MD5(a)= {H}"),
            format!("MD5 (a)  = \t{H}"),
            format!("{}  a", H.to_uppercase()),
            format!("{H}\t a"),
        ] {
            let e = p(&ok, &d).unwrap_or_else(|| panic!("{ok}"));
            assert_eq!(e.name, b"a", "{ok}");
        }
        for bad in [
            format!("SHA1 (a) = {H}"),
            format!("MD5  (a) = {H}"),
            format!("MD5 (a) = {H} "),
            format!("{H}x  a"),
            format!("{}  a", &H[1..]),
            H.to_string(),
            format!("\\{H}  b\\qc"),
            " # comment".to_string(),
            "   ".to_string(),
        ] {
            assert_eq!(p(&bad, &d), None, "{bad}");
        }
        let e = p(&format!("\\{H}  n\\nx\\\\y\\rz"), &d).unwrap();
        assert_eq!(e.name, b"n\nx\\y\rz");
        let e = p(&format!("\\MD5 (b\\\\c) = {H}"), &d).unwrap();
        assert_eq!(e.name, b"b\\c");
    }

    #[test]
    fn bsd_reversed_cannot_mix() {
        let d = Dialect::Fixed(Algorithm::Md5);
        let mut st = None;
        assert!(parse_line(format!("{H} a").as_bytes(), &d, &mut st).is_some());
        assert_eq!(st, Some(true));
        let e = parse_line(format!("{H}  a").as_bytes(), &d, &mut st).unwrap();
        assert_eq!(e.name, b" a");
        let mut st = None;
        assert!(parse_line(format!("{H}  a").as_bytes(), &d, &mut st).is_some());
        assert!(parse_line(format!("{H} a").as_bytes(), &d, &mut st).is_none());
    }

    #[test]
    fn b2sum_tags_follow_9_1() {
        let d = Dialect::Blake2b;
        let e = p("BLAKE2b-0x8 (a) = 27", &d).unwrap();
        assert_eq!(e.alg, Algorithm::Blake2b(1));
        assert!(p("BLAKE2b- 8 (a) = 27", &d).is_some());
        assert!(p("BLAKE2b-+8 (a) = 27", &d).is_some());
        assert!(p("BLAKE2b-8(a) = 27", &d).is_some());
        assert!(p("BLAKE2b-08 (a) = 27", &d).is_none());
        assert!(p("BLAKE2b-010 (a) = 27", &d).is_some());
        assert!(p("BLAKE2b-8  (a) = 27", &d).is_none());
        assert!(p("BLAKE2b-257 (a) = 27", &d).is_none());
        assert!(p("27  a", &d).is_some());
        assert!(p("2  a", &d).is_none());
        let h = "0".repeat(128);
        assert!(p(&format!("BLAKE2bX(a) = {h}"), &d).is_some());
        assert!(p(&format!("BLAKE2b  (a) = {h}"), &d).is_some());
        assert!(p("BLAKE2b", &d).is_none());
    }

    #[test]
    fn lanesum_lines() {
        let d = Dialect::Multi(None);
        assert_eq!(p(&format!("{H}  a"), &d).unwrap().alg, Algorithm::Md5);
        let e = p(&format!("SHA512/256 (x) = {}", "a".repeat(64)), &d).unwrap();
        assert_eq!(e.alg, Algorithm::Sha512_256);
        let e = p(&format!("BLAKE2b-256 (x) = {}", "a".repeat(64)), &d).unwrap();
        assert_eq!(e.alg, Algorithm::Blake2b(32));
        assert!(p(&format!("{}  a", "a".repeat(62)), &d).is_none());
        assert!(p(&format!("MD4 (a) = {H}"), &d).is_none());
        let d = Dialect::Multi(Some(vec![Algorithm::Blake3(32)]));
        assert_eq!(
            p(&format!("{H}  a"), &d).unwrap().alg,
            Algorithm::Blake3(16)
        );
        assert!(p(&format!("MD5 (a) = {H}"), &d).is_none());
        // An exact length wins over a family that could be cut to it, in any order.
        let d = Dialect::Multi(Some(vec![Algorithm::Blake3(32), Algorithm::Md5]));
        assert_eq!(p(&format!("{H}  a"), &d).unwrap().alg, Algorithm::Md5);
        let d = Dialect::Multi(Some(vec![Algorithm::Blake3(16), Algorithm::Md5]));
        assert_eq!(
            p(&format!("{H}  a"), &d).unwrap().alg,
            Algorithm::Blake3(16)
        );
    }

    #[test]
    fn garbage_never_panics() {
        let mut st = None;
        let mut x: u32 = 12345;
        for _ in 0..2000 {
            let len = (x % 50) as usize;
            let mut v = Vec::with_capacity(len);
            for _ in 0..len {
                x = x.wrapping_mul(1103515245).wrapping_add(12345);
                let alphabet = b"\\()= *-MDSHA5BLAKE2b0123456789abcdef\0\r\t\xff";
                v.push(alphabet[(x >> 16) as usize % alphabet.len()]);
            }
            for d in [
                Dialect::Fixed(Algorithm::Md5),
                Dialect::Blake2b,
                Dialect::Multi(None),
            ] {
                let _ = parse_line(&v, &d, &mut st);
            }
        }
    }
}
