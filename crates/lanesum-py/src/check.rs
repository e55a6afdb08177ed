//! `check(manifest)`: verify a checksum file as `lanesum --check` does.
//!
//! The lines are those of the command's `lanesum` personality (see the command's
//! check module for the full grammar, which follows coreutils 9.1): `#` comments and
//! empty lines skipped; tagged `TAG (name) = hex` with any tag the library knows
//! (`Algorithm::from_tag`), so one file may mix algorithms; untagged `hex  name` (text),
//! `hex *name` (binary) or the BSD-reversed `hex name`, not mixed in one file, with the
//! algorithm told by the hex length (md5 .. sha512, coreutils' lengths); a leading `\`
//! escapes the name (`\\`, `\n`, `\r`). Files are hashed through the library's pipeline,
//! all of one algorithm in one pass.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use lanesum::{Algorithm, Digest};
use lanesum_files::{hash_paths, Options};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One properly formatted line.
struct Line {
    alg: Algorithm,
    want: Digest,
    name: Vec<u8>,
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `\\`, `\n` and `\r` undone; `None` for any other escape or a NUL.
fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.iter().copied();
    while let Some(b) = it.next() {
        let c = if b == b'\\' {
            match it.next()? {
                b'\\' => b'\\',
                b'n' => b'\n',
                b'r' => b'\r',
                _ => return None,
            }
        } else {
            b
        };
        if c == 0 {
            return None;
        }
        out.push(c);
    }
    Some(out)
}

/// A name as written: unescaped if the line was, else up to a NUL (a C string in
/// coreutils).
fn name_of(raw: &[u8], escaped: bool) -> Option<Vec<u8>> {
    if escaped {
        unescape(raw)
    } else {
        Some(raw.split(|&b| b == 0).next().unwrap_or(&[]).to_vec())
    }
}

fn digest_of(hex: &[u8], alg: Algorithm) -> Option<Digest> {
    if hex.len() != alg.digest_len() * 2 {
        return None;
    }
    Digest::from_hex(std::str::from_utf8(hex).ok()?)
}

/// `TAG (name) = hex` after the blanks and escape: the tag is the first word (up to a
/// blank or `(`), one optional space, then the name up to the last `)`.
fn tagged(rest: &[u8], escaped: bool) -> Option<Option<Line>> {
    let end = rest
        .iter()
        .take(20)
        .position(|&b| blank(b) || b == b'(' || b == 0)
        .unwrap_or(rest.len().min(20));
    let alg = std::str::from_utf8(&rest[..end])
        .ok()
        .and_then(Algorithm::from_tag)?;
    let mut tail = &rest[end..];
    if tail.first() == Some(&b' ') {
        tail = &tail[1..];
    }
    let parse = || -> Option<Line> {
        let tail = tail.strip_prefix(b"(")?;
        let close = tail.iter().rposition(|&b| b == b')')?;
        let name = name_of(&tail[..close], escaped)?;
        let after = tail[close + 1..].trim_ascii_start();
        let hex = after.strip_prefix(b"=")?.trim_ascii_start();
        Some(Line {
            alg,
            want: digest_of(hex, alg)?,
            name,
        })
    };
    Some(parse())
}

/// The algorithm of an untagged digest, from its length (coreutils' tools' lengths).
fn by_length(hex_len: usize) -> Option<Algorithm> {
    Some(match hex_len {
        32 => Algorithm::Md5,
        40 => Algorithm::Sha1,
        56 => Algorithm::Sha224,
        64 => Algorithm::Sha256,
        96 => Algorithm::Sha384,
        128 => Algorithm::Sha512,
        _ => return None,
    })
}

/// One line (without its LF and CR): `Some(line)` if properly formatted. `reversed`
/// carries the file's untagged style (BSD-reversed or not) between lines.
fn parse_line(s: &[u8], reversed: &mut Option<bool>) -> Option<Line> {
    let s = s.trim_ascii_start();
    let (escaped, rest) = match s.strip_prefix(b"\\") {
        Some(r) => (true, r),
        None => (false, s),
    };
    if let Some(line) = tagged(rest, escaped) {
        return line;
    }
    let hex_end = rest.iter().position(|&b| blank(b))?;
    let hex = &rest[..hex_end];
    let alg = by_length(hex.len())?;
    let want = digest_of(hex, alg)?;
    let mut name = &rest[hex_end + 1..];
    let sep = name.first().copied();
    if name.len() == 1 || !matches!(sep, Some(b' ' | b'*')) {
        if *reversed == Some(false) {
            return None;
        }
        *reversed = Some(true);
    } else if *reversed != Some(true) {
        *reversed = Some(false);
        name = &name[1..];
    }
    Some(Line {
        alg,
        want,
        name: name_of(name, escaped)?,
    })
}

