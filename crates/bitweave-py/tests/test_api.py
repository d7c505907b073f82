"""The Python API's contract: buffers in and out, streaming, errors with the CLI's
messages, thread-count invariance, backends() and bench()."""

import array
import mmap
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

import bitweave
from bitweave import BitweaveError

K16, IV16 = bytes(range(16)), bytes(range(16, 32))


def test_round_trip_every_suite_and_interleave():
    rng = random.Random(1)
    for suite in bitweave.suites():
        cipher = suite.rsplit("-", 1)[0]
        mode = suite.rsplit("-", 1)[1]
        info = next(b for b in bitweave.backends() if b["cipher"] == cipher)
        key = bytes(rng.randrange(256) for _ in range(_key_len(cipher)))
        bs = 8 if cipher.startswith("des") else 16
        for n in ([1, 2, 3, 8] if mode in ("cbc", "cfb", "ofb") else [1]):
            iv = None if mode == "ecb" else bytes(rng.randrange(256) for _ in range(bs * n))
            for length in (0, 1, bs - 1, bs, 5 * bs + 3, 4096 + 7):
                data = bytes(rng.randrange(256) for _ in range(length))
                ct = bitweave.encrypt(suite, key, iv, data, interleave=n)
                assert bitweave.decrypt(suite, key, iv, ct, interleave=n) == data, (suite, n, length)
        assert info["kind"] == "block"


def _key_len(cipher):
    return {"aes-128": 16, "aes-192": 24, "aes-256": 32, "des": 8, "des-ede": 16,
            "des-ede3": 24, "seed": 16}[cipher]


def test_buffer_kinds_are_accepted_alike():
    data = bytes(range(256)) * 40
    want = bitweave.encrypt("aes-128-ctr", K16, IV16, data)
    with mmap.mmap(-1, len(data)) as m:
        m.write(data)
        inputs = [
            bytearray(data),
            memoryview(data),
            memoryview(bytearray(data)),
            np.frombuffer(data, dtype=np.uint8),
            np.frombuffer(data, dtype=np.uint32),  # any item type: its bytes
            array.array("B", data),
            m,
        ]
        for obj in inputs:
            assert bitweave.encrypt("aes-128-ctr", memoryview(K16), bytearray(IV16), obj) == want
    # A slice of a memoryview is a view with an offset.
    assert bitweave.encrypt("aes-128-ctr", K16, IV16, memoryview(b"xx" + data)[2:]) == want

    # `bytes` itself is read in place, a subclass of it through the buffer protocol, as
    # key, IV and data, and empty; a streaming `update` reads them the same way.
    class Sub(bytes):
        pass

    for key, iv, obj in [(K16, IV16, data), (Sub(K16), Sub(IV16), Sub(data))]:
        assert bitweave.encrypt("aes-128-ctr", key, iv, obj) == want
        s = bitweave.Encryptor("aes-128-ctr", key, iv)
        assert s.update(obj[:5]) + s.update(obj[5:]) + s.update(b"") + s.finalize() == want


def test_non_contiguous_and_non_buffers_are_refused():
    arr = np.arange(64, dtype=np.uint8)[::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        bitweave.encrypt("aes-128-ctr", K16, IV16, arr)
    with pytest.raises(TypeError, match="bytes-like"):
        bitweave.encrypt("aes-128-ctr", K16, IV16, "text")
    with pytest.raises(TypeError, match="key must be a bytes-like"):
        bitweave.encrypt("aes-128-ctr", "00" * 16, IV16, b"x")


def test_out_buffers():
    data = bytes(range(200))
    want = bitweave.encrypt("aes-128-cbc", K16, IV16, data)
    assert len(want) == 208
    # bytearray larger than needed: the count says how much is the result.
    out = bytearray(300)
    assert bitweave.encrypt("aes-128-cbc", K16, IV16, data, out=out) == 208
    assert bytes(out[:208]) == want and out[208:] == bytearray(92)
    # numpy output, memoryview slice output
    arr = np.zeros(208, dtype=np.uint8)
    assert bitweave.encrypt("aes-128-cbc", K16, IV16, data, out=arr) == 208
    assert arr.tobytes() == want
    big = bytearray(400)
    assert bitweave.encrypt("aes-128-cbc", K16, IV16, data, out=memoryview(big)[100:308]) == 208
    assert bytes(big[100:308]) == want
    # Decryption into out: needs len(data) bytes, returns the unpadded length.
    out = bytearray(208)
    assert bitweave.decrypt("aes-128-cbc", K16, IV16, want, out=out) == 200
    assert bytes(out[:200]) == data


def test_out_errors():
    data = bytes(100)
    with pytest.raises(BitweaveError, match="out has 100 bytes, but the result needs room for 112"):
        bitweave.encrypt("aes-128-cbc", K16, IV16, data, out=bytearray(100))
    with pytest.raises(TypeError, match="writable"):
        bitweave.encrypt("aes-128-cbc", K16, IV16, data, out=bytes(112))
    buf = bytearray(300)
    with pytest.raises(ValueError, match="overlaps"):
        bitweave.encrypt("aes-128-ctr", K16, IV16, memoryview(buf)[:200], out=memoryview(buf)[16:216])


def test_in_place_large_multithreaded():
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, size=3 << 20, dtype=np.uint8)
    for suite, kw in (("aes-256-ctr", {}), ("aes-128-cbc", {"padding": False}),
                      ("seed-cfb", {}), ("des-ede3-ofb", {"interleave": 4})):
        key = bytes(32 if suite.startswith("aes-256") else 24 if "ede3" in suite else 16)
        bs = 8 if suite.startswith("des") else 16
        iv = bytes(range(bs * kw.get("interleave", 1)))
        want = bitweave.encrypt(suite, key, iv, data, threads=1, **kw)
        assert bitweave.encrypt(suite, key, iv, data, threads=0, **kw) == want
        buf = data.copy()
        assert bitweave.encrypt(suite, key, iv, buf, out=buf, **kw) == len(want)
        assert buf.tobytes() == want
        assert bitweave.decrypt(suite, key, iv, buf, out=buf, **kw) == len(data)
        assert np.array_equal(buf, data)


