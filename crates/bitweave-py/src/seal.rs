//! The sealed file format (`bitweave::seal`, docs/SEALED-FORMAT.md) on files and bytes, as
//! `bitweave seal`/`open` run it: a 32-byte key or a passphrase (Argon2id), an output
//! file that appears only when everything sealed or authenticated (temporary file in the
//! same directory, renamed on success), the GIL released throughout.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use bitweave::output_file::{io_reason, OutputFile};

use bitweave::seal::{
    self, Argon2Params, OpenOptions, SealError, SealOptions, SealSuite, Secret, KEY_LEN,
    MAX_CHUNK_LOG2, MIN_CHUNK_LOG2,
};
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError, PyTypeError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use zeroize::Zeroizing;

use crate::buffer::{secret_bytes, View};
use crate::error::{msg, to_py, AuthenticationError};

/// The secret from `key=` (32 bytes) or `passphrase=` (str or bytes): exactly one.
fn secret(
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
) -> PyResult<Secret> {
    match (key, passphrase) {
        (Some(_), Some(_)) => Err(msg("give key= or passphrase=, not both")),
        (None, None) => Err(msg(
            "a secret is needed: key= (32 bytes) or passphrase= (str or bytes)",
        )),
        (Some(k), None) => {
            let k = View::new(k, "key")?;
            if k.len() != KEY_LEN {
                return Err(msg(format!(
                    "a sealing key must be {KEY_LEN} bytes, not {}",
                    k.len()
                )));
            }
            let mut raw = Zeroizing::new([0u8; KEY_LEN]);
            raw.copy_from_slice(k.as_slice());
            Ok(Secret::Key(raw))
        }
        (None, Some(p)) => {
            let bytes = secret_bytes(p, "passphrase").map_err(|e| {
                if p.is_instance_of::<PyString>() {
                    e
                } else {
                    PyTypeError::new_err("passphrase must be str or bytes")
                }
            })?;
            if bytes.is_empty() {
                return Err(msg("the passphrase is empty"));
            }
            Ok(Secret::Passphrase(bytes))
        }
    }
}

fn chunk_log2(size: u64) -> PyResult<u8> {
    let (lo, hi) = (1u64 << MIN_CHUNK_LOG2, 1u64 << MAX_CHUNK_LOG2);
    if !size.is_power_of_two() || !(lo..=hi).contains(&size) {
        return Err(msg(format!(
            "chunk size must be a power of two from 1K to 16M, not {size}"
        )));
    }
    Ok(size.trailing_zeros() as u8)
}

#[allow(clippy::too_many_arguments)]
fn seal_options(
    suite: Option<&str>,
    chunk_size: u64,
    kdf_memory: u32,
    kdf_passes: u32,
    kdf_lanes: u32,
    threads: usize,
) -> PyResult<SealOptions> {
    let opts = SealOptions {
        suite: match suite {
            Some(name) => name
                .parse::<SealSuite>()
                .map_err(|e| seal_err(e, None, None))?,
            None => SealSuite::preferred(),
        },
        chunk_log2: chunk_log2(chunk_size)?,
        argon2: Argon2Params {
            m_kib: kdf_memory,
            t: kdf_passes,
            p: kdf_lanes,
        },
        threads,
    };
    opts.argon2
        .validate()
        .map_err(|e| seal_err(e, None, None))?;
    Ok(opts)
}

/// A seal failure as an exception: authentication failures are `AuthenticationError`,
/// I/O failures `OSError`, the rest `BitweaveError`; messages as the CLI's.
fn seal_err(e: SealError, input: Option<&Path>, output: Option<&Path>) -> PyErr {
    let name = |p: Option<&Path>, other: &str| {
        p.map_or(other.to_string(), |p| format!("'{}'", p.display()))
    };
    match e {
        SealError::Read(io) => os_error(
            io.kind(),
            format!(
                "cannot read {}: {}",
                name(input, "the input"),
                io_reason(&io)
            ),
        ),
        SealError::Write(io) => os_error(
            io.kind(),
            format!(
                "cannot write {}: {}",
                name(output, "the output"),
                io_reason(&io)
            ),
        ),
        SealError::Cipher(e) => to_py(e),
        e @ (SealError::WrongKey
        | SealError::ChunkAuth(_)
        | SealError::CutOrAltered(_)
        | SealError::Truncated(_)
        | SealError::TruncatedTag(_)
        | SealError::TrailingData(_)) => AuthenticationError::new_err(e.to_string()),
        e => msg(e.to_string()),
    }
}

