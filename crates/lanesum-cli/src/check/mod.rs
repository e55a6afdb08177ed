//! `--check`: reading checksum files and verifying the files they list.
//!
//! The lines are parsed by `lanesum_files::manifest` (coreutils 9.1's grammar, the
//! coreutils tools' and lanesum's dialects) and, for cksum, by [`cksum`] from the same
//! pieces. Here: which dialect the personality reads, and reading the lines (a listed
//! `-` is stdin, except in a check file read from stdin, where that line is improperly
//! formatted; `-w` reports improperly formatted lines, `--strict` fails on them); `-l`
//! is ignored when checking, as in b2sum.

use std::io::{self, BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use lanesum::Algorithm;
use lanesum_files::manifest::{self, Entry};
use lanesum_files::{hash_inputs, open_operand, Hashed, Input};

mod cksum;

use crate::options::Options;
use crate::output;
use crate::personality::CheckLines;
use crate::quote::quotef;
use crate::report::{strerror, Reporter};

/// How lines map to algorithms for the current personality.
#[derive(Clone, Debug)]
pub enum Dialect {
    /// The coreutils tools' and lanesum's lines.
    Lines(manifest::Dialect),
    /// cksum: see `cksum`.
    Cksum(cksum::State),
}

impl Dialect {
    pub fn for_options(opts: &Options) -> Dialect {
        Dialect::Lines(match opts.personality.check_lines {
            CheckLines::Blake2b => manifest::Dialect::Blake2b,
            CheckLines::Any => manifest::Dialect::Multi(opts.algs_given.then(|| opts.algs.clone())),
            CheckLines::Own => manifest::Dialect::Fixed(opts.algs[0]),
            CheckLines::Cksum => {
                let c = opts.cksum.expect("cksum's options carry its algorithm");
                return Dialect::Cksum(cksum::State::new(c.alg, c.specified));
            }
        })
    }

    /// The type word in "improperly formatted MD5 checksum line".
    fn type_word(&self) -> String {
        match self {
            Dialect::Lines(d) => d.type_word(),
            Dialect::Cksum(st) => st.type_word(),
        }
    }
}

/// Parse one line (LF and CR already removed). `bsd_reversed` carries the file's
/// format decision between lines.
pub fn parse_line(s: &[u8], d: &Dialect, bsd_reversed: &mut Option<bool>) -> Option<Entry> {
    match d {
        Dialect::Lines(d) => manifest::parse_line(s, d, bsd_reversed),
        Dialect::Cksum(st) => cksum::parse_line(s, st, bsd_reversed),
    }
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
        let Some(body) = manifest::line_body(&line) else {
            continue;
        };
        match parse_line(body, d, &mut bsd_reversed) {
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
                let good = e.matches(&h.digests[pos]);
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
