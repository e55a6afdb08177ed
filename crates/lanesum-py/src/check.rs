//! `check(manifest)`: verify a checksum file as `lanesum --check` does.
//!
//! The lines are parsed by `lanesum_files::manifest`, as the command's `lanesum`
//! personality reads them without `-a` (coreutils 9.1's grammar): `#` comments and
//! empty lines skipped; tagged `TAG (name) = digest` with any tag the library knows, so
//! one file may mix algorithms; untagged `hex  name`, `hex *name` or the BSD-reversed
//! `hex name`, not mixed in one file, the algorithm told by the hex length; escaped
//! names. Files are hashed through the library's pipeline, all of one algorithm in one
//! pass.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use lanesum::Algorithm;
use lanesum_files::manifest::{self, Dialect, Entry};
use lanesum_files::{hash_paths, Options};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::forked;

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
    let mut lines: Vec<Entry> = Vec::new();
    let mut misformatted = 0;
    let mut reversed = None;
    // The command's lanesum lines without `-a`: any tag, untagged ones by length.
    let dialect = Dialect::Multi(None);
    for raw in text.split_inclusive(|&b| b == b'\n') {
        let Some(body) = manifest::line_body(raw) else {
            continue;
        };
        match manifest::parse_line(body, &dialect, &mut reversed) {
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
            forked::parallel(|| {
                // Paths are paths, as for hash_files: a line naming `-` is that file.
                let opts = Options {
                    dash_is_stdin: false,
                    ..Options::default()
                };
                hash_paths(names, &[alg], &opts)
                    .map(|p| p.collect::<Vec<_>>())
                    .unwrap_or_default()
            })
        });
        for (&i, f) in idx.iter().zip(got) {
            status[i] = Some(f.result.map(|h| lines[i].matches(&h.digests[0])));
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