def test_streaming_equals_one_shot_on_big_uneven_pieces():
    rng = random.Random(9)
    big = rng.randbytes(5 << 20)
    # (CFB8 runs the cipher once per byte: a smaller input keeps it quick.)
    for suite, n, data in (("aes-128-cbc", 1, big), ("aes-128-cbc", 4, big),
                           ("aes-128-ctr", 1, big), ("des-cfb8", 1, big[:100_000])):
        bs = 8 if suite.startswith("des") else 16
        key = bytes(8 if suite.startswith("des-") else 16)
        iv = bytes(bs * n)
        want = bitweave.encrypt(suite, key, iv, data, interleave=n)
        enc = bitweave.Encryptor(suite, key, iv, interleave=n)
        parts, pos = [], 0
        while pos < len(data):
            step = rng.choice([1, 15, 4096, 1 << 20, 3 << 20])
            parts.append(enc.update(data[pos : pos + step]))
            pos += step
        parts.append(enc.finalize())
        assert b"".join(parts) == want, suite
        # Decryption in uneven pieces too (padded CBC holds its last block back).
        dec = bitweave.Decryptor(suite, key, iv, interleave=n)
        parts, pos = [], 0
        while pos < len(want):
            step = rng.choice([1, 16, 17, 4096, 1 << 20])
            parts.append(dec.update(want[pos : pos + step]))
            pos += step
        parts.append(dec.finalize())
        assert b"".join(parts) == data, suite
        dec = bitweave.Decryptor(suite, key, iv, interleave=n)
        out = bytearray(len(want) + 64)
        n1 = dec.update(want, out=out)
        n2 = dec.finalize(out=memoryview(out)[n1:])
        assert bytes(out[: n1 + n2]) == data


def test_stream_lifecycle_and_properties():
    enc = bitweave.Encryptor("AES-128-CBC", K16, IV16)
    assert enc.cipher_suite == "aes-128-cbc" and enc.block_size == 16 and enc.interleave == 1
    assert enc.backend in {b["backend"] for b in bitweave.backends()}
    assert "aes-128-cbc" in repr(enc)
    enc.update(b"abc")
    enc.finalize()
    assert "finalized" in repr(enc)
    with pytest.raises(BitweaveError, match="finalize\\(\\) was already called"):
        enc.update(b"x")
    with pytest.raises(BitweaveError, match="already called"):
        enc.finalize()
    dec = bitweave.Decryptor("aes-128-cbc", K16, IV16)
    dec.update(bytes(32))
    with pytest.raises(BitweaveError, match="bad decrypt"):
        dec.finalize()


