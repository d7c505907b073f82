"""Shared test helpers: the one loader for the Rust tests' vector files."""

import json
from pathlib import Path

import pytest

import bitweave

#: crates/bitweave/tests/vectors, the same files the Rust tests read.
VECTORS = Path(__file__).resolve().parents[2] / "bitweave" / "tests" / "vectors"


def _load(path):
    data = json.loads(path.read_text())
    data["file"] = path.name
    for v in data["vectors"]:
        for k in ("key", "iv", "plaintext", "ciphertext", "nsec", "npub", "ad"):
            if k in v:
                v[k] = bytes.fromhex(v[k])
    return data


def block_files():
    """Every block-cipher KAT file (schema: vectors/README.md); the pi-Cipher and sealed
    format files have their own schemas."""
    files = sorted(
        p
        for p in VECTORS.glob("*.json")
        if not p.name.startswith(("pi", "seal"))
    )
    assert files, f"no vector files in {VECTORS}"
    return [_load(p) for p in files]


def pi_files():
    """Every pi-Cipher KAT file."""
    files = sorted(VECTORS.glob("pi*.json"))
    assert files, f"no pi-Cipher vector files in {VECTORS}"
    return [_load(p) for p in files]


def usable_backends(cipher):
    """Backends of `cipher` (e.g. 'aes-128') that this CPU runs."""
    return [
        b["backend"]
        for b in bitweave.backends()
        if b["kind"] == "block" and b["cipher"] == cipher and b["available"]
    ]


def cipher_of(suite):
    """'aes-128-cbc' -> 'aes-128'; 'des-ede3-cfb8' -> 'des-ede3'."""
    return suite.rsplit("-", 1)[0]


@pytest.fixture
def rng():
    import random

    return random.Random(0xB17E)
