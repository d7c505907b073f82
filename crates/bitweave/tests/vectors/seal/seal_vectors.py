#!/usr/bin/env python3
"""Independent implementation of docs/SEALED-FORMAT.md for the AES suites (1,
AES-256-CTR + HMAC-SHA-256, and 4, AES-256-GCM), written from the spec with Python's
`cryptography` package (Argon2id needs >= 44).

Prints the AES cases of seal-v1.json. tests/seal.rs checks that the
Rust implementation produces exactly these bytes and opens them back; the pi-Cipher cases
in that file come from the Rust code itself (no independent pi-Cipher here) and guard
against regressions.

    python3 seal_vectors.py > aes-cases.json
"""
import hashlib
import hmac
import json
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

SUITES = {"aes-256-ctr-hmac-sha256": 1, "aes-256-gcm": 4}


def body(suite, kdf, chunk_log2, m, t, p, salt, nonce):
    return (b"BWSEAL" + bytes([1, SUITES[suite], kdf, chunk_log2, 0, 0])
            + struct.pack(">III", m, t, p) + salt + nonce)


def subkey(master, nonce, label, hdr):
    info = b"bitweave-seal v1 " + label + b"\x00" + hdr
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=nonce, info=info).derive(master)


def seal(case):
    salt = bytes.fromhex(case["salt"])
    nonce = bytes.fromhex(case["nonce"])
    if case["kdf"] == "raw":
        m = t = p = 0
        master = bytes.fromhex(case["key"])
        kdf = 0
    else:
        m, t, p = case["m_kib"], case["t"], case["p"]
        master = Argon2id(salt=salt, length=32, iterations=t, lanes=p,
                          memory_cost=m).derive(case["passphrase"].encode())
        kdf = 1
    hdr = body(case["suite"], kdf, case["chunk_log2"], m, t, p, salt, nonce)
    out = hdr + hmac.new(subkey(master, nonce, b"header-mac", hdr), hdr, hashlib.sha256).digest()
    gcm = case["suite"] == "aes-256-gcm"
    if gcm:
        aead = AESGCM(subkey(master, nonce, b"gcm-key", hdr))
    else:
        enc = subkey(master, nonce, b"enc-key", hdr)
        mac = subkey(master, nonce, b"mac-key", hdr)
    pt = bytes.fromhex(case["plaintext"])
    size = 1 << case["chunk_log2"]
    chunks = [pt[i:i + size] for i in range(0, len(pt), size)] or [b""]
    for i, c in enumerate(chunks):
        last = i + 1 == len(chunks)
        if gcm:
            out += aead.encrypt(struct.pack(">QxxxB", i, last), c, None)
            continue
        ctr = struct.pack(">Q", i) + bytes(8)
        e = Cipher(algorithms.AES(enc), modes.CTR(ctr)).encryptor()
        ct = e.update(c) + e.finalize()
        tag = hmac.new(mac, struct.pack(">QB", i, last) + ct, hashlib.sha256).digest()
        out += ct + tag
    return out


def plaintext(n):
    return bytes((i * 7 + 3) % 256 for i in range(n)).hex()


def main():
    key = bytes(range(32)).hex()
    salt = bytes(range(0x40, 0x50)).hex()
    nonce = bytes(range(0xa0, 0xb0)).hex()
    cases = []
    for suite, prefix in [("aes-256-ctr-hmac-sha256", "aes"), ("aes-256-gcm", "aes-gcm")]:
        for n in [0, 1, 1023, 1024, 1025, 2600]:
            cases.append({"name": f"{prefix} raw key, {n} bytes", "suite": suite,
                          "kdf": "raw", "key": key, "salt": "00" * 16, "nonce": nonce,
                          "chunk_log2": 10, "plaintext": plaintext(n)})
        for n in [0, 3000]:
            cases.append({"name": f"{prefix} argon2id, {n} bytes", "suite": suite,
                          "kdf": "argon2id", "passphrase": "correct horse battery staple",
                          "m_kib": 64, "t": 2, "p": 2, "salt": salt, "nonce": nonce,
                          "chunk_log2": 10, "plaintext": plaintext(n)})
    for c in cases:
        c["sealed"] = seal(c).hex()
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
