//! `bitweave._native`: the Python extension module behind the `bitweave` package.
//!
//! One module per concern: [`buffer`] (Python buffers as byte views), [`drive`] (a crypter
//! from a view into a view), [`crypt`] (raw encrypt/decrypt and streams), [`openssl`]
//! (openssl enc's password files), [`aead`]
//! (π-Cipher), [`seal`] (sealed files), [`info`] (backends, suites, bench), [`error`] (exceptions).

use pyo3::prelude::*;

mod aead;
mod buffer;
mod crypt;
mod drive;
mod error;
mod info;
mod openssl;
mod seal;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BitweaveError", py.get_type::<error::BitweaveError>())?;
    m.add(
        "AuthenticationError",
        py.get_type::<error::AuthenticationError>(),
    )?;
    m.add_function(wrap_pyfunction!(crypt::encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(crypt::decrypt, m)?)?;
    m.add_class::<crypt::KeyedCipher>()?;
    m.add_class::<crypt::Encryptor>()?;
    m.add_class::<crypt::Decryptor>()?;
    m.add_function(wrap_pyfunction!(openssl::openssl_encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(openssl::openssl_decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(aead::aead_encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(aead::aead_decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(aead::aead_variants, m)?)?;
    m.add_function(wrap_pyfunction!(seal::seal_file, m)?)?;
    m.add_function(wrap_pyfunction!(seal::open_file, m)?)?;
    m.add_function(wrap_pyfunction!(seal::seal_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(seal::open_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(seal::seal_suites, m)?)?;
    m.add_function(wrap_pyfunction!(info::suites, m)?)?;
    m.add_function(wrap_pyfunction!(info::backends, m)?)?;
    m.add_function(wrap_pyfunction!(info::bench, m)?)?;
    Ok(())
}
