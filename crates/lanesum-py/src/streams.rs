//! Streams that share SIMD lanes through the library's engine: `LaneHasher` (one
//! algorithm) and `MultiHasher` (several at once), for many concurrent streams on many
//! Python threads (an upload server's request bodies).

use lanesum::Algorithm;
use parking_lot::Mutex;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::buffer::with_bytes_from;
use crate::files::algorithm_list;
use crate::forked;
use crate::names::parse_algorithm;

/// What the engine's two kinds of stream share: absorbing bytes, and finishing once.
trait EngineStream: Send + Sized {
    /// The digest (or digests) a finished stream gives.
    type Out: Clone + Send;
    fn absorb(&mut self, data: &[u8]);
    fn finish(self) -> Self::Out;
}

// A LaneHasher's rounds never enter rayon, but one of an algorithm without lanes that
// spreads one input over the cores (BLAKE3, the CRCs, BitTorrent v2) hashes through a
// plain hasher that may: in a forked child, on the child's pool (see `forked`).
impl EngineStream for lanesum::LaneHasher {
    type Out = lanesum::Digest;
    fn absorb(&mut self, data: &[u8]) {
        forked::parallel_if(self.algorithm().spreads_one_input(), || self.update(data));
    }
    fn finish(self) -> Self::Out {
        forked::parallel_if(self.algorithm().spreads_one_input(), || self.finalize())
    }
}

// A MultiHasher spreads its algorithms over rayon's threads: in a forked child, on the
// child's pool (see `forked`).
impl EngineStream for lanesum::MultiHasher {
    type Out = Vec<lanesum::Digest>;
    fn absorb(&mut self, data: &[u8]) {
        forked::parallel(|| self.update(data));
    }
    fn finish(self) -> Self::Out {
        forked::parallel(|| self.finalize())
    }
}

/// A stream or, once finished, its digest(s): `digest()` ends the stream (the engine's
/// streams cannot be copied), and repeats return the same value.
enum Phase<S: EngineStream> {
    Open(S),
    Done(S::Out),
    /// Only while finishing.
    Taken,
}

/// The Python objects' core: the phase behind a lock, so that the objects are `frozen`
/// and usable from many threads.
struct Stream<S: EngineStream>(Mutex<Phase<S>>);

impl<S: EngineStream> Stream<S> {
    /// `s`, having absorbed `data` if given (the constructors' `data` argument).
    fn new(s: S, data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let stream = Stream(Mutex::new(Phase::Open(s)));
        if let Some(d) = data {
            stream.update(d)?;
        }
        Ok(stream)
    }

    /// Absorb any buffer; the GIL is released from 2 KiB on.
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        with_bytes_from(data, 0, |b| match &mut *self.0.lock() {
            Phase::Open(s) => {
                s.absorb(b);
                Ok(())
            }
            _ => Err(PyValueError::new_err(
                "update() after digest(): this stream is finished",
            )),
        })?
    }

    /// The digest(s), with the GIL released: the stream ends on the first call.
    fn finish(&self, py: Python<'_>) -> S::Out {
        py.detach(|| {
            let mut phase = self.0.lock();
            if let Phase::Open(_) = &*phase {
                let Phase::Open(s) = std::mem::replace(&mut *phase, Phase::Taken) else {
                    unreachable!("open, checked above")
                };
                *phase = Phase::Done(s.finish());
            }
            match &*phase {
                Phase::Done(d) => d.clone(),
                _ => unreachable!("finished above"),
            }
        })
    }
}

/// `LaneHasher(name)`: one stream whose blocks are hashed in the SIMD lanes together with
/// other threads' streams of the same algorithm. `update` releases the GIL from 2 KiB on.
#[pyclass(frozen, module = "lanesum", name = "LaneHasher")]
pub struct LaneHasher {
    alg: Algorithm,
    stream: Stream<lanesum::LaneHasher>,
}

#[pymethods]
impl LaneHasher {
    #[new]
    #[pyo3(signature = (name, data=None))]
    fn new(name: &str, data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let alg = parse_algorithm(name)?;
        let stream = Stream::new(lanesum::LaneHasher::new(alg), data)?;
        Ok(LaneHasher { alg, stream })
    }

    /// Absorb more of the stream.
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.stream.update(data)
    }

    /// The digest; ends the stream.
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.stream.finish(py).as_bytes())
    }

    /// The digest as lowercase hex; ends the stream.
    fn hexdigest(&self, py: Python<'_>) -> String {
        self.stream.finish(py).to_hex()
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
    stream: Stream<lanesum::MultiHasher>,
}

impl MultiHasher {
    /// name -> `value(digest)`; ends the stream.
    fn by_name<'py, V: IntoPyObject<'py>>(
        &self,
        py: Python<'py>,
        value: impl Fn(&lanesum::Digest) -> V,
    ) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (n, d) in self.names.iter().zip(self.stream.finish(py)) {
            out.set_item(n, value(&d))?;
        }
        Ok(out)
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
        let stream = Stream::new(lanesum::MultiHasher::new(&algs), data)?;
        Ok(MultiHasher { names, stream })
    }

    /// Absorb more of the stream into every algorithm.
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.stream.update(data)
    }

    /// name -> digest; ends the stream.
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.by_name(py, |d| PyBytes::new(py, d.as_bytes()))
    }

    /// name -> lowercase hex; ends the stream.
    fn hexdigest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.by_name(py, |d| d.to_hex())
    }

    /// The algorithm names, as passed.
    #[getter]
    fn algorithms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.names.iter().map(|n| n.bind(py)))
    }
}
