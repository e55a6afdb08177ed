//! Streams that share SIMD lanes through the library's engine: `LaneHasher` (one
//! algorithm) and `MultiHasher` (several at once), for many concurrent streams on many
//! Python threads (an upload server's request bodies).

use lanesum::Algorithm;
use parking_lot::Mutex;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::buffer::with_bytes_from;
use crate::files::algorithm_list;
use crate::names::parse_algorithm;

/// A stream or, once finished, its digest(s): `digest()` ends the stream (the engine's
/// streams cannot be copied), and repeats return the same value.
enum Phase<S, D> {
    Open(S),
    Done(D),
    /// Only while finishing.
    Taken,
}

impl<S, D: Clone> Phase<S, D> {
    fn update(&mut self, data: &[u8], f: impl FnOnce(&mut S, &[u8])) -> PyResult<()> {
        match self {
            Phase::Open(s) => {
                f(s, data);
                Ok(())
            }
            _ => Err(PyValueError::new_err(
                "update() after digest(): this stream is finished",
            )),
        }
    }

    fn finish(&mut self, f: impl FnOnce(S) -> D) -> D {
        if let Phase::Open(_) = self {
            let Phase::Open(s) = std::mem::replace(self, Phase::Taken) else {
                unreachable!()
            };
            *self = Phase::Done(f(s));
        }
        match self {
            Phase::Done(d) => d.clone(),
            _ => unreachable!("finished above"),
        }
    }
}

/// `LaneHasher(name)`: one stream whose blocks are hashed in the SIMD lanes together with
/// other threads' streams of the same algorithm. `update` releases the GIL from 2 KiB on.
#[pyclass(frozen, module = "lanesum", name = "LaneHasher")]
pub struct LaneHasher {
    alg: Algorithm,
    state: Mutex<Phase<lanesum::LaneHasher, lanesum::Digest>>,
}

#[pymethods]
impl LaneHasher {
    #[new]
    #[pyo3(signature = (name, data=None))]
    fn new(name: &str, data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let alg = parse_algorithm(name)?;
        let h = LaneHasher {
            alg,
            state: Mutex::new(Phase::Open(lanesum::LaneHasher::new(alg))),
        };
        if let Some(d) = data {
            h.update(d)?;
        }
        Ok(h)
    }

    /// Absorb more of the stream.
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        with_bytes_from(data, 0, |b| {
            self.state.lock().update(b, |s, b| {
                s.update(b);
            })
        })?
    }

    /// The digest; ends the stream.
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let d = py.detach(|| self.state.lock().finish(|s| s.finalize()));
        PyBytes::new(py, d.as_bytes())
    }

    /// The digest as lowercase hex; ends the stream.
    fn hexdigest(&self, py: Python<'_>) -> String {
        py.detach(|| self.state.lock().finish(|s| s.finalize()).to_hex())
    }

    /// The algorithm's canonical name.
    #[getter]
    fn name(&self) -> String {
        self.alg.to_string()
    }

    #[getter]
    fn digest_size(&self) -> usize {
        self.alg.digest_len()
    }

    #[getter]
    fn block_size(&self) -> usize {
        self.alg.block_len()
    }
}

/// `MultiHasher(algorithms)`: one stream under several algorithms at once (the data is
/// read once); `digest()` returns a dict name -> digest, names as passed.
#[pyclass(frozen, module = "lanesum", name = "MultiHasher")]
pub struct MultiHasher {
    names: Vec<Py<PyString>>,
    state: Mutex<Phase<lanesum::MultiHasher, Vec<lanesum::Digest>>>,
}

impl MultiHasher {
    fn finish(&self, py: Python<'_>) -> Vec<lanesum::Digest> {
        py.detach(|| self.state.lock().finish(|s| s.finalize()))
    }
}

#[pymethods]
impl MultiHasher {
    #[new]
    #[pyo3(signature = (algorithms, data=None))]
    fn new(algorithms: &Bound<'_, PyAny>, data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let (names, algs) = algorithm_list(algorithms)?;
        if algs.is_empty() {
            return Err(PyValueError::new_err(
                "MultiHasher needs at least one algorithm",
            ));
        }
        let h = MultiHasher {
            names,
            state: Mutex::new(Phase::Open(lanesum::MultiHasher::new(&algs))),
        };
        if let Some(d) = data {
            h.update(d)?;
        }
        Ok(h)
    }

    /// Absorb more of the stream into every algorithm.
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        with_bytes_from(data, 0, |b| {
            self.state.lock().update(b, |s, b| {
                s.update(b);
            })
        })?
    }

    /// name -> digest; ends the stream.
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let out = pyo3::types::PyDict::new(py);
        for (n, d) in self.names.iter().zip(self.finish(py)) {
            out.set_item(n, PyBytes::new(py, d.as_bytes()))?;
        }
        Ok(out)
    }

    /// name -> lowercase hex; ends the stream.
    fn hexdigest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let out = pyo3::types::PyDict::new(py);
        for (n, d) in self.names.iter().zip(self.finish(py)) {
            out.set_item(n, d.to_hex())?;
        }
        Ok(out)
    }

    /// The algorithm names, as passed.
    #[getter]
    fn algorithms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.names.iter().map(|n| n.bind(py)))
    }
}
