//! `openssl enc`'s password-based "Salted__" format: `openssl_encrypt`/`openssl_decrypt`
//! read and write the same bytes as `openssl enc -pass … [-pbkdf2]` and `bitweave enc
//! --pass …`, on the library's format and KDFs (`bitweave::salted`).

use bitweave::salted::{self, Kdf, Md, SaltRule};
use bitweave::{Direction, Suite};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

use crate::buffer::{secret_bytes, View};
use crate::crypt::Keyed;
use crate::error::{msg, to_py};

/// A run's salt, the header bytes to skip in the input and the header to write, by
/// openssl's rules ([`SaltRule`], shared with the CLI).
struct Salting {
    salt: Option<[u8; 8]>,
    /// Header bytes to skip at the start of the input.
    read: usize,
    /// Header to write before the ciphertext.
    write: Option<[u8; salted::HEADER_LEN]>,
}

impl Salting {
    fn new(
        dir: Direction,
        data: &[u8],
        salt: Option<&Bound<'_, PyAny>>,
        nosalt: bool,
    ) -> PyResult<Self> {
        if nosalt && salt.is_some() {
            return Err(msg("give salt or nosalt=True, not both"));
        }
        let given: Option<[u8; 8]> = match salt {
            Some(obj) => {
                let v = View::new(obj, "salt")?;
                Some(
                    v.as_slice()
                        .try_into()
                        .map_err(|_| msg(format!("salt must be 8 bytes, not {}", v.len())))?,
                )
            }
            None => None,
        };
        let (salt, read, write) = match SaltRule::new(nosalt, given, dir) {
            SaltRule::None => (None, 0, None),
            SaltRule::Given(s) => (Some(s), 0, None),
            SaltRule::Fresh => {
                let s = salted::random_salt().map_err(to_py)?;
                (Some(s), 0, Some(salted::header(&s)))
            }
            SaltRule::FromHeader => (
                Some(salted::read_salt(data).map_err(to_py)?),
                salted::HEADER_LEN,
                None,
            ),
        };
        Ok(Salting { salt, read, write })
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    dir: Direction,
    data: &Bound<'_, PyAny>,
    password: &Bound<'_, PyAny>,
    cipher_suite: &str,
    pbkdf2: bool,
    iter: u32,
    md: &str,
    salt: Option<&Bound<'_, PyAny>>,
    nosalt: bool,
    padding: bool,
    backend: Option<&str>,
    threads: usize,
) -> PyResult<Py<PyAny>> {
    let suite: Suite = cipher_suite.parse().map_err(to_py)?;
    let md: Md = md.parse().map_err(to_py)?;
    let kdf = if pbkdf2 {
        if iter == 0 {
            return Err(msg("iter must be at least 1"));
        }
        Kdf::Pbkdf2 { md, iter }
    } else {
        if dir == Direction::Encrypt {
            PyErr::warn(
                py,
                &py.get_type::<PyUserWarning>(),
                c"deprecated key derivation (EVP_BytesToKey) used; pbkdf2=True would be better",
                1,
            )?;
        }
        Kdf::Legacy(md)
    };
    let input = View::new(data, "data")?;
    let salting = Salting::new(dir, input.as_slice(), salt, nosalt)?;
    let iv_len = salted::iv_len(suite);
    let password = secret_bytes(password, "password")?;
    let salt = salting.salt.map_or(Vec::new(), |s| s.to_vec());
    // PBKDF2 takes milliseconds: other Python threads may run meanwhile.
    let derived =
        py.detach(|| salted::derive(kdf, &password, &salt, suite.cipher.key_len(), iv_len));
    let keyed = Keyed::with_key(suite, &derived.key, padding, 1, backend, threads)?;
    let header = salting.write.as_ref().map_or(&[][..], |h| &h[..]);
    let src = input.src().after(salting.read);
    keyed.run_src(py, dir, &derived.iv, src, header, None)
}

/// Encrypts `data` into openssl's "Salted__" format, byte for byte what `openssl enc -e
/// -CIPHER -pass … -pbkdf2 -iter ITER -md MD` writes (with `pbkdf2=False`, what it writes
/// without `-pbkdf2`: the deprecated one-iteration EVP_BytesToKey, with a warning).
///
/// `password` is a `str` (UTF-8) or bytes-like. A fresh random salt is written in the
/// 16-byte header; `salt=` (8 bytes) fixes it and, as openssl's `-S`, writes no header;
/// `nosalt=True` uses none (`-nosalt`). Unlike `openssl enc`, the defaults are PBKDF2
/// with SHA-256 and 10,000 iterations, openssl's own values under `-pbkdf2`.
#[pyfunction]
#[pyo3(signature = (data, password, cipher_suite, *, pbkdf2=true, iter=salted::DEFAULT_ITER, md="sha256", salt=None, nosalt=false, padding=true, backend=None, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn openssl_encrypt(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    password: &Bound<'_, PyAny>,
    cipher_suite: &str,
    pbkdf2: bool,
    iter: u32,
    md: &str,
    salt: Option<&Bound<'_, PyAny>>,
    nosalt: bool,
    padding: bool,
    backend: Option<&str>,
    threads: usize,
) -> PyResult<Py<PyAny>> {
    run(
        py,
        Direction::Encrypt,
        data,
        password,
        cipher_suite,
        pbkdf2,
        iter,
        md,
        salt,
        nosalt,
        padding,
        backend,
        threads,
    )
}

/// Decrypts openssl's "Salted__" format (`openssl enc -d -CIPHER -pass …`); the
/// arguments are those of `openssl_encrypt` (a fixed `salt=` means the input has no
/// header, as with openssl's `-S`). The format has no integrity check: a wrong password
/// shows as bad padding (`BitweaveError`, "bad decrypt") in ECB/CBC, as garbage otherwise.
#[pyfunction]
#[pyo3(signature = (data, password, cipher_suite, *, pbkdf2=true, iter=salted::DEFAULT_ITER, md="sha256", salt=None, nosalt=false, padding=true, backend=None, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn openssl_decrypt(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    password: &Bound<'_, PyAny>,
    cipher_suite: &str,
    pbkdf2: bool,
    iter: u32,
    md: &str,
    salt: Option<&Bound<'_, PyAny>>,
    nosalt: bool,
    padding: bool,
    backend: Option<&str>,
    threads: usize,
) -> PyResult<Py<PyAny>> {
    run(
        py,
        Direction::Decrypt,
        data,
        password,
        cipher_suite,
        pbkdf2,
        iter,
        md,
        salt,
        nosalt,
        padding,
        backend,
        threads,
    )
}