/// Runs `work` from the file `src` into `dst`, under the CLI's output rules
/// ([`OutputFile`]): a regular file appears only on success (a temporary beside it is
/// renamed over it), a symbolic link is followed, a device or FIFO is written directly,
/// a directory or socket is refused.
fn file_to_file(
    src: &Path,
    dst: &Path,
    work: impl FnOnce(BufReader<File>, &mut BufWriter<&mut File>) -> Result<u64, SealError>,
) -> PyResult<u64> {
    let input = File::open(src).map_err(|e| {
        os_error(
            e.kind(),
            format!("cannot read '{}': {}", src.display(), io_reason(&e)),
        )
    })?;
    let mut out = OutputFile::create(dst)
        .map_err(|e| os_error(e.kind(), format!("cannot write '{}': {e}", dst.display())))?;
    let n = {
        let mut w = BufWriter::with_capacity(1 << 20, out.file());
        let n = work(BufReader::with_capacity(1 << 20, input), &mut w)
            .map_err(|e| seal_err(e, Some(src), Some(dst)))?;
        w.flush()
            .map_err(|e| seal_err(SealError::Write(e), Some(src), Some(dst)))?;
        n
    };
    let what = |e: std::io::Error| {
        os_error(
            e.kind(),
            format!("cannot write '{}': {}", dst.display(), io_reason(&e)),
        )
    };
    out.finish().map_err(what)?;
    out.persist().map_err(what)?;
    Ok(n)
}

/// Seals the file `src` into `dst` (authenticated, streaming; see docs/SEALED-FORMAT.md).
///
/// The secret is `key=` (32 bytes) or `passphrase=` (str or bytes, stretched with
/// Argon2id using `kdf_memory` KiB, `kdf_passes`, `kdf_lanes`). `suite`: aes-256-gcm,
/// aes-256-ctr-hmac-sha256, pi64cipher256v2 or pi32cipher256v2 (default: the fastest here,
/// aes-256-gcm where the CPU has a carry-less multiply); `chunk_size`:
/// a power of two from 1 KiB to 16 MiB. `dst` appears only when the whole file is sealed.
/// Returns the plaintext length. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key=None, passphrase=None, suite=None, chunk_size=1<<20, kdf_memory=65536, kdf_passes=3, kdf_lanes=4, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn seal_file(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    suite: Option<&str>,
    chunk_size: u64,
    kdf_memory: u32,
    kdf_passes: u32,
    kdf_lanes: u32,
    threads: usize,
) -> PyResult<u64> {
    let opts = seal_options(
        suite, chunk_size, kdf_memory, kdf_passes, kdf_lanes, threads,
    )?;
    let secret = secret(key, passphrase)?;
    py.detach(move || file_to_file(&src, &dst, |r, w| seal::seal(r, w, &secret, &opts)))
}

/// Checks and decrypts the sealed file `src` into `dst`; `dst` appears only when every
/// chunk authenticated (`AuthenticationError` otherwise, and nothing is written). Returns
/// the plaintext length. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key=None, passphrase=None, threads=0))]
pub fn open_file(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    threads: usize,
) -> PyResult<u64> {
    let secret = secret(key, passphrase)?;
    let opts = OpenOptions { threads };
    py.detach(move || file_to_file(&src, &dst, |r, w| seal::open(r, w, &secret, &opts)))
}

/// Seals `data` in memory; the arguments are those of `seal_file`.
#[pyfunction]
#[pyo3(signature = (data, *, key=None, passphrase=None, suite=None, chunk_size=1<<20, kdf_memory=65536, kdf_passes=3, kdf_lanes=4, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn seal_bytes<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    key: Option<&Bound<'py, PyAny>>,
    passphrase: Option<&Bound<'py, PyAny>>,
    suite: Option<&str>,
    chunk_size: u64,
    kdf_memory: u32,
    kdf_passes: u32,
    kdf_lanes: u32,
    threads: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = seal_options(
        suite, chunk_size, kdf_memory, kdf_passes, kdf_lanes, threads,
    )?;
    let secret = secret(key, passphrase)?;
    let data = View::new(data, "data")?;
    let src = data.src();
    let out = py
        .detach(move || {
            let mut out = Vec::with_capacity(src.len() + src.len() / 16 + 256);
            seal::seal(src.as_slice(), &mut out, &secret, &opts).map(|_| out)
        })
        .map_err(|e| seal_err(e, None, None))?;
    Ok(PyBytes::new(py, &out))
}

/// Checks and decrypts sealed `data` in memory; raises `AuthenticationError` on any
/// tampering and releases nothing.
#[pyfunction]
#[pyo3(signature = (data, *, key=None, passphrase=None, threads=0))]
pub fn open_bytes<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    key: Option<&Bound<'py, PyAny>>,
    passphrase: Option<&Bound<'py, PyAny>>,
    threads: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let secret = secret(key, passphrase)?;
    let data = View::new(data, "data")?;
    let src = data.src();
    let out = py
        .detach(move || {
            let mut out = Zeroizing::new(Vec::with_capacity(src.len()));
            seal::open(src.as_slice(), &mut *out, &secret, &OpenOptions { threads }).map(|_| out)
        })
        .map_err(|e| seal_err(e, None, None))?;
    Ok(PyBytes::new(py, &out))
}

/// The sealed-format suites.
#[pyfunction]
pub fn seal_suites() -> Vec<&'static str> {
    SealSuite::ALL.iter().map(|s| s.name()).collect()
}

/// The `OSError` subclass Python's own file functions raise for an error of `kind` (so
/// `except FileNotFoundError` works as it does for `open`), with a message naming the path.
fn os_error(kind: std::io::ErrorKind, message: String) -> PyErr {
    match kind {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        std::io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}
