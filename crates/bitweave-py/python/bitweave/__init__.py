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

Names follow OpenSSL (``aes-256-ctr``, ``des-ede3-cbc``, ``seed-ofb``); ``encrypt`` with
``interleave=1`` is byte-compatible with ``openssl enc``. Errors raise
``BitweaveError`` (a ``ValueError``) with the message the ``bitweave`` CLI prints.
"""

from ._native import (
    AuthenticationError,
    BitweaveError,
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
    suites,
)

__all__ = [
    "AuthenticationError",
    "BitweaveError",
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
    "suites",
]