def test_keyed_cipher_equals_one_shot_on_every_suite():
    """A `Cipher` keyed once gives the one-shot result for each of many IVs and lengths,
    in both directions, into new bytes, into `out=` and through its streams."""
    rng = random.Random(3)
    for suite in bitweave.suites():
        cipher, mode = suite.rsplit("-", 1)
        key = rng.randbytes(_key_len(cipher))
        bs = 8 if cipher.startswith("des") else 16
        for n in ([1, 3] if mode in ("cbc", "cfb", "ofb") else [1]):
            c = bitweave.Cipher(suite, key, interleave=n)
            assert c.cipher_suite == suite and c.block_size == bs and c.interleave == n
            assert c.iv_size == (0 if mode == "ecb" else bs * n)
            assert c.padding == (mode in ("ecb", "cbc"))
            for length in (0, 1, bs, 5 * bs + 3, 4096 + 7):
                iv = None if mode == "ecb" else rng.randbytes(bs * n)
                data = rng.randbytes(length)
                want = bitweave.encrypt(suite, key, iv, data, interleave=n)
                ct = c.encrypt(iv, data)
                assert ct == want, (suite, n, length)
                assert c.decrypt(iv, ct) == data, (suite, n, length)
                buf = bytearray(len(ct) + bs)
                m = c.decrypt(iv, ct, out=buf)
                assert bytes(buf[:m]) == data, (suite, n, length)
                enc = c.encryptor(iv)
                assert enc.update(data[:7]) + enc.update(data[7:]) + enc.finalize() == want
                dec = c.decryptor(iv)
                assert dec.update(ct) + dec.finalize() == data, (suite, n, length)


def test_keyed_cipher_errors_and_sharing():
    c = bitweave.Cipher("aes-128-cbc", K16, padding=False, backend="soft")
    assert c.backend == "soft" and "aes-128-cbc" in repr(c) and "soft" in repr(c)
    assert c.padding is False
    with pytest.raises(BitweaveError, match="wrong IV length for aes-128-cbc: expected 16 bytes, got 8"):
        c.encrypt(IV16[:8], bytes(16))
    with pytest.raises(BitweaveError, match="aes-128-cbc needs an IV"):
        c.encrypt(None, bytes(16))
    with pytest.raises(BitweaveError, match="multiple of the block size|whole blocks|16"):
        c.encrypt(IV16, bytes(15))
    with pytest.raises(BitweaveError, match="wrong key length for aes-128: expected 16 bytes, got 15"):
        bitweave.Cipher("aes-128-cbc", K16[:15])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        bitweave.Cipher("aes-128-ecb", K16).encrypt(IV16, b"x")
    assert [str(x.message) for x in w] == ["iv not used by this cipher"]
    # One keyed object serves several threads at once (it is immutable).
    import concurrent.futures

    big = bitweave.Cipher("aes-256-ctr", bytes(32))
    ivs = [bytes([i]) * 16 for i in range(8)]
    data = bytes(range(256)) * 4096
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda iv: big.encrypt(iv, data), ivs))
    assert got == [bitweave.encrypt("aes-256-ctr", bytes(32), iv, data) for iv in ivs]


# The library's messages (crates/bitweave/src/error.rs), as the CLI prints them without its
# "error: " prefix, with Python's own hints instead of the CLI's.
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bitweave.encrypt("aes-512-cbc", K16, IV16, b""),
         "unknown cipher 'aes-512-cbc' (bitweave.suites() lists the names)"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16[:15], IV16, b""),
         "wrong key length for aes-128: expected 16 bytes, got 15"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16, IV16[:8], b""),
         "wrong IV length for aes-128-cbc: expected 16 bytes, got 8"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16, IV16, b"", interleave=2),
         "wrong IV length for aes-128-cbc with interleave 2: expected 32 bytes, got 16"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16, None, b""), "aes-128-cbc needs an IV (pass iv=)"),
        (lambda: bitweave.encrypt("aes-128-ctr", K16, IV16, b"", interleave=2),
         "interleaving applies to cbc, cfb and ofb only, not ctr"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16, IV16, b"", interleave=0),
         "interleave factor must be at least 1"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16, IV16, b"x" * 17, padding=False),
         "input length 17 is not a whole number of 16-byte blocks"),
        (lambda: bitweave.decrypt("des-cbc", K16[:8], IV16[:8], b"x" * 9),
         "input length 9 is not a whole number of 8-byte blocks"),
        (lambda: bitweave.decrypt("aes-128-cbc", K16, IV16, b""),
         "input length 0 is not a whole number of 16-byte blocks"),
        (lambda: bitweave.decrypt("aes-128-cbc", K16, IV16, bytes(16)),
         "bad decrypt: padding is invalid (wrong key or IV, or corrupted input)"),
        (lambda: bitweave.encrypt("aes-128-cbc", K16, IV16, b"", backend="nope"),
         "unknown backend 'nope' (bitweave.backends() lists the backends)"),
        (lambda: bitweave.encrypt("des-cbc", K16[:8], IV16[:8], b"", backend="aesni"),
         "backend 'aesni' does not implement des"),
        (lambda: bitweave.aead_encrypt("pi32cipher128v2", K16, bytes(15), bytes(32), b""),
         "wrong public message number (npub) length for pi32cipher128v2: expected 16 bytes, got 15"),
    ],
)
def test_errors_carry_the_cli_messages(call, message):
    with pytest.raises(BitweaveError) as e:
        call()
    assert str(e.value) == message
    assert isinstance(e.value, ValueError)


