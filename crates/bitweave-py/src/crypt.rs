//! Raw encryption and decryption: one-shot `encrypt`/`decrypt` and the streaming
//! `Encryptor`/`Decryptor`, set up exactly as `bitweave enc`/`dec` set up a run.

use bitweave::{BlockCipher, Cipher, Crypter, Direction, Error, ModeParams, Suite};
use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::{Dst, Src, View, ViewMut};
use crate::drive::{self, Scratch};
use crate::error::{msg, to_py};

/// A suite keyed once: what a `bitweave.Cipher` holds, and what each one-shot call and
/// stream builds first, exactly as the CLI does from its flags. The key schedule and the
/// backend choice happen here, once; each run then needs only an IV.
pub struct Keyed {
    suite: Suite,
    params: ModeParams,
    cipher: Cipher,
}

impl Keyed {
    pub fn new(
        cipher_suite: &str,
        key: &Bound<'_, PyAny>,
        padding: bool,
        interleave: usize,
        backend: Option<&str>,
        threads: usize,
    ) -> PyResult<Self> {
        let suite: Suite = cipher_suite.parse().map_err(to_py)?;
        let key = View::new(key, "key")?;
        Self::with_key(suite, key.as_slice(), padding, interleave, backend, threads)
    }

    /// Keys `suite` with raw key bytes (e.g. derived from a password).
    pub fn with_key(
        suite: Suite,
        key: &[u8],
        padding: bool,
        interleave: usize,
        backend: Option<&str>,
        threads: usize,
    ) -> PyResult<Self> {
        let params = suite
            .params()
            .padding(suite.mode.whole_blocks() && padding)
            .interleave(interleave);
        params.validate().map_err(to_py)?;
        let cipher = Cipher::with_backend(suite.cipher, key, backend)
            .map_err(to_py)?
            .with_threads(threads);
        Ok(Keyed {
            suite,
            params,
            cipher,
        })
    }

    /// The IV argument as a borrowed view; `None` (with a warning if one was given)
    /// when the mode takes none.
    fn iv(&self, py: Python<'_>, iv: Option<&Bound<'_, PyAny>>) -> PyResult<Option<View>> {
        match iv {
            Some(obj) if !self.suite.mode.takes_iv() => {
                if View::new(obj, "iv")?.len() > 0 {
                    PyErr::warn(
                        py,
                        &py.get_type::<PyUserWarning>(),
                        c"iv not used by this cipher",
                        1,
                    )?;
                }
                Ok(None)
            }
            Some(obj) => Ok(Some(View::new(obj, "iv")?)),
            None => Ok(None),
        }
    }

