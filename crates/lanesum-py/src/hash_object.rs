//! hashlib-compatible hash objects: `lanesum.new`, one constructor per algorithm, and the
//! parameterised `blake2b`, `blake2s` and `blake3`.

use lanesum::Algorithm;
use parking_lot::Mutex;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use shake::{ExtendableOutput, Update};

use crate::buffer::with_bytes;
use crate::names::{hashlib_xof, hashlib_xof_name, parse_algorithm};

/// BLAKE3 hands updates at least this large to rayon when threads are allowed (the
/// library's own threshold for its BLAKE3).
const BLAKE3_RAYON_MIN: usize = 256 * 1024;

/// `hexdigest` formats digests up to this long on the stack; longer extendable outputs
/// go through a `bytes` object (Python's own allocation: a MemoryError, not an abort,
/// for a length no machine has).
const HEX_INLINE: usize = 256;

/// What a hash object hashes with.
#[derive(Clone)]
enum State {
    /// Every algorithm the library has, unkeyed.
    Plain(lanesum::Hasher),
    /// Keyed, salted or personalised BLAKE2 (hashlib's parameters).
    Blake2b(blake2b_simd::State),
    Blake2s(blake2s_simd::State),
    /// BLAKE3 in any mode, with its extendable output; `threads` lets large updates use
    /// every core.
    Blake3 {
        h: Box<::blake3::Hasher>,
        threads: bool,
    },
    /// SHAKE, with its extendable output (the library's Hasher gives one length).
    Shake128(Box<shake::Shake128>),
    Shake256(Box<shake::Shake256>),
}

impl State {
    fn update(&mut self, data: &[u8]) {
        match self {
            State::Plain(h) => {
                // The library says which updates may reach rayon's threads: a large CRC,
                // BitTorrent v2 filling a batch of leaves (from small writes too).
                let may_spread = h.update_may_spread(data.len());
                crate::forked::parallel_if(may_spread, || h.update(data));
            }
            State::Blake2b(h) => {
                h.update(data);
            }
            State::Blake2s(h) => {
                h.update(data);
            }
            State::Blake3 { h, threads } => {
                if *threads && data.len() >= BLAKE3_RAYON_MIN {
                    crate::forked::parallel(|| h.update_rayon(data));
                } else {
                    h.update(data);
                }
            }
            State::Shake128(h) => h.update(data),
            State::Shake256(h) => h.update(data),
        }
    }

    /// Write the digest of what was absorbed so far into `out`: the algorithm's length,
    /// or any for an extendable output ([`State::extendable`]).
    fn fill(&self, out: &mut [u8]) {
        match self {
            State::Plain(h) => {
                // BitTorrent v2's root may spread its leaves over rayon's threads.
                let may_spread = h.algorithm().spreads_one_input();
                let d = crate::forked::parallel_if(may_spread, || h.clone().finalize());
                out.copy_from_slice(d.as_bytes());
            }
            State::Blake2b(h) => out.copy_from_slice(h.finalize().as_bytes()),
            State::Blake2s(h) => out.copy_from_slice(h.finalize().as_bytes()),
            State::Blake3 { h, .. } => h.finalize_xof().fill(out),
            State::Shake128(h) => (**h).clone().finalize_xof_into(out),
            State::Shake256(h) => (**h).clone().finalize_xof_into(out),
        }
    }

    /// Whether [`State::fill`] takes any output length.
    fn extendable(&self) -> bool {
        matches!(
            self,
            State::Blake3 { .. } | State::Shake128(_) | State::Shake256(_)
        )
    }
}

/// A hash object, as hashlib's: `update`, `digest`, `hexdigest`, `copy`, `name`,
/// `digest_size`, `block_size`. Safe to share between threads: updates are serialised by a
/// lock, and large ones run with the GIL released.
#[pyclass(frozen, module = "lanesum", name = "Hash")]
pub struct Hash {
    alg: Algorithm,
    /// hashlib's `shake_128` or `shake_256`: no length of its own (`digest_size` 0);
    /// each digest names one.
    length_required: bool,
    state: Mutex<State>,
}

impl Hash {
    fn with_state(alg: Algorithm, state: State, data: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
        let h = Hash {
            alg,
            length_required: false,
            state: Mutex::new(state),
        };
        if let Some(d) = data {
            h.absorb(d)?;
        }
        Ok(h)
    }

