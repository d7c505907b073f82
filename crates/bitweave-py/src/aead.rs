//! π-Cipher v2 authenticated encryption (SUPERCOP's `E(nsec) || C || T`), as
//! `bitweave aead-enc`/`aead-dec` run it.

use bitweave::aead::{Ciphertext, Message, PiCipher, PiVariant};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::View;
use crate::error::to_py;

fn keyed(variant: &str, key: &Bound<'_, PyAny>, backend: Option<&str>) -> PyResult<PiCipher> {
    let v: PiVariant = variant.parse().map_err(to_py)?;
    PiCipher::with_backend(v, View::new(key, "key")?.as_slice(), backend).map_err(to_py)
}

/// Encrypts and authenticates `data` with π-Cipher v2.
///
/// `variant` is SUPERCOP's name (`pi16cipher096v2` ... `pi64cipher256v2`, see
/// `aead_variants()`); `npub` is the public nonce (never reuse one under a key); `nsec`
/// the secret message number, one rate block, or None for the designers' no-SMN mode
/// (output `C || T`). `ad` is authenticated but not encrypted. Returns
/// `E(nsec) || C || T`. Releases the GIL while it runs.
#[pyfunction]
#[pyo3(signature = (variant, key, npub, nsec, data, ad=None, *, backend=None))]
#[allow(clippy::too_many_arguments)]
pub fn aead_encrypt<'py>(
    py: Python<'py>,
    variant: &str,
    key: &Bound<'py, PyAny>,
    npub: &Bound<'py, PyAny>,
    nsec: Option<&Bound<'py, PyAny>>,
    data: &Bound<'py, PyAny>,
    ad: Option<&Bound<'py, PyAny>>,
    backend: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let pi = keyed(variant, key, backend)?;
    let npub = View::new(npub, "npub")?;
    let nsec = nsec.map(|n| View::new(n, "nsec")).transpose()?;
    let ad = ad.map(|a| View::new(a, "ad")).transpose()?;
    let data = View::new(data, "data")?;
    let (npub, nsec, ad, data) = (
        npub.src(),
        nsec.as_ref().map(View::src),
        ad.as_ref().map(View::src),
        data.src(),
    );
    let c = py
        .detach(move || {
            pi.encrypt_message(&Message {
                npub: npub.as_slice(),
                nsec: nsec.as_ref().map(|n| n.as_slice()),
                ad: ad.as_ref().map_or(&[][..], |a| a.as_slice()),
                plaintext: data.as_slice(),
            })
        })
        .map_err(to_py)?;
    Ok(PyBytes::new(py, &c))
}

/// Checks the tag and decrypts `data` (`E(nsec) || C || T`, or `C || T` with
/// `with_nsec=False`). Returns `(plaintext, nsec)` (`nsec` is None without an SMN). A
/// wrong key, nonce, `ad` or any tampering raises `AuthenticationError` and releases
/// nothing. Releases the GIL while it runs.
#[pyfunction]
#[pyo3(signature = (variant, key, npub, data, ad=None, *, with_nsec=true, backend=None))]
#[allow(clippy::too_many_arguments)]
pub fn aead_decrypt<'py>(
    py: Python<'py>,
    variant: &str,
    key: &Bound<'py, PyAny>,
    npub: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    ad: Option<&Bound<'py, PyAny>>,
    with_nsec: bool,
    backend: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>)> {
    let pi = keyed(variant, key, backend)?;
    let npub = View::new(npub, "npub")?;
    let ad = ad.map(|a| View::new(a, "ad")).transpose()?;
    let data = View::new(data, "data")?;
    let (npub, ad, data) = (npub.src(), ad.as_ref().map(View::src), data.src());
    let opened = py
        .detach(move || {
            pi.decrypt_message(&Ciphertext {
                npub: npub.as_slice(),
                ad: ad.as_ref().map_or(&[][..], |a| a.as_slice()),
                ciphertext: data.as_slice(),
                with_nsec,
            })
        })
        .map_err(to_py)?;
    let nsec = with_nsec.then(|| PyBytes::new(py, &opened.nsec));
    Ok((PyBytes::new(py, &opened.plaintext), nsec))
}

/// The π-Cipher variants and their sizes in bytes.
#[pyfunction]
pub fn aead_variants(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    PiVariant::ALL
        .iter()
        .map(|v| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("name", v.name())?;
            d.set_item("word_bits", v.word_bits())?;
            d.set_item("key_len", v.key_len())?;
            d.set_item("npub_len", v.npub_len())?;
            d.set_item("nsec_len", v.nsec_len())?;
            d.set_item("tag_len", v.tag_len())?;
            Ok(d)
        })
        .collect()
}