    /// A crypter for one run from the IV argument.
    fn crypter(
        &self,
        py: Python<'_>,
        dir: Direction,
        iv: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Crypter> {
        let iv = self.iv(py, iv)?;
        let iv = iv.as_ref().map_or(&[][..], View::as_slice);
        self.params.crypter(&self.cipher, dir, iv).map_err(to_py)
    }

    /// Runs `data` through in one call from the IV argument: into a new `bytes`, or
    /// into `out` (returning the length written).
    fn run(
        &self,
        py: Python<'_>,
        dir: Direction,
        iv: Option<&Bound<'_, PyAny>>,
        data: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let iv = self.iv(py, iv)?;
        let iv = iv.as_ref().map_or(&[][..], View::as_slice);
        let input = View::new(data, "data")?;
        self.run_src(py, dir, iv, input.src(), &[], out)
    }

    /// Runs `src` through in one call from `iv`, the result preceded by `header`: into
    /// a new `bytes`, or into `out` (returning the length written).
    pub fn run_src(
        &self,
        py: Python<'_>,
        dir: Direction,
        iv: &[u8],
        src: Src,
        header: &[u8],
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let crypter = self.params.crypter(&self.cipher, dir, iv).map_err(to_py)?;
        let (len, bs) = (src.len(), self.cipher.block_size());
        check_len(&self.params, dir, len, bs)?;
        // Output size: exact, except padded decryption, which is shorter by the padding.
        let body = if dir == Direction::Encrypt && self.params.padding {
            (len / bs + 1) * bs
        } else {
            len
        };
        let cap = header.len() + body;
        let threads = self.cipher.threads();
        let fill = move |dst: Dst| {
            dst.write(0, header);
            let rest = dst.after(header.len());
            detach_if_large(py, len, move || drive::run_all(crypter, src, rest, threads))
                .map(|n| header.len() + n)
                .map_err(to_py)
        };
        match out {
            Some(out) => {
                let view = out_view(out, cap, &src)?;
                let n = fill(view.dst())?;
                Ok(n.into_pyobject(py)?.into_any().unbind())
            }
            None => Ok(new_bytes(py, cap, fill)?.into_any().unbind()),
        }
    }
}

/// The ECB/CBC length rules, checked before any output exists.
fn check_len(params: &ModeParams, dir: Direction, len: usize, bs: usize) -> PyResult<()> {
    let pads = params.padding && dir == Direction::Encrypt;
    let ragged = params.mode.whole_blocks() && !pads && !len.is_multiple_of(bs);
    let empty = params.padding && dir == Direction::Decrypt && len == 0;
    if ragged || empty {
        return Err(to_py(Error::NotWholeBlocks {
            len: len as u64,
            block: bs,
        }));
    }
    Ok(())
}

/// Builds a `bytes` of at most `cap` bytes in place: `fill` writes it (the GIL may be
/// released meanwhile: nobody else sees the object yet) and returns the length used.
/// On error the memory is wiped before it is freed.
pub fn new_bytes<'py>(
    py: Python<'py>,
    cap: usize,
    fill: impl FnOnce(Dst) -> PyResult<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let cap_ssize = ffi::Py_ssize_t::try_from(cap).map_err(|_| msg("result too large"))?;
    // SAFETY: the writer is created, filled within its `cap` bytes, and then either
    // finished (ownership of the new bytes object passes to `Bound`) or wiped and
    // discarded; it never escapes this function.
    unsafe {
        let w = ffi::compat::PyBytesWriter_Create(cap_ssize);
        if w.is_null() {
            return Err(PyErr::fetch(py));
        }
        let ptr = ffi::compat::PyBytesWriter_GetData(w) as *mut u8;
        match fill(Dst::raw(ptr, cap)) {
            Ok(n) => {
                debug_assert!(n <= cap);
                let obj = ffi::compat::PyBytesWriter_FinishWithSize(w, n as ffi::Py_ssize_t);
                Ok(Bound::from_owned_ptr_or_err(py, obj)?.cast_into_unchecked())
            }
            Err(e) => {
                std::ptr::write_bytes(ptr, 0, cap);
                ffi::compat::PyBytesWriter_Discard(w);
                Err(e)
            }
        }
    }
}

/// Checks an `out=` buffer against the room a result needs.
fn out_view(out: &Bound<'_, PyAny>, need: usize, src: &Src) -> PyResult<ViewMut> {
    let view = ViewMut::new(out, "out")?;
    if view.len() < need {
        return Err(msg(format!(
            "out has {} bytes, but the result needs room for {need}",
            view.len()
        )));
    }
    if view.dst().clobbers(src) {
        return Err(PyValueError::new_err(
            "out overlaps data at a different offset (for in-place work pass the same buffer as data and out)",
        ));
    }
    Ok(view)
}

/// Below this many bytes a call keeps the GIL: releasing and taking it back costs about
/// what encrypting 4 KiB with AES-NI does, and no other Python thread could do much in
/// the time anyway.
const DETACH_BYTES: usize = 4096;

/// Runs `f` with the GIL released when `len` is large enough for that to pay.
fn detach_if_large<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len < DETACH_BYTES {
        f()
    } else {
        py.detach(f)
    }
}