    /// A plain hash object of `alg`; BLAKE3 and SHAKE through their own states, for
    /// their extendable outputs.
    pub fn plain(alg: Algorithm, data: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
        let state = match alg {
            Algorithm::Blake3(_) => State::Blake3 {
                h: Box::default(),
                threads: true,
            },
            Algorithm::Shake128(_) => State::Shake128(Box::default()),
            Algorithm::Shake256(_) => State::Shake256(Box::default()),
            _ => State::Plain(lanesum::Hasher::new(alg)),
        };
        Hash::with_state(alg, state, data)
    }

    /// hashlib's `shake_128` or `shake_256` (`alg` is SHAKE): each digest names its length.
    pub fn xof(alg: Algorithm, data: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
        let mut h = Hash::plain(alg, None)?;
        h.length_required = true;
        if let Some(d) = data {
            h.absorb(d)?;
        }
        Ok(h)
    }

    fn absorb(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        with_bytes(data, |bytes| self.state.lock().update(bytes))
    }

    fn extendable(&self) -> bool {
        self.state.lock().extendable()
    }
}

#[pymethods]
impl Hash {
    /// Absorb more data: any C-contiguous buffer (bytes, bytearray, memoryview, mmap,
    /// numpy array).
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.absorb(data)
    }

    /// The digest of the data absorbed so far; the object can go on absorbing. BLAKE3
    /// and SHAKE take an output `length` in bytes (extendable output); hashlib's
    /// `shake_128` and `shake_256` need one.
    #[pyo3(signature = (length=None))]
    fn digest<'py>(&self, py: Python<'py>, length: Option<usize>) -> PyResult<Bound<'py, PyBytes>> {
        let len = self.output_len(length)?;
        // Python allocates it: a length no machine has is a MemoryError.
        PyBytes::new_with(py, len, |out| {
            self.state.lock().fill(out);
            Ok(())
        })
    }

    /// The digest as lowercase hex.
    #[pyo3(signature = (length=None))]
    fn hexdigest<'py>(
        &self,
        py: Python<'py>,
        length: Option<usize>,
    ) -> PyResult<Bound<'py, PyString>> {
        let len = self.output_len(length)?;
        if len <= HEX_INLINE {
            let mut out = [0; HEX_INLINE];
            self.state.lock().fill(&mut out[..len]);
            return Ok(PyString::new(py, &lanesum::hex_lower(&out[..len])));
        }
        Ok(self
            .digest(py, Some(len))?
            .call_method0("hex")?
            .cast_into()?)
    }

    /// An independent copy of the current state.
    fn copy(&self) -> Hash {
        Hash {
            alg: self.alg,
            length_required: self.length_required,
            state: Mutex::new(self.state.lock().clone()),
        }
    }

    /// hashlib's name for the algorithm: `sha256`, `sha512_256`, `blake2b` (at any
    /// digest size, as hashlib), `shake_128` for hashlib's SHAKE.
    #[getter]
    fn name(&self) -> String {
        match hashlib_xof_name(self.alg) {
            Some(name) if self.length_required => name.to_string(),
            _ => hashlib_name(self.alg.family_default()),
        }
    }

    /// Digest length in bytes: 0 for hashlib's SHAKE, which has none of its own.
    #[getter]
    fn digest_size(&self) -> usize {
        if self.length_required {
            0
        } else {
            self.alg.digest_len()
        }
    }

    /// The compression function's block length in bytes.
    #[getter]
    fn block_size(&self) -> usize {
        self.alg.block_len()
    }

    fn __repr__(&self) -> String {
        if self.length_required {
            return format!("<lanesum.Hash {}>", self.name());
        }
        format!("<lanesum.Hash {}>", self.alg)
    }
}

impl Hash {
    fn output_len(&self, length: Option<usize>) -> PyResult<usize> {
        let len = self.output_len_unchecked(length)?;
        // Python's sizes are signed: past isize::MAX, as hashlib says.
        if isize::try_from(len).is_err() {
            return Err(PyOverflowError::new_err(format!(
                "{}: output length {len} is too large",
                self.name()
            )));
        }
        Ok(len)
    }

