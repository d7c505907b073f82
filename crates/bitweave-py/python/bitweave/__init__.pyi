"""Type stubs for bitweave (the native module ``bitweave._native`` re-exported)."""

import os
import sys
from typing import Literal, Optional, Sequence, TypedDict, Union, overload

if sys.version_info >= (3, 12):
    from collections.abc import Buffer
else:
    from typing_extensions import Buffer

__version__: str

#: Anything with the buffer protocol and C-contiguous memory: bytes, bytearray,
#: memoryview, mmap, array.array, numpy arrays.
BytesLike = Buffer
StrPath = Union[str, "os.PathLike[str]"]

class BitweaveError(ValueError):
    """A bitweave operation failed; the message is the one the CLI prints."""

class AuthenticationError(BitweaveError):
    """A tag or MAC did not verify; nothing was released."""

@overload
def encrypt(
    cipher_suite: str,
    key: BytesLike,
    iv: Optional[BytesLike],
    data: BytesLike,
    *,
    padding: bool = True,
    interleave: int = 1,
    backend: Optional[str] = None,
    threads: int = 0,
    out: None = None,
) -> bytes: ...
@overload
def encrypt(
    cipher_suite: str,
    key: BytesLike,
    iv: Optional[BytesLike],
    data: BytesLike,
    *,
    padding: bool = True,
    interleave: int = 1,
    backend: Optional[str] = None,
    threads: int = 0,
    out: BytesLike,
) -> int: ...
@overload
def decrypt(
    cipher_suite: str,
    key: BytesLike,
    iv: Optional[BytesLike],
    data: BytesLike,
    *,
    padding: bool = True,
    interleave: int = 1,
    backend: Optional[str] = None,
    threads: int = 0,
    out: None = None,
) -> bytes: ...
@overload
def decrypt(
    cipher_suite: str,
    key: BytesLike,
    iv: Optional[BytesLike],
    data: BytesLike,
    *,
    padding: bool = True,
    interleave: int = 1,
    backend: Optional[str] = None,
    threads: int = 0,
    out: BytesLike,
) -> int: ...