/// Encrypts `data` in one call.
///
/// `cipher_suite` is OpenSSL's name (`aes-128-cbc`, `des-ede3`, `seed-ofb`, ...); `iv` is
/// one block, or `interleave` blocks (None for ECB). PKCS#7 padding applies to ECB/CBC
/// when `padding` is true and is ignored by the stream modes, as in `bitweave enc`.
/// `backend` forces a backend (see `backends()`); `threads` = 0 uses all cores. The GIL
/// is released while the cipher runs on 4 KiB or more (below that, releasing it costs
/// more than the work). With `out=`, the result is written into that
/// writable buffer (which may be `data` itself, for in-place work) and its length is
/// returned; otherwise a new `bytes` is returned.
#[pyfunction]
#[pyo3(signature = (cipher_suite, key, iv, data, *, padding=true, interleave=1, backend=None, threads=0, out=None))]
#[allow(clippy::too_many_arguments)]
pub fn encrypt(
    py: Python<'_>,
    cipher_suite: &str,
    key: &Bound<'_, PyAny>,
    iv: Option<&Bound<'_, PyAny>>,
    data: &Bound<'_, PyAny>,
    padding: bool,
    interleave: usize,
    backend: Option<&str>,
    threads: usize,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    Keyed::new(cipher_suite, key, padding, interleave, backend, threads)?.run(
        py,
        Direction::Encrypt,
        iv,
        data,
        out,
    )
}

/// Decrypts `data` in one call; the arguments are those of `encrypt`.
///
/// With padding, the result is shorter than `data` by the padding; `out=` needs room for
/// `len(data)` bytes and the returned count says how many hold the plaintext. A bad
/// padding or a ragged ECB/CBC input raises `BitweaveError` and releases nothing (bytes
/// already written to `out` are zeroed).
#[pyfunction]
#[pyo3(signature = (cipher_suite, key, iv, data, *, padding=true, interleave=1, backend=None, threads=0, out=None))]
#[allow(clippy::too_many_arguments)]
pub fn decrypt(
    py: Python<'_>,
    cipher_suite: &str,
    key: &Bound<'_, PyAny>,
    iv: Option<&Bound<'_, PyAny>>,
    data: &Bound<'_, PyAny>,
    padding: bool,
    interleave: usize,
    backend: Option<&str>,
    threads: usize,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    Keyed::new(cipher_suite, key, padding, interleave, backend, threads)?.run(
        py,
        Direction::Decrypt,
        iv,
        data,
        out,
    )
}

/// The state of a streaming run, shared by `Encryptor` and `Decryptor`.
pub struct Stream {
    crypter: Option<Crypter>,
    suite: Suite,
    params: ModeParams,
    block: usize,
    backend: &'static str,
    /// Input bytes taken and output bytes given so far: their difference is what the
    /// crypter holds back (less than a row, plus a block when unpadding).
    taken: usize,
    given: usize,
    /// The crypter's output buffer for bytes it cannot transform in place, reused.
    scratch: Scratch,
}

impl Stream {
    pub fn new(
        py: Python<'_>,
        keyed: &Keyed,
        dir: Direction,
        iv: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Ok(Stream {
            crypter: Some(keyed.crypter(py, dir, iv)?),
            suite: keyed.suite,
            params: keyed.params,
            block: keyed.cipher.block_size(),
            backend: keyed.cipher.backend(),
            taken: 0,
            given: 0,
            scratch: Scratch::new(keyed.cipher.threads()),
        })
    }

    fn live(&mut self) -> PyResult<&mut Crypter> {
        self.crypter
            .as_mut()
            .ok_or_else(|| msg("finalize() was already called on this stream"))
    }

    pub fn update(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let held = self.taken - self.given;
        self.live()?;
        let input = View::new(data, "data")?;
        let src = input.src();
        let len = src.len();
        let cap = held + len;
        let Stream {
            crypter, scratch, ..
        } = self;
        let crypter = crypter.as_mut().expect("checked live");
        let run = move |dst: Dst| {
            detach_if_large(py, len, move || {
                drive::update(crypter, src, dst, held == 0, scratch)
            })
        };
        let result = match out {
            Some(out) => {
                let view = out_view(out, cap, &src)?;
                let n = run(view.dst());
                self.account(len, n);
                n.into_pyobject(py)?.into_any().unbind()
            }
            None => {
                let mut produced = 0;
                let bytes = new_bytes(py, cap, |dst| {
                    produced = run(dst);
                    Ok(produced)
                })?;
                self.account(len, produced);
                bytes.into_any().unbind()
            }
        };
        Ok(result)
    }

