"""Every KAT vector of crates/bitweave/tests/vectors through the Python API, on every
backend this CPU runs, one-shot, streaming and into out= buffers."""

import random

import numpy as np
import pytest

import bitweave
from conftest import block_files, cipher_of, pi_files, usable_backends

BLOCK = block_files()
PI = pi_files()


@pytest.mark.parametrize("vf", BLOCK, ids=[f["file"] for f in BLOCK])
def test_block_vectors_every_backend(vf):
    suite = vf["algorithm"]
    kw = dict(padding=vf["padding"] == "pkcs7", interleave=vf["interleave"])
    backends = usable_backends(cipher_of(suite))
    assert backends, suite
    for backend in backends:
        for v in vf["vectors"]:
            iv = v["iv"] or None
            ct = bitweave.encrypt(suite, v["key"], iv, v["plaintext"], backend=backend, **kw)
            assert ct == v["ciphertext"], (vf["file"], v["id"], backend)
            pt = bitweave.decrypt(suite, v["key"], iv, v["ciphertext"], backend=backend, **kw)
            assert pt == v["plaintext"], (vf["file"], v["id"], backend)


@pytest.mark.parametrize("vf", BLOCK, ids=[f["file"] for f in BLOCK])
def test_block_vectors_streaming_and_buffers(vf):
    suite = vf["algorithm"]
    kw = dict(padding=vf["padding"] == "pkcs7", interleave=vf["interleave"])
    rng = random.Random(vf["file"])
    for v in vf["vectors"]:
        iv = v["iv"] or None
        # Streaming with random splits equals the one-shot result.
        for cls, src, want in (
            (bitweave.Encryptor, v["plaintext"], v["ciphertext"]),
            (bitweave.Decryptor, v["ciphertext"], v["plaintext"]),
        ):
            s = cls(suite, v["key"], iv, **kw)
            got, pos = b"", 0
            while pos < len(src):
                n = rng.randint(0, 40)
                got += s.update(memoryview(src)[pos : pos + n])
                pos += n
            got += s.finalize()
            assert got == want, (vf["file"], v["id"], cls.__name__)
        # numpy input, and a preallocated bytearray output.
        arr = np.frombuffer(v["plaintext"], dtype=np.uint8)
        out = bytearray(len(v["plaintext"]) + 16)
        n = bitweave.encrypt(suite, v["key"], iv, arr, out=out, **kw)
        assert bytes(out[:n]) == v["ciphertext"]
        # In place: a bytearray holding the ciphertext becomes the plaintext.
        buf = bytearray(v["ciphertext"])
        n = bitweave.decrypt(suite, v["key"], iv, buf, out=buf, **kw)
        assert bytes(buf[:n]) == v["plaintext"]


@pytest.mark.parametrize("vf", PI, ids=[f["file"] for f in PI])
def test_pi_cipher_vectors_every_backend(vf):
    variant = vf["algorithm"]
    backends = [
        b["backend"]
        for b in bitweave.backends()
        if b["kind"] == "aead" and b["available"]
    ]
    assert "ref" in backends
    for backend in backends:
        for v in vf["vectors"]:
            c = bitweave.aead_encrypt(
                variant, v["key"], v["npub"], v["nsec"], v["plaintext"], v["ad"], backend=backend
            )
            assert c == v["ciphertext"], (variant, v["id"], backend)
            pt, nsec = bitweave.aead_decrypt(
                variant, v["key"], v["npub"], bytearray(c), v["ad"], backend=backend
            )
            assert (pt, nsec) == (v["plaintext"], v["nsec"]), (variant, v["id"], backend)
