#!/usr/bin/env python3
"""Writes the committed seed corpus fuzz/seeds/<target>/ from the project's own test
vectors (crates/bitweave/tests/vectors), in each target's input layout (documented at the
top of fuzz/fuzz_targets/<target>.rs). Deterministic; rerun after changing a layout:

    python3 fuzz/make_seeds.py
"""
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent
VECTORS = ROOT.parent / "crates" / "bitweave" / "tests" / "vectors"
SEEDS = ROOT / "seeds"

# The orders of CipherKind::ALL, Mode::ALL and PiVariant::ALL / SealSuite::ALL.
CIPHERS = ["aes-128", "aes-192", "aes-256", "des", "des-ede", "des-ede3", "seed"]
MODES = ["ecb", "cbc", "cfb", "cfb8", "cfb1", "ofb", "ctr"]
PI = ["pi16cipher096v2", "pi16cipher128v2", "pi32cipher128v2",
      "pi32cipher256v2", "pi64cipher128v2", "pi64cipher256v2"]
SEAL_SUITES = ["aes-256-ctr-hmac-sha256", "pi64cipher256v2", "pi32cipher256v2"]
# Per vector file: at most this many vectors, each at most this many ciphertext bytes.
PER_FILE = 3
MAX_BYTES = 300


def split(algorithm):
    cipher, mode = algorithm.rsplit("-", 1)
    return CIPHERS.index(cipher), MODES.index(mode), cipher, mode


def small(vectors, key="ciphertext"):
    picked = [v for v in vectors if len(v[key]) // 2 <= MAX_BYTES]
    return picked[:PER_FILE]


def write(target, name, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def block_seeds():
    for f in sorted(VECTORS.glob("*.json")):
        doc = json.loads(f.read_text())
        if "block_bytes" not in doc:
            continue
        ci, mi, cipher, mode = split(doc["algorithm"])
        bs = doc["block_bytes"]
        n = doc["interleave"]
        pad = 1 if doc["padding"] == "pkcs7" else 0
        for i, v in enumerate(small(doc["vectors"])):
            key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"])
            ct, pt = bytes.fromhex(v["ciphertext"]), bytes.fromhex(v["plaintext"])
            name = f"{f.stem}-{v['id']}"
            # mode_decrypt: cipher, mode, n, flags, k = 2 update sizes (5, 17), probe 16.
            write("mode_decrypt", name,
                  bytes([ci, mi, n, pad, 2, 5, 17, 16]) + key + iv + ct)
            # diff_backends: cipher, mode, n, flags (decrypt on odd vectors), 2 messages,
            # key, counter block (the IV's first block, or zeros), IV, data.
            dec = 2 if i % 2 else 0
            counter = iv[:bs] if iv else bytes(bs)
            write("diff_backends", name,
                  bytes([ci, mi, n, pad | dec, 2]) + key + counter + iv
                  + (ct if dec else pt))
            # diff_interleave: cbc/cfb/ofb only, N - 1, the IV's N blocks.
            if mode in ("cbc", "cfb", "ofb"):
                write("diff_interleave", name,
                      bytes([ci, ["cbc", "cfb", "ofb"].index(mode), n - 1, pad | dec])
                      + key + iv + (ct if dec else pt))
            # parse_args: the CLI's arguments as lines.
            if i == 0:
                args = [doc["algorithm"], v["key"], v["iv"], str(n),
                        "0" if pad else "1", ""]
                write("parse_args", name, "\n".join(args).encode())


def parse_arg_extras():
    # Aliases and the other name parsers' names, with and without backends.
    extra = [
        ["des3", "0123456789abcdef23456789abcdef01456789abcdef0123", "0" * 16, "", "", ""],
        ["AES128", "00" * 16, "00" * 16, "1", "", "aesni"],
        ["seed", "00" * 16, "00" * 16, "1", "", "ct64"],
        ["aes-256-ofb", "00" * 32, "00" * 64, "4", "", "sliced64"],
        ["des-ede3", "0123456789abcdef23456789abcdef01456789abcdef0123", "", "", "1", ""],
    ]
    for v in PI:
        doc = json.loads((VECTORS / f"{v}.json").read_text())
        vec = doc["vectors"][0]
        extra.append([v, vec["key"], vec["npub"], "", "", "portable"])
    for s in SEAL_SUITES:
        extra.append([s, "", "", "", "", ""])
    for i, args in enumerate(extra):
        write("parse_args", f"extra-{i}", "\n".join(args).encode())


def pi_seeds():
    for vi, v in enumerate(PI):
        doc = json.loads((VECTORS / f"{v}.json").read_text())
        vectors = [x for x in doc["vectors"] if len(x["ad"]) // 2 <= 255]
        for x in small(vectors):
            key, npub = bytes.fromhex(x["key"]), bytes.fromhex(x["npub"])
            ad, c = bytes.fromhex(x["ad"]), bytes.fromhex(x["ciphertext"])
            # variant, flags (with SMN; incremental on backend 0), AD length, npub
            # selector (the variant's length), piece size 7.
            write("pi_decrypt", f"{v}-{x['id']}",
                  bytes([vi, 1, len(ad), 0, 7]) + key + npub + ad + c)


def seal_seeds():
    cases = json.loads((VECTORS / "seal" / "seal-v1.json").read_text())
    for i, c in enumerate(cases):
        if c["kdf"] != "raw":
            continue
        sealed = bytes.fromhex(c["sealed"])
        if len(sealed) <= 4096:
            write("seal_open", f"vector-{i}", b"\x00" + sealed)
    # Sealed in the target: suite, plaintext length (LE), nonce, no edits / two edits.
    for si in range(3):
        for length in (0, 1, 1024, 2600):
            write("seal_open", f"build-{si}-{length}",
                  bytes([1, si]) + length.to_bytes(2, "little") + bytes(range(16)) + b"\x00")
        write("seal_open", f"build-{si}-edits",
              bytes([1, si]) + (2600).to_bytes(2, "little") + bytes(16)
              + bytes([2, 4, 1, 0, 0, 0, 0x90, 0, 7]))


def main():
    if SEEDS.exists():
        shutil.rmtree(SEEDS)
    block_seeds()
    parse_arg_extras()
    pi_seeds()
    seal_seeds()
    for d in sorted(SEEDS.iterdir()):
        files = list(d.iterdir())
        print(f"{d.name}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