    fn account(&mut self, taken: usize, given: usize) {
        self.taken += taken;
        self.given += given;
    }

    pub fn finalize(
        &mut self,
        py: Python<'_>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.live()?;
        let crypter = self.crypter.take().expect("checked live");
        let cap = self.taken - self.given + self.block;
        let scratch = &mut self.scratch;
        let run = move |dst: Dst| drive::finish(crypter, dst, 0, scratch);
        match out {
            Some(out) => {
                let view = out_view(out, cap, &Src::from_slice(&[]))?;
                let n = run(view.dst()).map_err(to_py)?;
                Ok(n.into_pyobject(py)?.into_any().unbind())
            }
            None => Ok(new_bytes(py, cap, |dst| run(dst).map_err(to_py))?
                .into_any()
                .unbind()),
        }
    }

    pub fn describe(&self, kind: &str) -> String {
        let n = self.params.interleave;
        let il = if n > 1 {
            format!(", interleave={n}")
        } else {
            String::new()
        };
        let state = if self.crypter.is_some() {
            ""
        } else {
            ", finalized"
        };
        format!(
            "<bitweave.{kind} {}{il} backend={}{state}>",
            self.suite, self.backend
        )
    }

    pub fn suite_name(&self) -> String {
        self.suite.to_string()
    }
    pub fn backend(&self) -> &'static str {
        self.backend
    }
    pub fn block_size(&self) -> usize {
        self.block
    }
    pub fn interleave(&self) -> usize {
        self.params.interleave
    }
}

/// Declares a streaming class over [`Stream`] (the two differ only in direction).
macro_rules! stream_class {
    ($name:ident, $dir:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "bitweave")]
        pub struct $name(Stream);

        #[pymethods]
        impl $name {
            #[new]
            #[pyo3(signature = (cipher_suite, key, iv=None, *, padding=true, interleave=1, backend=None, threads=0))]
            #[allow(clippy::too_many_arguments)]
            fn new(
                py: Python<'_>,
                cipher_suite: &str,
                key: &Bound<'_, PyAny>,
                iv: Option<&Bound<'_, PyAny>>,
                padding: bool,
                interleave: usize,
                backend: Option<&str>,
                threads: usize,
            ) -> PyResult<Self> {
                let keyed = Keyed::new(cipher_suite, key, padding, interleave, backend, threads)?;
                Ok($name(Stream::new(py, &keyed, $dir, iv)?))
            }

            /// Processes `data`; returns the output ready so far (bytes), or with `out=`
            /// writes it there and returns its length (`out` needs room for
            /// `len(data)` plus up to one row of held-back bytes). The stream modes (CTR,
            /// CFB and OFB on one chain, CFB8, CFB1) return every byte at once, as
            /// pyca/cryptography's do; the block modes hold back what is not yet a whole
            /// block (row). Releases the GIL.
            #[pyo3(signature = (data, *, out=None))]
            fn update(
                &mut self,
                py: Python<'_>,
                data: &Bound<'_, PyAny>,
                out: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                self.0.update(py, data, out)
            }

            /// Ends the run: pads or unpads and checks the ECB/CBC length rules; returns
            /// the last output (or writes it to `out=` and returns its length). The
            /// object cannot be used afterwards.
            #[pyo3(signature = (*, out=None))]
            fn finalize(
                &mut self,
                py: Python<'_>,
                out: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                self.0.finalize(py, out)
            }

            /// The suite's canonical name, e.g. `aes-128-cbc`.
            #[getter]
            fn cipher_suite(&self) -> String {
                self.0.suite_name()
            }

            /// The backend running the cipher, e.g. `vaes512`.
            #[getter]
            fn backend(&self) -> &'static str {
                self.0.backend()
            }

            /// Block size in bytes (8 or 16).
            #[getter]
            fn block_size(&self) -> usize {
                self.0.block_size()
            }

            /// Interleave factor N.
            #[getter]
            fn interleave(&self) -> usize {
                self.0.interleave()
            }

            fn __repr__(&self) -> String {
                self.0.describe(stringify!($name))
            }
        }
    };
}

