//! Golden outputs: what GNU coreutils 9.1 printed (standard output, standard error, exit
//! status) for each comparison case of a test, kept in `tests/golden/TEST.txt` beside this file, so that
//! lanesum is checked against coreutils on any machine; and, where the machine has
//! coreutils 9.1 itself, against the live tool too (which must also agree with the
//! golden: a difference means the golden is stale).
//!
//! `LANESUM_RECORD_GOLDEN=1` writes the files from the live tools instead (each test's
//! file is written when the test passes); `LANESUM_COREUTILS_DIR` names the folder of the
//! live tools (default `/usr/bin`; empty: none). A tool counts as live only when its
//! `--version` says `(GNU coreutils) 9.1`, and a case run in another locale only when that
//! locale is installed.
//!
//! The format, one block per case, in the order the test runs them:
//!
//! ```text
//! === 3: md5sum -c "sp ace" "new\nline"     the case's number and command line
//! env: LC_ALL=C.UTF-8                        variables set besides the fixture's own
//! stdin: "hello\n"                           (or `stdin: 2093 bytes`; none: empty)
//! status: 1
//! stdout:
//! |one line of output, without its newline
//! |a line ending in a NUL ends there (-z output)\0
//! |a last line without a newline is followed by
//! \ no newline at end
//! stderr: (empty)
//! ```
//!
//! Text is UTF-8 and escaped: `\\`, `\"` (in quoted arguments), `\n`, `\r`, `\t`, `\0`,
//! and `\xHH` for every other control character and every byte that is not UTF-8, and for
//! a space that ends a line (editors trim them); so any bytes, NULs and invalid UTF-8
//! included, are written exactly. An output over 64 KiB is kept as its length and SHA-256
//! (`stdout: 559993 bytes, sha256 HEX`). The case lines (`===`, `env`, `stdin`) are
//! checked against what the test runs: one that differs means the test changed and the
//! golden must be recorded again.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// Outputs larger than this are kept as length and SHA-256.
const INLINE_MAX: usize = 64 << 10;

/// Set (to anything but `0` or empty) to write the golden files from the live tools.
pub const RECORD_VAR: &str = "LANESUM_RECORD_GOLDEN";
/// The folder of the live tools (default `/usr/bin`; empty: none).
pub const TOOLS_VAR: &str = "LANESUM_COREUTILS_DIR";
/// What the first line of a live tool's `--version` must end with.
pub const VERSION: &str = "(GNU coreutils) 9.1";

