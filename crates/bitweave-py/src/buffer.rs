//! Python buffers as byte views, without copying: `bytes`, `bytearray`, `memoryview`,
//! `mmap`, `array`, numpy arrays, anything with the buffer protocol and C-contiguous memory.
//!
//! The views hand raw parts ([`Src`], [`Dst`]) to GIL-free code. The Python object stays
//! alive and its buffer export stays open (so a `bytearray` cannot be resized) until the
//! view is dropped, which happens after the GIL is taken back. What Python cannot prevent
//! is another thread writing into a mutable buffer meanwhile: as with `hashlib`, the result
//! is then unspecified, so callers must not do that.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use zeroize::Zeroizing;

/// A read-only view of a buffer's bytes.
pub struct View {
    held: Held,
}

/// What keeps a [`View`]'s bytes alive and still.
enum Held {
    /// A `bytes` object, read in place: its bytes cannot change, so holding a reference is
    /// enough (pyo3's `PyBytes::as_bytes` says as much, GIL released included). The buffer
    /// protocol's export, a heap allocation and two calls, was about a third of a 16-byte
    /// streaming `update` (Intel Xeon family 6 model 167, 2026-12-06: 0.10 µs against
    /// pyca's 0.09).
    Bytes {
        _owner: Py<PyBytes>,
        ptr: *const u8,
        len: usize,
    },
    /// Anything else with the buffer protocol, exported for as long as the view lives.
    Buffer(PyUntypedBuffer),
}

/// A writable view (for `out=`).
pub struct ViewMut {
    buf: PyUntypedBuffer,
}

fn contiguous(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<PyUntypedBuffer> {
    let buf = PyUntypedBuffer::get(obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a bytes-like object (bytes, bytearray, memoryview, numpy array), not '{}'",
            obj.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        ))
    })?;
    if !buf.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{what} must be C-contiguous memory (e.g. numpy.ascontiguousarray)"
        )));
    }
    Ok(buf)
}

/// A secret given as a `str` (taken as UTF-8, as a terminal passes it) or as any
/// bytes-like object, copied into memory that is wiped on drop.
pub fn secret_bytes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Zeroizing<Vec<u8>>> {
    let bytes = match obj.cast::<PyString>() {
        Ok(s) => s.to_str()?.as_bytes().to_vec(),
        Err(_) => View::new(obj, what)?.as_slice().to_vec(),
    };
    Ok(Zeroizing::new(bytes))
}