    fn output_len_unchecked(&self, length: Option<usize>) -> PyResult<usize> {
        match length {
            None if self.length_required => Err(PyTypeError::new_err(format!(
                "{}: digest() and hexdigest() need a length in bytes",
                self.name()
            ))),
            None => Ok(self.alg.digest_len()),
            Some(n) if self.extendable() => Ok(n),
            Some(n) if n == self.alg.digest_len() => Ok(n),
            Some(_) => Err(PyTypeError::new_err(format!(
                "{}: only BLAKE3 and SHAKE take an output length",
                self.alg
            ))),
        }
    }
}

/// hashlib's spelling of a library name: `sha512-256` -> `sha512_256`.
pub fn hashlib_name(alg: Algorithm) -> String {
    alg.to_string().replace('-', "_")
}

/// The constructor of one algorithm (`lanesum.sha256`): called as hashlib's,
/// `sha256(data=b"", *, usedforsecurity=True)`.
#[pyclass(frozen, module = "lanesum", name = "Constructor")]
pub struct Constructor {
    alg: Algorithm,
    /// hashlib's `shake_128` or `shake_256` ([`Hash::xof`]), under this name.
    xof: Option<&'static str>,
}

impl Constructor {
    pub fn new(alg: Algorithm) -> Constructor {
        Constructor { alg, xof: None }
    }

    /// hashlib's SHAKE constructor `name` (`shake_128`), of `alg`.
    pub fn xof(name: &'static str, alg: Algorithm) -> Constructor {
        Constructor {
            alg,
            xof: Some(name),
        }
    }

    fn name(&self) -> String {
        self.xof
            .map_or_else(|| hashlib_name(self.alg), str::to_string)
    }
}

#[pymethods]
impl Constructor {
    #[pyo3(signature = (data=None, *, usedforsecurity=true, string=None))]
    fn __call__(
        &self,
        data: Option<&Bound<'_, PyAny>>,
        usedforsecurity: bool,
        string: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Hash> {
        let _ = usedforsecurity;
        let data = data_or_string(data, string)?;
        match self.xof {
            Some(_) => Hash::xof(self.alg, data),
            None => Hash::plain(self.alg, data),
        }
    }

    #[getter]
    fn __name__(&self) -> String {
        self.name()
    }

    #[getter]
    fn __doc__(&self) -> String {
        let what = match self.xof {
            Some(_) => "of any length: digest(length)".to_string(),
            None => format!("{} bytes", self.alg.digest_len()),
        };
        format!(
            "{}(data=b\"\", *, usedforsecurity=True) -> Hash: a {} hash object ({what}).",
            self.name(),
            self.alg.family_default(),
        )
    }

    fn __repr__(&self) -> String {
        format!("<lanesum constructor {}>", self.name())
    }

    /// Pickled by reference, as hashlib's constructors are: `lanesum.<name>`, the
    /// module attribute this constructor is.
    fn __reduce__(&self) -> String {
        self.name()
    }
}

/// The message of a call given as `data` or as hashlib's older keyword `string` (CPython
/// up to 3.13 names it so: `hashlib.sha256(string=b"..")`), not both.
fn data_or_string<'a, 'py>(
    data: Option<&'a Bound<'py, PyAny>>,
    string: Option<&'a Bound<'py, PyAny>>,
) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    match (data, string) {
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "'data' and 'string' are mutually exclusive",
        )),
        (d, s) => Ok(d.or(s)),
    }
}

/// `new(name, data=b"", **kwargs)`: a hash object for any name the library parses
/// (`sha256`, `SHA-256`, `sha512_256`, `blake2b-256`, `b3`, ...); keyword arguments go to
/// `blake2b`, `blake2s` or `blake3` for those families.
#[pyfunction]
#[pyo3(signature = (name, data=None, **kwargs))]
pub fn new(
    name: &Bound<'_, PyAny>,
    data: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Hash> {
    let name = name.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "new() argument 'name' must be str, not {}",
            crate::buffer::type_name(name)
        ))
    })?;
    let name = name.to_cow()?;
    let mut kw = Kwargs::new(kwargs)?;
    kw.take_any("usedforsecurity")?;
    let string = kw.take_any("string")?;
    let data = data_or_string(data, string.as_ref())?;
    if let Some(alg) = hashlib_xof(&name) {
        kw.finish()?;
        return Hash::xof(alg, data);
    }
    let alg = parse_algorithm(&name)?;
    let hash = match alg.family_default() {
        Algorithm::Blake2b(_) | Algorithm::Blake2s(_) => {
            let size = kw.take_isize("digest_size")?;
            let p = Blake2Params {
                size: size.unwrap_or(alg.digest_len() as isize),
                key: kw.take_bytes("key")?,
                salt: kw.take_bytes("salt")?,
                person: kw.take_bytes("person")?,
            };
            kw.finish()?;
            let wide = alg.family_default() == Algorithm::Blake2b(64);
            return blake2(wide, p, data);
        }
        Algorithm::Blake3(_) => {
            let alg = match kw.take_isize("digest_size")? {
                Some(size) => Algorithm::Blake3(blake3_size(size)?),
                None => alg,
            };
            let key = kw.take_any("key")?;
            let key = key
                .as_ref()
                .map(|k| with_bytes(k, <[u8]>::to_vec))
                .transpose()?;
            let context = kw.take_string("derive_key_context")?;
            let max_threads = kw.take_isize("max_threads")?.unwrap_or(-1);
            kw.finish()?;
            blake3_hash(alg, key, context, max_threads, data)?
        }
        _ => {
            kw.finish()?;
            Hash::plain(alg, data)?
        }
    };
    Ok(hash)
}