/// The result of `check`: `results` lists (name, status) per line in order, status
/// `"OK"`, `"FAILED"` or the error that kept the file from being read; the counts as
/// the command reports them. True when the check passed.
#[pyclass(frozen, module = "lanesum", name = "CheckResult", get_all)]
pub struct CheckResult {
    results: Vec<(Py<PyAny>, String)>,
    ok: usize,
    failed: usize,
    unreadable: usize,
    misformatted: usize,
    passed: bool,
}

#[pymethods]
impl CheckResult {
    fn __bool__(&self) -> bool {
        self.passed
    }

    fn __repr__(&self) -> String {
        format!(
            "<CheckResult passed={} ok={} failed={} unreadable={} misformatted={}>",
            self.passed, self.ok, self.failed, self.unreadable, self.misformatted
        )
    }
}

/// `check(manifest_path, *, ignore_missing=False, strict=False) -> CheckResult`.
///
/// Names are relative to the working directory, as for the command. Fails (passed is
/// False) on any mismatch or unreadable file, when no line is properly formatted, and
/// with `strict` on any improperly formatted line; `ignore_missing` skips files that do
/// not exist.
#[pyfunction]
#[pyo3(signature = (manifest_path, *, ignore_missing=false, strict=false))]
pub fn check(
    py: Python<'_>,
    manifest_path: std::path::PathBuf,
    ignore_missing: bool,
    strict: bool,
) -> PyResult<CheckResult> {
    let text = std::fs::read(&manifest_path)
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", manifest_path.display())))?;
    let mut lines = Vec::new();
    let mut misformatted = 0;
    let mut reversed = None;
    for raw in text.split(|&b| b == b'\n') {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.is_empty() || raw.starts_with(b"#") {
            continue;
        }
        match parse_line(raw, &mut reversed) {
            Some(l) => lines.push(l),
            None => misformatted += 1,
        }
    }
    // One pass of the pipeline per algorithm; results back in line order.
    let mut status: Vec<Option<Result<bool, std::io::Error>>> =
        lines.iter().map(|_| None).collect();
    let mut algs: Vec<Algorithm> = lines.iter().map(|l| l.alg).collect();
    algs.sort();
    algs.dedup();
    for alg in algs {
        let idx: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].alg == alg).collect();
        let names: Vec<OsString> = idx
            .iter()
            .map(|&i| OsString::from_vec(lines[i].name.clone()))
            .collect();
        let got: Vec<_> = py.detach(|| {
            hash_paths(names, &[alg], &Options::default())
                .map(|p| p.collect::<Vec<_>>())
                .unwrap_or_default()
        });
        for (&i, f) in idx.iter().zip(got) {
            status[i] = Some(f.result.map(|h| h.digests[0] == lines[i].want));
        }
    }
    let (mut ok, mut failed, mut unreadable) = (0, 0, 0);
    let mut results = Vec::new();
    for (line, st) in lines.iter().zip(status) {
        let word = match st {
            Some(Ok(true)) => {
                ok += 1;
                "OK".to_string()
            }
            Some(Ok(false)) => {
                failed += 1;
                "FAILED".to_string()
            }
            Some(Err(e)) if ignore_missing && e.kind() == std::io::ErrorKind::NotFound => continue,
            Some(Err(e)) => {
                unreadable += 1;
                crate::files::io_error_text(&e)
            }
            None => continue,
        };
        let name = PyBytes::new(py, &line.name);
        let name = py.import("os")?.call_method1("fsdecode", (name,))?.unbind();
        results.push((name, word));
    }
    let passed = !lines.is_empty()
        && failed == 0
        && unreadable == 0
        && !(strict && misformatted > 0)
        && (ok > 0 || !ignore_missing);
    Ok(CheckResult {
        results,
        ok,
        failed,
        unreadable,
        misformatted,
        passed,
    })
}