impl View {
    /// Borrows `obj`'s bytes; `what` names the argument in error messages.
    pub fn new(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Self> {
        // Exactly `bytes`: a subclass could export other memory through the protocol.
        let held = match obj.cast_exact::<PyBytes>() {
            Ok(b) => {
                let bytes = b.as_bytes();
                Held::Bytes {
                    _owner: b.clone().unbind(),
                    ptr: bytes.as_ptr(),
                    len: bytes.len(),
                }
            }
            Err(_) => Held::Buffer(contiguous(obj, what)?),
        };
        Ok(View { held })
    }

    pub fn len(&self) -> usize {
        self.src().len
    }

    /// The bytes, while the GIL is held.
    pub fn as_slice(&self) -> &[u8] {
        let Src { ptr, len } = self.src();
        if len == 0 {
            return &[];
        }
        // SAFETY: the bytes stay alive and unchanged for as long as `self` lives (see
        // `Held`); the pointer is non-null when len > 0.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }

    /// Raw parts for GIL-free code.
    pub fn src(&self) -> Src {
        match &self.held {
            Held::Bytes { ptr, len, .. } => Src {
                ptr: *ptr,
                len: *len,
            },
            Held::Buffer(buf) => Src {
                ptr: buf.buf_ptr() as *const u8,
                len: buf.len_bytes(),
            },
        }
    }
}

impl ViewMut {
    pub fn new(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Self> {
        let buf = contiguous(obj, what)?;
        if buf.readonly() {
            return Err(PyTypeError::new_err(format!(
                "{what} must be a writable buffer (bytearray, memoryview of one, numpy array), not read-only '{}'",
                obj.get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            )));
        }
        Ok(ViewMut { buf })
    }

    pub fn len(&self) -> usize {
        self.buf.len_bytes()
    }

    pub fn dst(&self) -> Dst {
        Dst {
            ptr: self.buf.buf_ptr() as *mut u8,
            len: self.len(),
        }
    }
}

/// Input bytes for GIL-free code: a pointer and a length from an open buffer export.
#[derive(Clone, Copy)]
pub struct Src {
    ptr: *const u8,
    len: usize,
}

// SAFETY: a `Src` points into a buffer export that the holder of the `View` keeps open for
// as long as the GIL-free code runs (the view is dropped only after `detach` returns).
unsafe impl Send for Src {}

impl Src {
    pub fn from_slice(s: &[u8]) -> Self {
        Src {
            ptr: s.as_ptr(),
            len: s.len(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes from `at` on.
    pub fn after(self, at: usize) -> Src {
        assert!(at <= self.len);
        Src {
            ptr: self.ptr.wrapping_add(at),
            len: self.len - at,
        }
    }

    /// The bytes `[at, at + n)`. Borrow them only while nothing writes there (an in-place
    /// run writes behind what it has read, never into a borrowed piece).
    pub fn piece(&self, at: usize, n: usize) -> &[u8] {
        assert!(at <= self.len && n <= self.len - at);
        if n == 0 {
            return &[];
        }
        // SAFETY: in bounds of a live export (see `Send` above); non-null when n > 0.
        unsafe { std::slice::from_raw_parts(self.ptr.add(at), n) }
    }

    pub fn as_slice(&self) -> &[u8] {
        self.piece(0, self.len)
    }
}

/// Output bytes for GIL-free code.
#[derive(Clone, Copy)]
pub struct Dst {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: as for `Src`: the export (or the fresh bytes object) outlives the GIL-free code.
unsafe impl Send for Dst {}

impl Dst {
    /// A fresh, not yet shared allocation of `len` bytes.
    pub fn raw(ptr: *mut u8, len: usize) -> Self {
        Dst { ptr, len }
    }

    /// Copies `bytes` to offset `at` (memmove: the source may be the input itself).
    /// Apart buffers go through `hazmat::copy`, whose pieces avoid glibc's slow
    /// `rep movsb` case on Zen 3 (a `bytearray` and the next one allocated sit in it).
    pub fn write(&self, at: usize, bytes: &[u8]) {
        assert!(at <= self.len && bytes.len() <= self.len - at);
        let to = self.ptr.wrapping_add(at);
        if bytes.is_empty() || std::ptr::eq(bytes.as_ptr(), to) {
            return;
        }
        let (from, n) = (bytes.as_ptr() as usize, bytes.len());
        if from + n <= to as usize || to as usize + n <= from {
            // SAFETY: in bounds (checked above) of a live writable allocation that does
            // not overlap `bytes` (checked just now), and no other access to it meanwhile.
            let dst = unsafe { std::slice::from_raw_parts_mut(to, n) };
            bitweave::hazmat::copy(dst, bytes);
        } else {
            // SAFETY: in bounds (checked above) of a live writable allocation; `copy`
            // allows overlap.
            unsafe { std::ptr::copy(bytes.as_ptr(), to, n) }
        }
    }

    /// The bytes from `at` on.
    pub fn after(self, at: usize) -> Dst {
        assert!(at <= self.len);
        Dst {
            ptr: self.ptr.wrapping_add(at),
            len: self.len - at,
        }
    }

    /// The bytes `[at, at + n)`, to transform in place.
    ///
    /// # Safety
    /// The slice must be the only access to those bytes while it lives (an in-place run
    /// reads its input there before and after, never meanwhile).
    pub unsafe fn piece_mut<'a>(self, at: usize, n: usize) -> &'a mut [u8] {
        assert!(at <= self.len && n <= self.len - at);
        if n == 0 {
            return &mut [];
        }
        // SAFETY: in bounds of a live writable allocation; non-null when n > 0; the
        // caller keeps the slice exclusive (see above).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(at), n) }
    }

    /// Whether writing here may clobber input not yet read: the two ranges overlap and
    /// the output does not start at the input (in-place, `out is data`, is fine: output
    /// never runs ahead of the input read so far).
    pub fn clobbers(&self, src: &Src) -> bool {
        let (d0, d1) = (self.ptr as usize, self.ptr as usize + self.len);
        let (s0, s1) = (src.ptr as usize, src.ptr as usize + src.len);
        self.len > 0 && src.len > 0 && d0 < s1 && s0 < d1 && d0 != s0
    }
}