stream_class!(
    Encryptor,
    Direction::Encrypt,
    "Incremental encryption: `update()` any split of the input, then `finalize()`; the concatenated output equals `encrypt()` of the whole input."
);
stream_class!(
    Decryptor,
    Direction::Decrypt,
    "Incremental decryption: `update()` any split of the input, then `finalize()` (which checks the padding); the concatenated output equals `decrypt()` of the whole input."
);

/// A suite keyed once, for many runs.
///
/// The key schedule and the choice of backend happen when the object is made; each
/// `encrypt`/`decrypt` then costs only its IV and its data, and the object may be shared
/// between threads. Results equal the one-shot `encrypt`/`decrypt` with the same
/// arguments.
#[pyclass(module = "bitweave", name = "Cipher", frozen)]
pub struct KeyedCipher(Keyed);

#[pymethods]
impl KeyedCipher {
    #[new]
    #[pyo3(signature = (cipher_suite, key, *, padding=true, interleave=1, backend=None, threads=0))]
    fn new(
        cipher_suite: &str,
        key: &Bound<'_, PyAny>,
        padding: bool,
        interleave: usize,
        backend: Option<&str>,
        threads: usize,
    ) -> PyResult<Self> {
        Ok(KeyedCipher(Keyed::new(
            cipher_suite,
            key,
            padding,
            interleave,
            backend,
            threads,
        )?))
    }

    /// Encrypts `data` from `iv` (None for ECB): a new `bytes`, or with `out=` the result
    /// written there and its length returned, as `bitweave.encrypt`.
    #[pyo3(signature = (iv, data, *, out=None))]
    fn encrypt(
        &self,
        py: Python<'_>,
        iv: Option<&Bound<'_, PyAny>>,
        data: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.0.run(py, Direction::Encrypt, iv, data, out)
    }

    /// Decrypts `data` from `iv` (None for ECB), as `bitweave.decrypt`.
    #[pyo3(signature = (iv, data, *, out=None))]
    fn decrypt(
        &self,
        py: Python<'_>,
        iv: Option<&Bound<'_, PyAny>>,
        data: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.0.run(py, Direction::Decrypt, iv, data, out)
    }

    /// A streaming encryption from `iv` on this key.
    #[pyo3(signature = (iv=None))]
    fn encryptor(&self, py: Python<'_>, iv: Option<&Bound<'_, PyAny>>) -> PyResult<Encryptor> {
        Ok(Encryptor(Stream::new(py, &self.0, Direction::Encrypt, iv)?))
    }

    /// A streaming decryption from `iv` on this key.
    #[pyo3(signature = (iv=None))]
    fn decryptor(&self, py: Python<'_>, iv: Option<&Bound<'_, PyAny>>) -> PyResult<Decryptor> {
        Ok(Decryptor(Stream::new(py, &self.0, Direction::Decrypt, iv)?))
    }

    /// The suite's canonical name, e.g. `aes-128-cbc`.
    #[getter]
    fn cipher_suite(&self) -> String {
        self.0.suite.to_string()
    }

    /// The backend running batches of blocks, e.g. `vaes256`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.0.cipher.backend()
    }

    /// Block size in bytes (8 or 16).
    #[getter]
    fn block_size(&self) -> usize {
        self.0.cipher.block_size()
    }

    /// The IV length a run needs in bytes: interleave blocks, or 0 for ECB.
    #[getter]
    fn iv_size(&self) -> usize {
        self.0.params.iv_len(self.0.cipher.block_size())
    }

    /// Interleave factor N.
    #[getter]
    fn interleave(&self) -> usize {
        self.0.params.interleave
    }

    /// Whether ECB/CBC runs pad (PKCS#7); always false for the stream modes.
    #[getter]
    fn padding(&self) -> bool {
        self.0.params.padding
    }

    fn __repr__(&self) -> String {
        let n = self.0.params.interleave;
        let il = if n > 1 {
            format!(", interleave={n}")
        } else {
            String::new()
        };
        format!(
            "<bitweave.Cipher {}{il} backend={}>",
            self.0.suite,
            self.0.cipher.backend()
        )
    }
}