pub fn recording() -> bool {
    std::env::var_os(RECORD_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `DIR/tool` where it is GNU coreutils 9.1 (the version the goldens are recorded from).
pub fn live_tool(tool: &str) -> Option<PathBuf> {
    static SEEN: Mutex<Option<HashMap<String, Option<PathBuf>>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap();
    let seen = seen.get_or_insert_with(HashMap::new);
    seen.entry(tool.to_string())
        .or_insert_with(|| {
            let dir = std::env::var_os(TOOLS_VAR).unwrap_or_else(|| "/usr/bin".into());
            if dir.is_empty() {
                return None;
            }
            let path = Path::new(&dir).join(tool);
            let Ok(out) = Command::new(&path)
                .arg("--version")
                .env("LC_ALL", "C")
                .output()
            else {
                eprintln!("note: no {}: golden only", path.display());
                return None;
            };
            let text = String::from_utf8_lossy(&out.stdout);
            let first = text.lines().next().unwrap_or("");
            if first.ends_with(VERSION) {
                Some(path)
            } else {
                eprintln!(
                    "note: {} is not coreutils 9.1 ({first:?}): golden only",
                    path.display()
                );
                None
            }
        })
        .clone()
}

/// Whether the C library has the locale `name` (a live run in a missing one would fall
/// back to C, where lanesum, which goes by the variables' names, would not).
pub fn locale_exists(name: &str) -> bool {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: a valid NUL-terminated name; the result is freed if not null.
    unsafe {
        let loc = libc::newlocale(libc::LC_ALL_MASK, c.as_ptr(), std::ptr::null_mut());
        if loc.is_null() {
            return false;
        }
        libc::freelocale(loc);
    }
    true
}

/// A standard output or standard error as kept in a golden file.
#[derive(Clone, PartialEq, Debug)]
enum Stream {
    Bytes(Vec<u8>),
    /// Length and SHA-256 (lowercase hex) of a large output.
    Digest(usize, String),
}

impl Stream {
    fn of(bytes: &[u8]) -> Stream {
        if bytes.len() > INLINE_MAX {
            let sha = lanesum::hash(lanesum::Algorithm::Sha256, bytes).to_hex();
            Stream::Digest(bytes.len(), sha)
        } else {
            Stream::Bytes(bytes.to_vec())
        }
    }

    fn render(&self, name: &str, out: &mut String) {
        match self {
            Stream::Bytes(b) if b.is_empty() => out.push_str(&format!("{name}: (empty)\n")),
            Stream::Bytes(b) => {
                out.push_str(&format!("{name}:\n"));
                // Lines end at a newline (not written) or a NUL (written `\0`).
                for line in b.split_inclusive(|&c| c == b'\n' || c == 0) {
                    out.push('|');
                    out.push_str(&escape(line.strip_suffix(b"\n").unwrap_or(line), false));
                    out.push('\n');
                }
                if !b.ends_with(b"\n") && !b.ends_with(b"\0") {
                    out.push_str("\\ no newline at end\n");
                }
            }
            Stream::Digest(len, sha) => {
                out.push_str(&format!("{name}: {len} bytes, sha256 {sha}\n"));
            }
        }
    }

    fn show(&self) -> String {
        match self {
            Stream::Bytes(b) => format!("{:?}", String::from_utf8_lossy(b)),
            Stream::Digest(len, sha) => format!("{len} bytes, sha256 {sha}"),
        }
    }
}

/// The outcome of one run, as kept.
#[derive(Clone, PartialEq, Debug)]
struct Outcome {
    status: Option<i32>,
    stdout: Stream,
    stderr: Stream,
}

impl Outcome {
    fn of(o: &Output) -> Outcome {
        Outcome {
            status: o.status.code(),
            stdout: Stream::of(&o.stdout),
            stderr: Stream::of(&o.stderr),
        }
    }

    fn show(&self) -> String {
        format!(
            "status {:?}\nstdout {}\nstderr {}",
            self.status,
            self.stdout.show(),
            self.stderr.show()
        )
    }

    fn render(&self, out: &mut String) {
        match self.status {
            Some(code) => out.push_str(&format!("status: {code}\n")),
            None => out.push_str("status: signal\n"),
        }
        self.stdout.render("stdout", out);
        self.stderr.render("stderr", out);
    }
}

/// One case of a test: what runs (as written in the golden file) and what it printed.
struct Case {
    /// The `===`, `env:` and `stdin:` lines.
    header: String,
    outcome: Outcome,
}

/// What a case runs, as its `===` line (without the number), `env:` and `stdin:` lines
/// say.
pub fn describe(tool: &str, args: &[&OsStr], env: &[(&str, &str)], stdin: &[u8]) -> String {
    let mut h = tool.to_string();
    for a in args {
        h.push(' ');
        h.push_str(&quote_arg(a.as_bytes()));
    }
    h.push('\n');
    for (k, v) in env {
        h.push_str(&format!("env: {k}={}\n", escape(v.as_bytes(), false)));
    }
    if stdin.len() > 80 {
        h.push_str(&format!("stdin: {} bytes\n", stdin.len()));
    } else if !stdin.is_empty() {
        h.push_str(&format!("stdin: \"{}\"\n", escape(stdin, true)));
    }
    h
}

/// The golden file of one test: checked case by case (or, when recording, written when
/// the test ends without a failure).
pub struct Golden {
    test: String,
    path: PathBuf,
    record: bool,
    /// Check mode: the file's cases. Record mode: those run so far.
    cases: Vec<Case>,
    /// Check mode: how many cases the test has run.
    next: usize,
}

impl Golden {
    pub fn open(test: &str) -> Golden {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(format!("{test}.txt"));
        let record = recording();
        let cases = if record {
            Vec::new()
        } else {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e}; record it with {RECORD_VAR}=1 where coreutils 9.1 is installed",
                    path.display()
                )
            });
            parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        Golden {
            test: test.to_string(),
            path,
            record,
            cases,
            next: 0,
        }
    }

    /// Checks the next case, `what` (from `describe`): lanesum's output `ours` against
    /// the golden, and coreutils' `live` output (where it ran) against the golden too.
    /// When recording, `live` is required and recorded, and `ours` is checked against it.
    pub fn check(&mut self, what: &str, ours: &Output, live: Option<&Output>) {
        let n = if self.record {
            self.cases.len()
        } else {
            self.next
        };
        let header = format!("=== {}: {what}", n + 1);
        let ours = Outcome::of(ours);
        let live = live.map(Outcome::of);
        let (want, source) = if self.record {
            let live = live.unwrap_or_else(|| {
                panic!("{RECORD_VAR}: {header}needs the live coreutils 9.1 tool (and locale)")
            });
            self.cases.push(Case {
                header: header.clone(),
                outcome: live.clone(),
            });
            (live, "live coreutils, being recorded".to_string())
        } else {
            self.next += 1;
            let Some(case) = self.cases.get(n) else {
                panic!(
                    "{} holds {n} cases; the test runs more, from\n{header}\
                     the golden is stale: record it again ({RECORD_VAR}=1)",
                    self.path.display()
                );
            };
            assert!(
                case.header == header,
                "{} case {}:\n{}does not match the test's\n{header}\
                 the golden is stale: record it again ({RECORD_VAR}=1)",
                self.path.display(),
                n + 1,
                case.header
            );
            let golden = case.outcome.clone();
            if let Some(live) = &live {
                assert!(
                    *live == golden,
                    "{header}live coreutils 9.1 now gives\n{}\nbut {} case {} has\n{}\n\
                     the golden is stale: record it again ({RECORD_VAR}=1)",
                    live.show(),
                    self.path.display(),
                    n + 1,
                    golden.show()
                );
            }
            let source = format!(
                "{} case {}{}",
                self.path.display(),
                n + 1,
                if live.is_some() { ", and live" } else { "" }
            );
            (golden, source)
        };
        assert!(
            ours == want,
            "{header}--- coreutils 9.1 ({source})\n{}\n--- lanesum\n{}",
            want.show(),
            ours.show()
        );
    }
}