/// Keyword arguments taken one by one; leftovers are a TypeError, as in a Python
/// signature.
struct Kwargs<'py>(Option<Bound<'py, PyDict>>);

impl<'py> Kwargs<'py> {
    fn new(d: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        Ok(Kwargs(d.map(|d| d.copy()).transpose()?))
    }

    /// The value under `key`, removed; `None` for a missing key or None.
    fn take_any(&mut self, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(d) = &self.0 else { return Ok(None) };
        match d.get_item(key)? {
            None => Ok(None),
            Some(v) => {
                d.del_item(key)?;
                Ok((!v.is_none()).then_some(v))
            }
        }
    }

    fn take_isize(&mut self, key: &str) -> PyResult<Option<isize>> {
        self.take_any(key)?
            .map(|v| v.extract::<isize>())
            .transpose()
    }

    fn take_string(&mut self, key: &str) -> PyResult<Option<String>> {
        self.take_any(key)?
            .map(|v| v.extract::<String>())
            .transpose()
    }

    fn take_bytes(&mut self, key: &str) -> PyResult<Vec<u8>> {
        match self.take_any(key)? {
            None => Ok(Vec::new()),
            Some(v) => with_bytes(&v, |b| b.to_vec()),
        }
    }

    fn finish(self) -> PyResult<()> {
        match self.0.and_then(|d| d.keys().iter().next()) {
            Some(k) => Err(PyTypeError::new_err(format!(
                "unexpected keyword argument {}",
                k.repr()?
            ))),
            None => Ok(()),
        }
    }
}

/// hashlib's BLAKE2 parameters that the library's hasher does not take.
struct Blake2Params {
    /// As given: out of range (negative too) is hashlib's ValueError.
    size: isize,
    key: Vec<u8>,
    salt: Vec<u8>,
    person: Vec<u8>,
}

impl Blake2Params {
    fn of(
        size: isize,
        key: Option<&Bound<'_, PyAny>>,
        salt: Option<&Bound<'_, PyAny>>,
        person: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Blake2Params> {
        Ok(Blake2Params {
            size,
            key: opt_bytes(key)?,
            salt: opt_bytes(salt)?,
            person: opt_bytes(person)?,
        })
    }
}

fn blake2(wide: bool, p: Blake2Params, data: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
    let (max, name, salt_max) = if wide {
        (64, "blake2b", 16)
    } else {
        (32, "blake2s", 8)
    };
    let size = usize::try_from(p.size)
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "{name}: digest_size must be between 1 and {max} bytes"
            ))
        })?;
    if p.key.len() > max {
        return Err(PyValueError::new_err(format!(
            "{name}: maximum key length is {max} bytes"
        )));
    }
    for (what, v) in [("salt", &p.salt), ("person", &p.person)] {
        if v.len() > salt_max {
            return Err(PyValueError::new_err(format!(
                "{name}: maximum {what} length is {salt_max} bytes"
            )));
        }
    }
    let alg = if wide {
        Algorithm::Blake2b(size as u8)
    } else {
        Algorithm::Blake2s(size as u8)
    };
    if p.key.is_empty() && p.salt.is_empty() && p.person.is_empty() {
        return Hash::plain(alg, data);
    }
    // Both crates' `Params` take the same calls.
    macro_rules! state {
        ($krate:ident) => {
            $krate::Params::new()
                .hash_length(size)
                .key(&p.key)
                .salt(&p.salt)
                .personal(&p.person)
                .to_state()
        };
    }
    let state = if wide {
        State::Blake2b(state!(blake2b_simd))
    } else {
        State::Blake2s(state!(blake2s_simd))
    };
    Hash::with_state(alg, state, data)
}