def test_bad_padding_zeroes_out_and_ecb_iv_warns():
    ct = bitweave.encrypt("aes-128-cbc", K16, IV16, bytes(100))
    out = bytearray(len(ct))
    with pytest.raises(BitweaveError, match="bad decrypt"):
        bitweave.decrypt("aes-128-cbc", bytes(16), IV16, ct, out=out)
    assert out == bytearray(len(ct)), "no partial output on error"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        bitweave.encrypt("aes-128-ecb", K16, IV16, b"x")
    assert [str(x.message) for x in w] == ["iv not used by this cipher"]


def test_aead_round_trip_tamper_and_no_smn():
    v = "pi64cipher256v2"
    key, npub, nsec = bytes(32), bytes(range(16)), bytes(range(64))
    c = bitweave.aead_encrypt(v, key, npub, nsec, b"payload", b"header")
    assert len(c) == 64 + 7 + 64
    assert bitweave.aead_decrypt(v, key, npub, c, b"header") == (b"payload", nsec)
    bad = bytearray(c)
    bad[70] ^= 1
    with pytest.raises(bitweave.AuthenticationError, match="tag mismatch"):
        bitweave.aead_decrypt(v, key, npub, bad, b"header")
    with pytest.raises(bitweave.AuthenticationError):
        bitweave.aead_decrypt(v, key, npub, c, b"other header")
    c2 = bitweave.aead_encrypt(v, key, npub, None, b"payload")
    assert len(c2) == 7 + 64
    assert bitweave.aead_decrypt(v, key, npub, c2, with_nsec=False) == (b"payload", None)
    names = [x["name"] for x in bitweave.aead_variants()]
    assert names[0] == "pi16cipher096v2" and len(names) == 6


def test_backends_listing():
    rows = bitweave.backends()
    block = [r for r in rows if r["kind"] == "block"]
    ciphers = {r["cipher"] for r in block}
    assert ciphers == {"aes-128", "aes-192", "aes-256", "des", "des-ede", "des-ede3", "seed"}
    for c in ciphers:
        defaults = [r for r in block if r["cipher"] == c and r["default"]]
        assert len(defaults) == 1 and defaults[0]["available"], c
        assert any(r["backend"] == "soft" and r["available"] for r in block if r["cipher"] == c)
    for r in rows:
        assert set(r) == {"kind", "cipher", "backend", "width", "priority", "constant_time",
                          "features", "available", "default"}
    unavailable = [r for r in block if not r["available"]]
    for r in unavailable:  # a forced backend the CPU cannot run is an error, not a fallback
        with pytest.raises(BitweaveError, match="cannot run on this CPU"):
            bitweave.encrypt(r["cipher"] + "-ecb", bytes(_key_len(r["cipher"])), None, b"",
                             backend=r["backend"])
    assert len(bitweave.suites()) == 49


def test_bench_returns_plain_rows():
    rows = bitweave.bench(["aes-128-ctr", "des-cbc"], size=4096, time_ms=2, direction="enc")
    assert [r["cipher"] for r in rows] == ["aes-128-ctr", "des-cbc"]
    for r in rows:
        assert r["direction"] == "enc" and r["bytes"] == 4096 and r["threads"] == 1
        assert r["gbps"] > 0 and r["cycles_per_byte"] > 0
    rows = bitweave.bench("seed-ctr", backend="all", size=1024, time_ms=1, threads=[1, 2])
    seed = {b["backend"] for b in bitweave.backends() if b["cipher"] == "seed" and b["available"]}
    assert {(r["backend"], r["threads"]) for r in rows} == {(b, t) for b in seed for t in (1, 2)}
    assert all(r["bytes"] >= 2 << 20 for r in rows if r["threads"] == 2)
    with pytest.raises(BitweaveError, match="unknown direction"):
        bitweave.bench("aes-128-ecb", direction="both")


def test_the_readme_python_example_runs_as_written(tmp_path, monkeypatch, capsys):
    """The first ```python block of README.md's "Python and Dask" section, run verbatim
    in a scratch directory (it writes data.bin there)."""
    readme = Path(__file__).resolve().parents[3] / "README.md"
    text = readme.read_text()
    section = text[text.index("## Python and Dask"):]
    start = section.index("```python\n") + len("```python\n")
    code = section[start:section.index("```", start)]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(readme), "exec"), {})
    out = capsys.readouterr().out
    assert "'backend'" in out and "seed-ctr" in out