impl Drop for Golden {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        if self.record {
            let mut text = format!(
                "# GNU coreutils 9.1's exit status, standard output and standard error for\n\
                 # each case of tests/coreutils.rs, {}.\n\
                 # Written by `{RECORD_VAR}=1 cargo test -p lanesum-cli --test coreutils`;\n\
                 # the format is described in tests/golden/mod.rs.\n",
                self.test
            );
            for case in &self.cases {
                text.push('\n');
                text.push_str(&case.header);
                case.outcome.render(&mut text);
            }
            std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
            std::fs::write(&self.path, text).unwrap();
            eprintln!(
                "recorded {} cases in {}",
                self.cases.len(),
                self.path.display()
            );
        } else {
            assert_eq!(
                self.next,
                self.cases.len(),
                "{} holds more cases than the test ran: the golden is stale, record it \
                 again ({RECORD_VAR}=1)",
                self.path.display()
            );
        }
    }
}

/// `s` escaped as the format says; `quoted`: inside double quotes, so `"` is too.
fn escape(s: &[u8], quoted: bool) -> String {
    let mut out = String::new();
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' if quoted => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\0' => out.push_str("\\0"),
                c if c.is_control() => {
                    for b in c.to_string().bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    if out.ends_with(' ') {
        out.pop();
        out.push_str("\\x20");
    }
    out
}

fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('\\') => out.push(b'\\'),
            Some('"') => out.push(b'"'),
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('0') => out.push(0),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let b = u8::from_str_radix(&hex, 16).map_err(|_| format!("bad \\x in {s:?}"))?;
                out.push(b);
            }
            e => return Err(format!("bad escape \\{e:?} in {s:?}")),
        }
    }
    Ok(out)
}