/// `blake2b(..)` and `blake2s(..)`: hashlib's constructors, alike but for the defaults.
macro_rules! blake2_constructor {
    ($name:ident, $wide:expr, $size:tt) => {
        #[doc = concat!(
            "`", stringify!($name), "(data=b\"\", *, digest_size=", stringify!($size),
            ", key=b\"\", salt=b\"\", person=b\"\", usedforsecurity=True)`, as hashlib's."
        )]
        #[pyfunction]
        #[pyo3(signature = (data=None, *, digest_size=$size, key=None, salt=None, person=None, usedforsecurity=true))]
        pub fn $name(
            data: Option<&Bound<'_, PyAny>>,
            digest_size: isize,
            key: Option<&Bound<'_, PyAny>>,
            salt: Option<&Bound<'_, PyAny>>,
            person: Option<&Bound<'_, PyAny>>,
            usedforsecurity: bool,
        ) -> PyResult<Hash> {
            let _ = usedforsecurity;
            blake2(
                $wide,
                Blake2Params::of(digest_size, key, salt, person)?,
                data,
            )
        }
    };
}

blake2_constructor!(blake2b, true, 64);
blake2_constructor!(blake2s, false, 32);

fn opt_bytes(v: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u8>> {
    match v {
        None => Ok(Vec::new()),
        Some(v) => with_bytes(v, |b| b.to_vec()),
    }
}

/// `blake3(data=b"", *, key=None, derive_key_context=None, max_threads=-1,
/// digest_size=32, usedforsecurity=True)`, as blake3-py's (plus `digest_size`, the
/// default output length). `max_threads=1` keeps large updates on the calling thread;
/// any other value lets them use every core.
#[pyfunction]
#[pyo3(signature = (data=None, *, key=None, derive_key_context=None, max_threads=-1, digest_size=32, usedforsecurity=true))]
pub fn blake3(
    data: Option<&Bound<'_, PyAny>>,
    key: Option<&Bound<'_, PyAny>>,
    derive_key_context: Option<String>,
    max_threads: isize,
    digest_size: isize,
    usedforsecurity: bool,
) -> PyResult<Hash> {
    let _ = usedforsecurity;
    let key = key.map(|k| with_bytes(k, <[u8]>::to_vec)).transpose()?;
    blake3_hash(
        Algorithm::Blake3(blake3_size(digest_size)?),
        key,
        derive_key_context,
        max_threads,
        data,
    )
}

/// A BLAKE3 `digest_size`: at least 1 (a ValueError otherwise, as hashlib's BLAKE2).
fn blake3_size(size: isize) -> PyResult<usize> {
    usize::try_from(size)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| PyValueError::new_err("blake3: digest_size must be at least 1"))
}

/// A BLAKE3 hash object: keyed (`key`, which must then be 32 bytes, even if empty: an
/// empty key is a mistake, not a request for the unkeyed hash), deriving a key, or plain.
fn blake3_hash(
    alg: Algorithm,
    key: Option<Vec<u8>>,
    context: Option<String>,
    max_threads: isize,
    data: Option<&Bound<'_, PyAny>>,
) -> PyResult<Hash> {
    if max_threads == 0 || max_threads < -1 {
        return Err(PyValueError::new_err(
            "blake3: max_threads must be -1 (automatic) or at least 1",
        ));
    }
    let h = match (key, context) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "blake3: key and derive_key_context cannot be used together",
            ))
        }
        (Some(key), None) => {
            let key: [u8; 32] = key.as_slice().try_into().map_err(|_| {
                PyValueError::new_err(format!(
                    "blake3: key must be exactly 32 bytes, not {}",
                    key.len()
                ))
            })?;
            ::blake3::Hasher::new_keyed(&key)
        }
        (None, Some(ctx)) => ::blake3::Hasher::new_derive_key(&ctx),
        (None, None) => ::blake3::Hasher::new(),
    };
    let state = State::Blake3 {
        h: Box::new(h),
        threads: max_threads != 1,
    };
    Hash::with_state(alg, state, data)
}