class _Stream:
    def __init__(
        self,
        cipher_suite: str,
        key: BytesLike,
        iv: Optional[BytesLike] = None,
        *,
        padding: bool = True,
        interleave: int = 1,
        backend: Optional[str] = None,
        threads: int = 0,
    ) -> None: ...
    @overload
    def update(self, data: BytesLike, *, out: None = None) -> bytes: ...
    @overload
    def update(self, data: BytesLike, *, out: BytesLike) -> int: ...
    @overload
    def finalize(self, *, out: None = None) -> bytes: ...
    @overload
    def finalize(self, *, out: BytesLike) -> int: ...
    @property
    def cipher_suite(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def block_size(self) -> int: ...
    @property
    def interleave(self) -> int: ...

class Cipher:
    """A suite keyed once (key schedule and backend choice) for many runs; thread-safe."""

    def __init__(
        self,
        cipher_suite: str,
        key: BytesLike,
        *,
        padding: bool = True,
        interleave: int = 1,
        backend: Optional[str] = None,
        threads: int = 0,
    ) -> None: ...
    @overload
    def encrypt(self, iv: Optional[BytesLike], data: BytesLike, *, out: None = None) -> bytes: ...
    @overload
    def encrypt(self, iv: Optional[BytesLike], data: BytesLike, *, out: BytesLike) -> int: ...
    @overload
    def decrypt(self, iv: Optional[BytesLike], data: BytesLike, *, out: None = None) -> bytes: ...
    @overload
    def decrypt(self, iv: Optional[BytesLike], data: BytesLike, *, out: BytesLike) -> int: ...
    def encryptor(self, iv: Optional[BytesLike] = None) -> "Encryptor": ...
    def decryptor(self, iv: Optional[BytesLike] = None) -> "Decryptor": ...
    @property
    def cipher_suite(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def block_size(self) -> int: ...
    @property
    def iv_size(self) -> int: ...
    @property
    def interleave(self) -> int: ...
    @property
    def padding(self) -> bool: ...

class Encryptor(_Stream):
    """Incremental encryption: update() any split, then finalize()."""

class Decryptor(_Stream):
    """Incremental decryption: update() any split, then finalize() (checks padding)."""

def openssl_encrypt(
    data: BytesLike,
    password: Union[str, BytesLike],
    cipher_suite: str,
    *,
    pbkdf2: bool = True,
    iter: int = 10000,
    md: Literal["md5", "sha1", "sha256", "sha512"] = "sha256",
    salt: Optional[BytesLike] = None,
    nosalt: bool = False,
    padding: bool = True,
    backend: Optional[str] = None,
    threads: int = 0,
) -> bytes: ...
def openssl_decrypt(
    data: BytesLike,
    password: Union[str, BytesLike],
    cipher_suite: str,
    *,
    pbkdf2: bool = True,
    iter: int = 10000,
    md: Literal["md5", "sha1", "sha256", "sha512"] = "sha256",
    salt: Optional[BytesLike] = None,
    nosalt: bool = False,
    padding: bool = True,
    backend: Optional[str] = None,
    threads: int = 0,
) -> bytes: ...
def aead_encrypt(
    variant: str,
    key: BytesLike,
    npub: BytesLike,
    nsec: Optional[BytesLike],
    data: BytesLike,
    ad: Optional[BytesLike] = None,
    *,
    backend: Optional[str] = None,
) -> bytes: ...
def aead_decrypt(
    variant: str,
    key: BytesLike,
    npub: BytesLike,
    data: BytesLike,
    ad: Optional[BytesLike] = None,
    *,
    with_nsec: bool = True,
    backend: Optional[str] = None,
) -> tuple[bytes, Optional[bytes]]: ...

class AeadVariant(TypedDict):
    name: str
    word_bits: int
    key_len: int
    npub_len: int
    nsec_len: int
    tag_len: int

def aead_variants() -> list[AeadVariant]: ...
def seal_file(
    src: StrPath,
    dst: StrPath,
    *,
    key: Optional[BytesLike] = None,
    passphrase: Union[str, bytes, None] = None,
    suite: Optional[str] = None,
    chunk_size: int = 1 << 20,
    kdf_memory: int = 65536,
    kdf_passes: int = 3,
    kdf_lanes: int = 4,
    threads: int = 0,
) -> int: ...
def open_file(
    src: StrPath,
    dst: StrPath,
    *,
    key: Optional[BytesLike] = None,
    passphrase: Union[str, bytes, None] = None,
    threads: int = 0,
) -> int: ...
def seal_bytes(
    data: BytesLike,
    *,
    key: Optional[BytesLike] = None,
    passphrase: Union[str, bytes, None] = None,
    suite: Optional[str] = None,
    chunk_size: int = 1 << 20,
    kdf_memory: int = 65536,
    kdf_passes: int = 3,
    kdf_lanes: int = 4,
    threads: int = 0,
) -> bytes: ...
def open_bytes(
    data: BytesLike,
    *,
    key: Optional[BytesLike] = None,
    passphrase: Union[str, bytes, None] = None,
    threads: int = 0,
) -> bytes: ...
def seal_suites() -> list[str]: ...
def suites() -> list[str]: ...

class Backend(TypedDict):
    kind: Literal["block", "aead"]
    cipher: str
    backend: str
    width: int
    priority: int
    constant_time: bool
    features: list[str]
    available: bool
    default: bool

def backends() -> list[Backend]: ...

class BenchRow(TypedDict):
    cipher: str
    direction: Literal["enc", "dec"]
    backend: str
    threads: int
    interleave: int
    bytes: int
    gbps: float
    cycles_per_byte: float
    constant_time: bool

def bench(
    ciphers: Union[str, Sequence[str], None] = None,
    *,
    backend: Optional[str] = None,
    size: int = 16384,
    interleave: int = 1,
    threads: Sequence[int] = (1,),
    direction: Optional[Literal["enc", "dec"]] = None,
    time_ms: int = 25,
) -> list[BenchRow]: ...
