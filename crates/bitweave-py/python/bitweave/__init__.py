"""bitweave: parallel AES, DES, 3DES and SEED in every SP 800-38A mode, and the
pi-Cipher AEAD, from Python.

The work runs in the native Rust engine with the GIL released, on the best backend this
CPU has (AES-NI/VAES, bitsliced AVX-512, GFNI, ...). Inputs may be any bytes-like object
(bytes, bytearray, memoryview, contiguous numpy arrays) and are read without copying;
``out=`` writes into a preallocated writable buffer.

    >>> import bitweave
    >>> key, iv = bytes(16), bytes(16)
    >>> ct = bitweave.encrypt("aes-128-cbc", key, iv, b"hello")
    >>> bitweave.decrypt("aes-128-cbc", key, iv, ct)
    b'hello'

A ``Cipher`` keys a suite once (key schedule and backend choice) for many runs:

    >>> c = bitweave.Cipher("aes-128-ctr", key)
    >>> c.decrypt(iv, c.encrypt(iv, b"hello"))
    b'hello'

Names follow OpenSSL (``aes-256-ctr``, ``des-ede3-cbc``, ``seed-ofb``); ``encrypt`` with
``interleave=1`` is byte-compatible with ``openssl enc``. Errors raise
``BitweaveError`` (a ``ValueError``) with the message the ``bitweave`` CLI prints;
failed authentication raises its subclass ``AuthenticationError``.

``openssl_encrypt``/``openssl_decrypt`` read and write ``openssl enc -pass``'s
password-based "Salted__" files byte for byte (PBKDF2 by default, or the legacy KDF).

Raw modes (``encrypt``/``decrypt``, ``Encryptor``/``Decryptor``) are unauthenticated;
``seal_file``/``open_file`` (the sealed file format) and ``aead_encrypt``/``aead_decrypt``
(pi-Cipher) authenticate. ``python -m bitweave.dask`` spreads bulk AES-CTR encryption
of large files or directory trees over a Dask cluster.
"""

from ._native import (
    AuthenticationError,
    BitweaveError,
    Cipher,
    Decryptor,
    Encryptor,
    __version__,
    aead_decrypt,
    aead_encrypt,
    aead_variants,
    backends,
    bench,
    decrypt,
    encrypt,
    open_bytes,
    open_file,
    openssl_decrypt,
    openssl_encrypt,
    seal_bytes,
    seal_file,
    seal_suites,
    suites,
)

__all__ = [
    "AuthenticationError",
    "BitweaveError",
    "Cipher",
    "Decryptor",
    "Encryptor",
    "__version__",
    "aead_decrypt",
    "aead_encrypt",
    "aead_variants",
    "backends",
    "bench",
    "decrypt",
    "encrypt",
    "open_bytes",
    "open_file",
    "openssl_decrypt",
    "openssl_encrypt",
    "seal_bytes",
    "seal_file",
    "seal_suites",
    "suites",
]