/// An argument as written on the `===` line: bare when it is plain, else quoted.
fn quote_arg(a: &[u8]) -> String {
    let plain = !a.is_empty()
        && a.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-_./=+,:@%".contains(&b));
    if plain {
        String::from_utf8(a.to_vec()).unwrap()
    } else {
        format!("\"{}\"", escape(a, true))
    }
}

/// The cases of a golden file.
fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !line.starts_with("=== ") {
            return Err(format!("expected a case (===), found {line:?}"));
        }
        let mut header = format!("{line}\n");
        while let Some(l) = lines.next_if(|l| l.starts_with("env: ") || l.starts_with("stdin: ")) {
            header.push_str(l);
            header.push('\n');
        }
        let status = match lines.next() {
            Some("status: signal") => None,
            Some(l) if l.starts_with("status: ") => Some(
                l["status: ".len()..]
                    .parse()
                    .map_err(|_| format!("bad {l:?}"))?,
            ),
            l => return Err(format!("{line}: expected status, found {l:?}")),
        };
        let stdout = parse_stream(&mut lines, "stdout")?;
        let stderr = parse_stream(&mut lines, "stderr")?;
        cases.push(Case {
            header,
            outcome: Outcome {
                status,
                stdout,
                stderr,
            },
        });
    }
    Ok(cases)
}

fn parse_stream<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
    name: &str,
) -> Result<Stream, String> {
    let line = lines.next().unwrap_or("");
    let Some(rest) = line.strip_prefix(name).and_then(|r| r.strip_prefix(':')) else {
        return Err(format!("expected {name}:, found {line:?}"));
    };
    match rest {
        " (empty)" => return Ok(Stream::Bytes(Vec::new())),
        "" => {}
        _ => {
            let digest = rest
                .strip_prefix(' ')
                .and_then(|r| r.split_once(" bytes, sha256 "));
            let Some((len, sha)) = digest else {
                return Err(format!("bad {line:?}"));
            };
            let len = len.parse().map_err(|_| format!("bad {line:?}"))?;
            return Ok(Stream::Digest(len, sha.to_string()));
        }
    }
    let mut bytes = Vec::new();
    while let Some(l) = lines.next_if(|l| l.starts_with('|')) {
        let line = unescape(&l[1..])?;
        let nul = line.ends_with(b"\0");
        bytes.extend(line);
        if !nul {
            bytes.push(b'\n');
        }
    }
    if lines.next_if_eq(&"\\ no newline at end").is_some() {
        bytes.pop();
    }
    if bytes.is_empty() {
        return Err(format!(
            "{name}: no lines (an empty output is written (empty))"
        ));
    }
    Ok(Stream::Bytes(bytes))
}

#[test]
fn escapes_round_trip() {
    for s in [
        &b""[..],
        b"plain",
        b"sp ace ",
        b"back\\slash \"q\" \t\r\0\x01\x7f",
        b"bad\xffname \xe2\x80\x98quoted\xe2\x80\x99 \xc2\x85 \xe2\x80",
    ] {
        for quoted in [false, true] {
            let e = escape(s, quoted);
            assert!(!e.contains('\n') && !e.ends_with(' '), "{e}");
            assert_eq!(unescape(&e).unwrap(), s, "{e}");
        }
    }
    let streams: [&[u8]; 9] = [
        b"",
        b"\n",
        b"a\n\nb\0c \xff\n",
        b"no newline",
        b"x\0",
        b"x\0\n",
        b"\0\0y",
        b"\\0 not a NUL\n",
        &[b'z'; INLINE_MAX + 1],
    ];
    for (i, stdout) in streams.into_iter().enumerate() {
        let out = Output {
            status: std::os::unix::process::ExitStatusExt::from_raw(1 << 8),
            stdout: stdout.to_vec(),
            stderr: b"\n".to_vec(),
        };
        let case = Outcome::of(&out);
        let mut text = "=== 1: ".to_string();
        text += &describe(
            "md5sum",
            &[OsStr::new("sp ace"), OsStr::new("-c")],
            &[("LC_ALL", "C")],
            b"x\n",
        );
        case.render(&mut text);
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].outcome, case, "{i}: {text}");
        assert!(text.starts_with(&parsed[0].header), "{text}");
    }
}
