"""Differential tests against pyca/cryptography (OpenSSL underneath): random keys, IVs
and lengths, for every cipher and mode it has. Catches what fixed vectors miss."""

import random
import warnings

import pytest

import bitweave
from conftest import usable_backends

crypto = pytest.importorskip("cryptography")
from cryptography.hazmat.primitives import padding as pkcs7  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

try:  # cryptography >= 43 keeps the legacy ciphers and CFB8 in "decrepit"
    from cryptography.hazmat.decrepit.ciphers import algorithms as legacy
except ImportError:  # pragma: no cover - older cryptography
    legacy = algorithms
try:  # ... and moves CFB, CFB8 and OFB there too
    from cryptography.hazmat.decrepit.ciphers import modes as legacy_modes
except ImportError:  # pragma: no cover
    legacy_modes = modes


def _algorithm(cipher, key):
    if cipher.startswith("aes"):
        return algorithms.AES(key)
    if cipher == "seed":
        return legacy.SEED(key)
    # 3DES in cryptography: K1||K2||K3; single DES is K||K||K, 2-key EDE is K1||K2||K1.
    full = {"des": key * 3, "des-ede": key + key[:8], "des-ede3": key}[cipher]
    return legacy.TripleDES(full)


MODES = {
    "ecb": lambda iv: modes.ECB(),
    "cbc": modes.CBC,
    "cfb": legacy_modes.CFB,
    "cfb8": legacy_modes.CFB8,
    "ofb": legacy_modes.OFB,
    "ctr": modes.CTR,
}
KEYS = {"aes-128": 16, "aes-192": 24, "aes-256": 32, "des": 8, "des-ede": 16, "des-ede3": 24, "seed": 16}


def _reference(cipher, mode, key, iv, data, pad, encrypt):
    c = Cipher(_algorithm(cipher, key), MODES[mode](iv))
    bs = 8 if cipher.startswith("des") else 16
    if encrypt:
        if pad:
            p = pkcs7.PKCS7(bs * 8).padder()
            data = p.update(data) + p.finalize()
        e = c.encryptor()
        return e.update(data) + e.finalize()
    d = c.decryptor()
    out = d.update(data) + d.finalize()
    if pad:
        u = pkcs7.PKCS7(bs * 8).unpadder()
        out = u.update(out) + u.finalize()
    return out


def _supported(cipher, mode):
    """Whether this cryptography/OpenSSL build runs the combination."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bs = 8 if cipher.startswith("des") else 16
            _reference(cipher, mode, bytes(KEYS[cipher]), bytes(bs), bytes(bs), False, True)
        return True
    except Exception:  # UnsupportedAlgorithm, or a mode the cipher lacks (CTR for DES)
        return False


CASES = [
    (c, m)
    for c in KEYS
    for m in MODES
    if not (m == "ctr" and not c.startswith("aes"))  # DES/SEED CTR: not in OpenSSL
]


@pytest.mark.parametrize("cipher, mode", CASES, ids=[f"{c}-{m}" for c, m in CASES])
def test_against_pyca_cryptography(cipher, mode):
    if not _supported(cipher, mode):
        pytest.skip(f"{cipher}-{mode} not in this cryptography/OpenSSL build")
    rng = random.Random(f"{cipher}-{mode}")
    bs = 8 if cipher.startswith("des") else 16
    suite = f"{cipher}-{mode}"
    backends = usable_backends(cipher)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(24):
            key = rng.randbytes(KEYS[cipher])
            iv = rng.randbytes(bs)
            pad = mode in ("ecb", "cbc") and i % 2 == 0
            # (CFB8 calls the cipher once per byte: it gets the short lengths only.)
            longest = 300 if mode == "cfb8" else 70_000
            n = rng.choice([0, 1, bs - 1, bs, 2 * bs + 1, rng.randrange(4000) % longest, longest])
            if mode in ("ecb", "cbc") and not pad:
                n -= n % bs
            data = rng.randbytes(n)
            backend = backends[i % len(backends)]
            want = _reference(cipher, mode, key, iv, data, pad, True)
            got = bitweave.encrypt(suite, key, None if mode == "ecb" else iv, data,
                                   padding=pad, backend=backend)
            assert got == want, (suite, backend, n, pad)
            back = bitweave.decrypt(suite, key, None if mode == "ecb" else iv, want,
                                    padding=pad, backend=backend)
            assert back == data, (suite, backend, n, pad)


STREAM_CASES = [(c, m) for (c, m) in CASES if m in ("ctr", "cfb", "ofb", "cfb8")]


@pytest.mark.parametrize("cipher, mode", STREAM_CASES, ids=[f"{c}-{m}" for c, m in STREAM_CASES])
def test_stream_modes_return_what_pyca_returns_at_every_call(cipher, mode):
    """A stream mode's update() returns as many bytes as it takes, call by call, as
    pyca/cryptography's does: a 15-byte message is encrypted when it is given, not held
    back for the next call. Both directions, random splits."""
    if not _supported(cipher, mode):
        pytest.skip(f"{cipher}-{mode} not in this cryptography/OpenSSL build")
    rng = random.Random(f"stream-{cipher}-{mode}")
    bs = 8 if cipher.startswith("des") else 16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(6):
            key, iv = rng.randbytes(KEYS[cipher]), rng.randbytes(bs)
            pieces = [rng.randbytes(rng.choice([0, 1, 3, bs - 1, bs, bs + 5, 100]))
                      for _ in range(rng.randrange(1, 9))]
            ref = Cipher(_algorithm(cipher, key), MODES[mode](iv))
            for ours, theirs in [
                (bitweave.Encryptor(f"{cipher}-{mode}", key, iv), ref.encryptor()),
                (bitweave.Decryptor(f"{cipher}-{mode}", key, iv), ref.decryptor()),
            ]:
                for p in pieces:
                    got, want = ours.update(p), theirs.update(p)
                    assert (len(got), got) == (len(want), want), (cipher, mode, len(p))
                assert ours.finalize() == theirs.finalize() == b""
