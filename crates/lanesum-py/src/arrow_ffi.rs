//! The Arrow C data and stream interfaces, as far as `hash_array` needs them: binary and
//! string arrays in (any producer's: pyarrow, polars, arro3, nanoarrow), through the
//! PyCapsule protocol without a copy; fixed-size-binary and string arrays out.
//!
//! Written against the specification rather than pulling in the arrow crates (and their
//! compile time) for two formats in and two out.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `struct ArrowSchema`.
#[repr(C)]
pub struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray`.
#[repr(C)]
pub struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

/// `struct ArrowArrayStream`.
#[repr(C)]
struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

const SCHEMA_NAME: &CStr = c"arrow_schema";
const ARRAY_NAME: &CStr = c"arrow_array";
const STREAM_NAME: &CStr = c"arrow_array_stream";

/// The binary layouts `hash_array` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// binary / utf8: 32-bit offsets.
    Small,
    /// large binary / large utf8: 64-bit offsets.
    Large,
    /// binary view / utf8 view: 16-byte views over variadic buffers.
    View,
}

impl Layout {
    fn of(format: &CStr) -> Option<Layout> {
        match format.to_bytes() {
            b"z" | b"u" => Some(Layout::Small),
            b"Z" | b"U" => Some(Layout::Large),
            b"vz" | b"vu" => Some(Layout::View),
            _ => None,
        }
    }
}

/// The C structs that end with a `release` callback: what we import we own and release
/// once (on drop); what we export, a capsule's destructor releases if its consumer did not
/// take it.
trait Released: Sized {
    /// The capsule name of the PyCapsule protocol.
    const CAPSULE: &'static CStr;
    fn release_fn(&self) -> Option<unsafe extern "C" fn(*mut Self)>;
    fn mark_released(&mut self);
}

macro_rules! released {
    ($t:ty, $name:expr) => {
        impl Released for $t {
            const CAPSULE: &'static CStr = $name;
            fn release_fn(&self) -> Option<unsafe extern "C" fn(*mut Self)> {
                self.release
            }
            fn mark_released(&mut self) {
                self.release = None;
            }
        }
    };
}
released!(ArrowSchema, SCHEMA_NAME);
released!(ArrowArray, ARRAY_NAME);
released!(ArrowArrayStream, STREAM_NAME);

/// An imported struct that we own, released on drop.
struct Owned<T: Released>(T);

impl<T: Released> Drop for Owned<T> {
    fn drop(&mut self) {
        if let Some(release) = self.0.release_fn() {
            // SAFETY: we own this struct (moved out of its producer's capsule or stream)
            // and release it exactly once, as the C data interface requires.
            unsafe { release(&mut self.0) }
        }
    }
}

/// An imported array, owned, with the layout its schema gave.
pub struct OwnedArray {
    raw: Owned<ArrowArray>,
    layout: Layout,
}

type OwnedSchema = Owned<ArrowSchema>;

impl Owned<ArrowSchema> {
    fn layout(&self) -> PyResult<Layout> {
        if self.0.format.is_null() {
            return Err(PyValueError::new_err("Arrow schema without a format"));
        }
        // SAFETY: a valid schema's format is a NUL-terminated string it owns.
        let format = unsafe { CStr::from_ptr(self.0.format) };
        if !self.0.dictionary.is_null() {
            return Err(PyTypeError::new_err(
                "hash_array: dictionary-encoded arrays are not supported; decode them first",
            ));
        }
        Layout::of(format).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "hash_array needs a binary, large binary, binary view, string, large string \
                 or string view array; got Arrow format '{}'",
                format.to_string_lossy()
            ))
        })
    }
}

/// The pointer a capsule named `name` holds.
fn capsule_pointer(capsule: &Bound<'_, PyAny>, name: &CStr) -> PyResult<*mut c_void> {
    // SAFETY: the GIL is held; PyCapsule_GetPointer checks the type and the name and sets
    // an exception (returning NULL) on a mismatch.
    let p = unsafe { ffi::PyCapsule_GetPointer(capsule.as_ptr(), name.as_ptr()) };
    if p.is_null() {
        return Err(PyErr::fetch(capsule.py()));
    }
    Ok(p)
}

/// Moves the struct out of a capsule of the PyCapsule protocol, marking the capsule's
/// copy released: how the protocol hands over ownership.
fn take<T: Released>(capsule: &Bound<'_, PyAny>) -> PyResult<Owned<T>> {
    let p = capsule_pointer(capsule, T::CAPSULE)? as *mut T;
    // SAFETY: a capsule of this name holds a valid T (the protocol's contract); we read it
    // out and clear `release` in place, so only our copy will be released.
    unsafe {
        if (*p).release_fn().is_none() {
            return Err(PyValueError::new_err(format!(
                "{} capsule already consumed",
                T::CAPSULE.to_string_lossy()
            )));
        }
        let owned = ptr::read(p);
        (*p).mark_released();
        Ok(Owned(owned))
    }
}

/// Every chunk of an object exporting `__arrow_c_array__` (one) or `__arrow_c_stream__`
/// (pyarrow ChunkedArray, polars Series, ...), owned.
pub fn import(obj: &Bound<'_, PyAny>) -> PyResult<Vec<OwnedArray>> {
    if obj.hasattr("__arrow_c_array__")? {
        let pair = obj.call_method0("__arrow_c_array__")?;
        let pair = pair.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err("__arrow_c_array__ must return a (schema, array) tuple")
        })?;
        let schema: OwnedSchema = take(&pair.get_item(0)?)?;
        let layout = schema.layout()?;
        let a = OwnedArray {
            raw: take(&pair.get_item(1)?)?,
            layout,
        };
        a.check()?;
        return Ok(vec![a]);
    }
    if obj.hasattr("__arrow_c_stream__")? {
        let capsule = obj.call_method0("__arrow_c_stream__")?;
        let stream: Stream = take(&capsule)?;
        return stream.read_all();
    }
    Err(PyTypeError::new_err(format!(
        "hash_array needs an Arrow array (an object with __arrow_c_array__ or \
         __arrow_c_stream__: pyarrow, polars, arro3, nanoarrow), not '{}'",
        crate::buffer::type_name(obj)
    )))
}

/// An owned stream.
type Stream = Owned<ArrowArrayStream>;

impl Owned<ArrowArrayStream> {
    fn error(&mut self, what: &str, code: c_int) -> PyErr {
        let msg = self
            .0
            .get_last_error
            // SAFETY: the stream is live; the message (if any) is valid until the next call.
            .map(|f| unsafe { f(&mut self.0) })
            .filter(|p| !p.is_null())
            // SAFETY: non-NULL: a NUL-terminated string owned by the stream.
            .map(|p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
            .unwrap_or_default();
        PyValueError::new_err(format!("Arrow stream {what} failed ({code}): {msg}"))
    }

    fn read_all(mut self) -> PyResult<Vec<OwnedArray>> {
        let (Some(get_schema), Some(get_next)) = (self.0.get_schema, self.0.get_next) else {
            return Err(PyValueError::new_err("Arrow stream without callbacks"));
        };
        // SAFETY: all-zero is a valid "released" ArrowSchema/ArrowArray (NULL pointers,
        // no release callback) for the producer to fill.
        let mut schema: ArrowSchema = unsafe { std::mem::zeroed() };
        // SAFETY: a live stream fills `schema` on success (returning 0).
        let rc = unsafe { get_schema(&mut self.0, &mut schema) };
        if rc != 0 {
            return Err(self.error("get_schema", rc));
        }
        let layout = Owned(schema).layout()?;
        let mut out = Vec::new();
        loop {
            // SAFETY: as above.
            let mut raw: ArrowArray = unsafe { std::mem::zeroed() };
            // SAFETY: a live stream fills `raw` on success; a released one marks the end.
            let rc = unsafe { get_next(&mut self.0, &mut raw) };
            if rc != 0 {
                return Err(self.error("get_next", rc));
            }
            if raw.release.is_none() {
                return Ok(out);
            }
            let a = OwnedArray {
                raw: Owned(raw),
                layout,
            };
            a.check()?;
            out.push(a);
        }
    }
}

impl OwnedArray {
    /// The shape checks that make reading it safe: lengths, buffer counts.
    fn check(&self) -> PyResult<()> {
        let a = &self.raw.0;
        let bad = |why: &str| {
            Err(PyValueError::new_err(format!(
                "malformed Arrow array: {why}"
            )))
        };
        if a.length < 0 || a.offset < 0 {
            return bad("negative length or offset");
        }
        // validity, offsets or views, data; a view array's last buffer is the data
        // buffers' sizes, so it has at least three too.
        if a.n_buffers < 3 || a.buffers.is_null() {
            return bad("too few buffers");
        }
        if a.length > 0 && self.buffer(1).is_null() {
            return bad("missing offsets or views");
        }
        Ok(())
    }

    fn buffer(&self, i: usize) -> *const c_void {
        // SAFETY: `check` verified `buffers` holds n_buffers pointers; callers stay below.
        unsafe { *self.raw.0.buffers.add(i) }
    }

    /// Rows in this chunk.
    pub fn len(&self) -> usize {
        self.raw.0.length as usize
    }

    /// Calls `each` with every row: its bytes, or `None` for a null.
    pub fn rows<'a>(&'a self, mut each: impl FnMut(Option<&'a [u8]>)) -> PyResult<()> {
        let n = self.len();
        let off = self.raw.0.offset as usize;
        let validity = self.buffer(0) as *const u8;
        let valid = |i: usize| -> bool {
            if validity.is_null() || self.raw.0.null_count == 0 {
                return true;
            }
            let j = off + i;
            // SAFETY: a validity bitmap covers offset + length bits.
            unsafe { *validity.add(j / 8) >> (j % 8) & 1 == 1 }
        };
        match self.layout {
            Layout::Small | Layout::Large => {
                let data = self.buffer(2) as *const u8;
                let at = |i: usize| -> i64 {
                    // SAFETY: an offsets buffer holds offset + length + 1 entries.
                    unsafe {
                        if self.layout == Layout::Small {
                            i64::from(*(self.buffer(1) as *const i32).add(off + i))
                        } else {
                            *(self.buffer(1) as *const i64).add(off + i)
                        }
                    }
                };
                let mut start = if n > 0 { at(0) } else { 0 };
                for i in 0..n {
                    let end = at(i + 1);
                    if end < start || start < 0 {
                        return Err(PyValueError::new_err(
                            "malformed Arrow array: offsets decrease",
                        ));
                    }
                    if !valid(i) {
                        each(None);
                    } else if end == start {
                        each(Some(&[]));
                    } else {
                        // SAFETY: a valid array's data buffer holds bytes up to its last
                        // offset; start..end is within it.
                        each(Some(unsafe {
                            std::slice::from_raw_parts(
                                data.add(start as usize),
                                (end - start) as usize,
                            )
                        }));
                    }
                    start = end;
                }
            }
            Layout::View => {
                let views = self.buffer(1) as *const u8;
                let n_data = (self.raw.0.n_buffers - 3).max(0) as usize;
                // SAFETY: the last buffer of a view array holds the data buffers' sizes.
                let sizes = self.buffer(2 + n_data) as *const i64;
                for i in 0..n {
                    if !valid(i) {
                        each(None);
                        continue;
                    }
                    // SAFETY: the views buffer holds 16 bytes per row from the offset on.
                    let v = unsafe { std::slice::from_raw_parts(views.add((off + i) * 16), 16) };
                    let len = u32::from_le_bytes(v[0..4].try_into().unwrap()) as usize;
                    if len <= 12 {
                        each(Some(&v[4..4 + len]));
                        continue;
                    }
                    let buf = u32::from_le_bytes(v[8..12].try_into().unwrap()) as usize;
                    let start = u32::from_le_bytes(v[12..16].try_into().unwrap()) as usize;
                    // SAFETY: `sizes` holds n_data entries.
                    if buf >= n_data || start + len > unsafe { *sizes.add(buf) } as usize {
                        return Err(PyValueError::new_err(
                            "malformed Arrow array: a view points outside its buffer",
                        ));
                    }
                    let data = self.buffer(2 + buf) as *const u8;
                    // SAFETY: checked just above against the buffer's size.
                    each(Some(unsafe {
                        std::slice::from_raw_parts(data.add(start), len)
                    }));
                }
            }
        }
        Ok(())
    }
}

// SAFETY: the imported arrays are plain memory that their producer keeps alive and
// unchanged until released; we only read it (from the hashing threads) and release it
// with the GIL held, on the thread that imported it.
unsafe impl Send for OwnedArray {}
// SAFETY: shared access only reads.
unsafe impl Sync for OwnedArray {}

/// The buffers of an array we export: validity, then offsets (strings) or nothing, then
/// values.
pub struct OutBuffers {
    pub format: CString,
    pub len: usize,
    pub null_count: usize,
    pub validity: Option<Vec<u8>>,
    pub offsets: Option<Offsets>,
    pub values: Vec<u8>,
}

/// String offsets, 32-bit while they fit.
pub enum Offsets {
    Small(Vec<i32>),
    Large(Vec<i64>),
}

/// What an exported array's `private_data` owns.
struct Private {
    _data: Arc<OutBuffers>,
    buffers: Vec<*const c_void>,
}

unsafe extern "C" fn release_array(a: *mut ArrowArray) {
    // SAFETY: called once by the consumer on an array we exported, whose private_data is
    // a Box<Private> from `export_array`.
    unsafe {
        drop(Box::from_raw((*a).private_data as *mut Private));
        (*a).release = None;
    }
}

unsafe extern "C" fn release_schema(s: *mut ArrowSchema) {
    // SAFETY: called once by the consumer on a schema we exported, whose private_data is
    // the Box<CString> of its format.
    unsafe {
        drop(Box::from_raw((*s).private_data as *mut CString));
        (*s).release = None;
    }
}

/// A capsule's destructor: release what the consumer did not take, then free the struct.
unsafe extern "C" fn drop_capsule<T: Released>(capsule: *mut ffi::PyObject) {
    // SAFETY: the capsule was made by `export` from a Box<T> under T's name.
    unsafe {
        let p = ffi::PyCapsule_GetPointer(capsule, T::CAPSULE.as_ptr()) as *mut T;
        if p.is_null() {
            ffi::PyErr_Clear();
            return;
        }
        if let Some(release) = (*p).release_fn() {
            release(p);
        }
        drop(Box::from_raw(p));
    }
}

/// `(schema capsule, array capsule)` for `data`, sharing its buffers (no copy).
pub fn export<'py>(py: Python<'py>, data: &Arc<OutBuffers>) -> PyResult<Bound<'py, PyTuple>> {
    let format = Box::new(data.format.clone());
    let schema = Box::new(ArrowSchema {
        format: format.as_ptr(),
        name: ptr::null(),
        metadata: ptr::null(),
        flags: 2, // ARROW_FLAG_NULLABLE
        n_children: 0,
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(release_schema),
        private_data: Box::into_raw(format) as *mut c_void,
    });
    let mut buffers: Vec<*const c_void> = vec![data
        .validity
        .as_ref()
        .map_or(ptr::null(), |v| v.as_ptr() as *const c_void)];
    match &data.offsets {
        Some(Offsets::Small(o)) => buffers.push(o.as_ptr() as *const c_void),
        Some(Offsets::Large(o)) => buffers.push(o.as_ptr() as *const c_void),
        None => {}
    }
    buffers.push(data.values.as_ptr() as *const c_void);
    let mut private = Box::new(Private {
        _data: data.clone(),
        buffers,
    });
    let array = Box::new(ArrowArray {
        length: data.len as i64,
        null_count: data.null_count as i64,
        offset: 0,
        n_buffers: private.buffers.len() as i64,
        n_children: 0,
        buffers: private.buffers.as_mut_ptr(),
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: ptr::null_mut(),
    });
    let mut array = array;
    array.private_data = Box::into_raw(private) as *mut c_void;
    // SAFETY: the GIL is held; each capsule takes its Box, freed by its destructor.
    let (s, a) = unsafe {
        let s = ffi::PyCapsule_New(
            Box::into_raw(schema) as *mut c_void,
            SCHEMA_NAME.as_ptr(),
            Some(drop_capsule::<ArrowSchema>),
        );
        let s = Bound::from_owned_ptr_or_err(py, s)?;
        let a = ffi::PyCapsule_New(
            Box::into_raw(array) as *mut c_void,
            ARRAY_NAME.as_ptr(),
            Some(drop_capsule::<ArrowArray>),
        );
        let a = Bound::from_owned_ptr_or_err(py, a)?;
        (s, a)
    };
    PyTuple::new(py, [s, a])
}

// SAFETY: the raw buffer pointers in Private point into the Arc'd OutBuffers it owns,
// which nothing mutates after export.
unsafe impl Send for Private {}
