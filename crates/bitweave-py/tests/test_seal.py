"""The sealed file format from Python: the Rust tests' seal-v1 vectors, round trips,
tampering, and files that appear only on success."""

import json
import os

import pytest

import bitweave
from bitweave import AuthenticationError, BitweaveError
from conftest import VECTORS

SEAL = json.loads((VECTORS / "seal" / "seal-v1.json").read_text())
# Cheap Argon2 costs for round trips (the format's defaults take ~0.3 s per call).
FAST_KDF = dict(kdf_memory=64, kdf_passes=1, kdf_lanes=1)


def _secret(v):
    if v["kdf"] == "raw":
        return {"key": bytes.fromhex(v["key"])}
    return {"passphrase": v["passphrase"]}


@pytest.mark.parametrize("v", SEAL, ids=[v["name"] for v in SEAL])
def test_vectors_open(v, tmp_path):
    sealed, plain = bytes.fromhex(v["sealed"]), bytes.fromhex(v["plaintext"])
    assert bitweave.open_bytes(sealed, **_secret(v)) == plain
    src, dst = tmp_path / "in.bws", tmp_path / "out"
    src.write_bytes(sealed)
    assert bitweave.open_file(src, dst, **_secret(v)) == len(plain)
    assert dst.read_bytes() == plain


@pytest.mark.parametrize("suite", bitweave.seal_suites())
def test_round_trip_every_suite(suite, tmp_path):
    data = os.urandom(3 * 1024 + 5)
    key = os.urandom(32)
    sealed = bitweave.seal_bytes(data, key=key, suite=suite, chunk_size=1024)
    assert sealed[:6] == b"BWSEAL" and len(sealed) > len(data) + 88
    assert bitweave.open_bytes(sealed, key=key) == data
    # Fresh nonce per seal: the same input seals differently.
    assert bitweave.seal_bytes(data, key=key, suite=suite, chunk_size=1024) != sealed
    src, mid, out = tmp_path / "a", tmp_path / "a.bws", tmp_path / "a.out"
    src.write_bytes(data)
    assert bitweave.seal_file(str(src), mid, passphrase="pw", suite=suite, **FAST_KDF) == len(data)
    assert bitweave.open_file(mid, out, passphrase=b"pw") == len(data)
    assert out.read_bytes() == data


@pytest.mark.parametrize("suite, tag", [(None, None), ("aes-256-gcm", 16), ("aes-256-ctr-hmac-sha256", 32)])
def test_tampering_fails_and_writes_nothing(tmp_path, suite, tag):
    key = os.urandom(32)
    sealed = bytearray(bitweave.seal_bytes(os.urandom(5000), key=key, chunk_size=1024, suite=suite))
    # 5000 bytes in 1 KiB chunks after the 88-byte header: 4 full records of 1024 + tag,
    # then 904 + tag. The default suite's tag length follows from the size.
    if tag is None:
        tag = (len(sealed) - 88 - 5000) // 5
    assert len(sealed) == 88 + 5000 + 5 * tag
    cases = {
        "flipped body byte": (lambda b: b.__setitem__(500, b[500] ^ 1), "chunk 0 failed authentication"),
        "last chunk cut off": (lambda b: b.__delitem__(slice(-(904 + tag), None)),
                               "chunk 3 is authentic but is not the last one"),
        "cut inside a chunk": (lambda b: b.__delitem__(slice(-60, None)), "chunk 4"),
        "extended": (lambda b: b.extend(b"x"), None),
        "header byte": (lambda b: b.__setitem__(40, b[40] ^ 1), "header"),
    }
    for name, (mutate, message) in cases.items():
        bad = bytearray(sealed)
        mutate(bad)
        with pytest.raises(AuthenticationError) as e:
            bitweave.open_bytes(bad, key=key)
        if message:
            assert message in str(e.value), name
        src, dst = tmp_path / "bad.bws", tmp_path / "never"
        src.write_bytes(bad)
        with pytest.raises(AuthenticationError):
            bitweave.open_file(src, dst, key=key)
        assert not dst.exists(), name
    assert sorted(os.listdir(tmp_path)) == ["bad.bws"], "no temporary file left behind"
    with pytest.raises(AuthenticationError, match="wrong passphrase or key"):
        bitweave.open_bytes(sealed, key=bytes(32))


def test_argument_errors(tmp_path):
    with pytest.raises(BitweaveError, match="not both"):
        bitweave.seal_bytes(b"x", key=bytes(32), passphrase="p")
    with pytest.raises(BitweaveError, match="a secret is needed"):
        bitweave.seal_bytes(b"x")
    with pytest.raises(BitweaveError, match="a sealing key must be 32 bytes, not 16"):
        bitweave.seal_bytes(b"x", key=bytes(16))
    with pytest.raises(BitweaveError, match="the passphrase is empty"):
        bitweave.seal_bytes(b"x", passphrase="")
    with pytest.raises(BitweaveError, match="power of two from 1K to 16M, not 1000"):
        bitweave.seal_bytes(b"x", key=bytes(32), chunk_size=1000)
    with pytest.raises(BitweaveError, match="unknown suite 'rot13'"):
        bitweave.seal_bytes(b"x", key=bytes(32), suite="rot13")
    with pytest.raises(BitweaveError, match="not a bitweave sealed file"):
        bitweave.open_bytes(b"plain text, not sealed", key=bytes(32))
    with pytest.raises(BitweaveError, match="sealed with a key file"):
        bitweave.open_bytes(bitweave.seal_bytes(b"x", key=bytes(32)), passphrase="p")
    with pytest.raises(FileNotFoundError, match="cannot read '.*missing'"):
        bitweave.seal_file(tmp_path / "missing", tmp_path / "out", key=bytes(32))
    assert not (tmp_path / "out").exists()


def test_file_outputs_follow_the_cli_rules(tmp_path):
    """Devices and FIFOs are written, not replaced; links are followed; a directory is
    refused; a failed run leaves an existing file as it was."""
    import stat
    import threading

    src = tmp_path / "plain"
    src.write_bytes(b"x" * 5000)
    sealed = tmp_path / "sealed"
    bitweave.seal_file(src, sealed, key=bytes(32))
    # /dev/null stays a character device (a rename over it would replace it, as root).
    bitweave.seal_file(src, "/dev/null", key=bytes(32))
    bitweave.open_file(sealed, "/dev/null", key=bytes(32))
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    # A FIFO's reader gets the bytes and the FIFO stays a FIFO.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    bitweave.open_file(sealed, fifo, key=bytes(32))
    reader.join(10)
    assert got == [b"x" * 5000] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    # A symlink is followed: its target is replaced, the link stays a link.
    target = tmp_path / "target"
    target.write_bytes(b"old")
    link = tmp_path / "link"
    link.symlink_to(target)
    bitweave.open_file(sealed, link, key=bytes(32))
    assert link.is_symlink() and target.read_bytes() == b"x" * 5000
    # A directory is refused like Python's open() refuses it.
    with pytest.raises(IsADirectoryError, match=f"cannot write '{tmp_path}': it is a directory"):
        bitweave.open_file(sealed, tmp_path, key=bytes(32))
    # A failed open leaves the existing output untouched.
    with pytest.raises(bitweave.AuthenticationError):
        bitweave.open_file(sealed, target, key=bytes([1]) * 32)
    assert target.read_bytes() == b"x" * 5000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link", "plain", "sealed", "target"]
