//! The library's errors as Python exceptions, with the CLI's messages (without `error: `).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

create_exception!(
    _native,
    BitweaveError,
    PyValueError,
    "A bitweave operation failed: wrong key or IV length, unknown cipher or backend, bad padding, input not a whole number of blocks, ... The message is the one the `bitweave` CLI prints."
);
create_exception!(
    _native,
    AuthenticationError,
    BitweaveError,
    "An AEAD tag did not verify: wrong key, nonce or associated data, or tampered data. No plaintext is released."
);

/// Converts a library error to the matching exception, with Python's own hint where the
/// library's message needs one (it names no front end's flags or commands).
pub fn to_py(e: bitweave::Error) -> PyErr {
    let hint = match e {
        bitweave::Error::UnknownCipher(_) => " (bitweave.suites() lists the names)",
        bitweave::Error::UnknownBackend(_) => " (bitweave.backends() lists the backends)",
        bitweave::Error::MissingIv(_) => " (pass iv=)",
        _ => "",
    };
    match e {
        bitweave::Error::TagMismatch => AuthenticationError::new_err(e.to_string()),
        _ => BitweaveError::new_err(format!("{e}{hint}")),
    }
}

/// A bitweave error with a message of our own (for checks the CLI makes itself).
pub fn msg(text: impl Into<String>) -> PyErr {
    BitweaveError::new_err(text.into())
}
