//! `hash_files`: the library's file pipeline (`lanesum_files::hash_paths`) as a Python
//! iterator of records, one per file, in order.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use lanesum::Algorithm;
use lanesum_files::{hash_paths, HashedFile, Jobs, Options, Pipeline};
use parking_lot::Mutex;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::forked;
use crate::names::parse_algorithm;

/// One file's result: `path` (as given, or as found below a directory), `size` (bytes
/// hashed), `digests` (name -> bytes, the names as passed in `algorithms`) and `error`
/// (None, or why this file has no digests).
#[pyclass(frozen, module = "lanesum", name = "FileRecord", get_all)]
pub struct FileRecord {
    path: Py<PyAny>,
    size: Option<u64>,
    digests: Py<PyDict>,
    error: Option<String>,
}

#[pymethods]
impl FileRecord {
    /// The digests as lowercase hex.
    #[getter]
    fn hexdigests<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (k, v) in self.digests.bind(py).iter() {
            out.set_item(k, lanesum::hex_lower(v.cast::<PyBytes>()?.as_bytes()))?;
        }
        Ok(out)
    }

    /// True when the file was hashed.
    #[getter]
    fn ok(&self) -> bool {
        self.error.is_none()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let path = self.path.bind(py).repr()?;
        Ok(match &self.error {
            None => format!("<FileRecord {path} size={}>", self.size.unwrap_or(0)),
            Some(e) => format!("<FileRecord {path} error={e:?}>"),
        })
    }
}

/// The iterator `hash_files` returns. Each `next()` waits for the next file's result
/// with the GIL released.
#[pyclass(module = "lanesum", name = "FileHashes")]
pub struct FileHashes {
    pipeline: Mutex<Pipeline<Jobs>>,
    pool: Option<rayon::ThreadPool>,
    /// (name as passed) for each algorithm, in order.
    names: Vec<Py<PyString>>,
    /// Paths come back as bytes when every one was given as bytes.
    bytes_paths: bool,
    progress: Option<Py<PyAny>>,
    files: u64,
    bytes: u64,
}

impl FileHashes {
    fn record(&self, py: Python<'_>, f: HashedFile) -> PyResult<FileRecord> {
        let path = if self.bytes_paths {
            PyBytes::new(py, f.path.as_bytes()).into_any().unbind()
        } else {
            f.path.into_pyobject(py)?.into_any().unbind()
        };
        let digests = PyDict::new(py);
        let (size, error) = match f.result {
            Ok(h) => {
                for (name, d) in self.names.iter().zip(&h.digests) {
                    digests.set_item(name, PyBytes::new(py, d.as_bytes()))?;
                }
                (Some(h.size), None)
            }
            Err(e) => (None, Some(io_error_text(&e))),
        };
        Ok(FileRecord {
            path,
            size,
            digests: digests.unbind(),
            error,
        })
    }
}

#[pymethods]
impl FileHashes {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<FileRecord>> {
        let pipeline = &self.pipeline;
        let pool = &self.pool;
        let next = py.detach(|| match pool {
            Some(pool) => pool.install(|| pipeline.lock().next()),
            None => forked::parallel(|| pipeline.lock().next()),
        });
        let Some(f) = next else { return Ok(None) };
        let rec = self.record(py, f)?;
        self.files += 1;
        self.bytes += rec.size.unwrap_or(0);
        if let Some(cb) = &self.progress {
            cb.call1(py, (self.files, self.bytes))?;
        }
        Ok(Some(rec))
    }
}

/// A path argument: str, bytes or os.PathLike.
fn os_path(obj: &Bound<'_, PyAny>) -> PyResult<(OsString, bool)> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok((OsString::from_vec(b.as_bytes().to_vec()), true));
    }
    obj.extract::<std::path::PathBuf>()
        .map(|p| (p.into_os_string(), false))
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "paths must be str, bytes or os.PathLike, not '{}'",
                crate::buffer::type_name(obj)
            ))
        })
}

/// Algorithm names: one str or an iterable of them; (name as given, algorithm).
pub fn algorithm_list(
    algorithms: &Bound<'_, PyAny>,
) -> PyResult<(Vec<Py<PyString>>, Vec<Algorithm>)> {
    let items: Vec<Bound<'_, PyAny>> = if algorithms.is_instance_of::<PyString>() {
        vec![algorithms.clone()]
    } else {
        algorithms.try_iter()?.collect::<PyResult<_>>()?
    };
    let mut names = Vec::new();
    let mut algs = Vec::new();
    for a in items {
        let s = a.cast_into::<PyString>().map_err(|e| {
            PyTypeError::new_err(format!(
                "algorithm names must be str, not '{}'",
                crate::buffer::type_name(&e.into_inner())
            ))
        })?;
        algs.push(parse_algorithm(&s.to_cow()?)?);
        names.push(s.unbind());
    }
    Ok((names, algs))
}

/// `hash_files(paths, algorithms=("sha256",), recursive=False, follow_symlinks=False,
/// threads=None, progress=None, exclude=())`. Paths are paths: `-` is the file of that
/// name, not standard input. `threads`: a pool of that many (at most 256, or twice the
/// CPUs), else the global one.
#[pyfunction]
#[pyo3(signature = (paths, algorithms=None, recursive=false, follow_symlinks=false, threads=None, progress=None, exclude=None))]
#[allow(clippy::too_many_arguments)]
pub fn hash_files(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    algorithms: Option<&Bound<'_, PyAny>>,
    recursive: bool,
    follow_symlinks: bool,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    exclude: Option<Vec<String>>,
) -> PyResult<FileHashes> {
    let (names, algs) = match algorithms {
        Some(a) => algorithm_list(a)?,
        None => (
            vec![PyString::new(py, "sha256").unbind()],
            vec![Algorithm::Sha256],
        ),
    };
    // One path (str, bytes, os.PathLike) or an iterable of them.
    let one = paths.is_instance_of::<PyString>()
        || paths.is_instance_of::<PyBytes>()
        || paths.hasattr("__fspath__")?;
    let items: Vec<Bound<'_, PyAny>> = if one {
        vec![paths.clone()]
    } else {
        paths.try_iter()?.collect::<PyResult<_>>()?
    };
    let mut operands = Vec::with_capacity(items.len());
    let mut all_bytes = !items.is_empty();
    for p in &items {
        let (os, is_bytes) = os_path(p)?;
        all_bytes &= is_bytes;
        operands.push(os);
    }
    if let Some(cb) = &progress {
        if !cb.bind(py).is_callable() {
            return Err(PyTypeError::new_err("progress must be callable"));
        }
    }
    let pool = match threads {
        None => None,
        Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
        // At most lanesum_files::most_threads: rayon's start-up grows with the square of
        // the threads (30,000 took minutes), here with the GIL released.
        Some(n) => Some(
            py.detach(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.min(lanesum_files::most_threads()))
                    .build()
            })
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
        ),
    };
    let opts = Options {
        // Paths are paths: `-` is the file of that name, not standard input.
        dash_is_stdin: false,
        recursive,
        follow_links: follow_symlinks,
        excludes: exclude.unwrap_or_default(),
        ..Options::default()
    };
    let pipeline =
        hash_paths(operands, &algs, &opts).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(FileHashes {
        pipeline: Mutex::new(pipeline),
        pool,
        names,
        bytes_paths: all_bytes,
        progress,
        files: 0,
        bytes: 0,
    })
}

/// An I/O error as Python words one: `[Errno 2] No such file or directory`, without
/// Rust's `(os error 2)` suffix.
pub fn io_error_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(code) => {
            let msg = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text);
            format!("[Errno {code}] {msg}")
        }
        None => text,
    }
}

/// `_Excludes(patterns)`: `hash_files`'s exclude globs, for the listing the Spark and Ray
/// audits make on their driver (`lanesum._audit`), so that it skips exactly what the
/// walk of a directory handed to a worker skips. A bad pattern is a ValueError here, on
/// the driver, before any task starts.
#[pyclass(frozen, module = "lanesum", name = "_Excludes")]
pub struct Excludes(lanesum_files::Excludes);

#[pymethods]
impl Excludes {
    #[new]
    fn new(patterns: Vec<String>) -> PyResult<Self> {
        lanesum_files::Excludes::new(&patterns)
            .map(Excludes)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Whether the entry `name`, at `rel` below its directory operand, is skipped (with
    /// everything below it).
    fn matches(&self, name: &Bound<'_, PyAny>, rel: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.0.matches(&os_path(name)?.0, &os_path(rel)?.0))
    }
}
