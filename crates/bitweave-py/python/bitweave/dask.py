"""Distributed bulk encryption on a Dask cluster: ``python -m bitweave.dask``.

    python -m bitweave.dask encrypt SRC DST --key-file KEY [--scheduler tcp://host:8786]
    python -m bitweave.dask decrypt SRC DST --key-file KEY
    python -m bitweave.dask verify  SRC DST [--key-file KEY]

SRC is a file or a directory tree. Every file is cut into block-aligned byte ranges
(``--range-size``, 64 MiB by default) and each range is one task: the worker reads its
range, runs AES-CTR on it in the native engine (GIL released) and writes it at the same
offset of the output with a positional write. CTR makes ranges independent: the counter
block for byte offset ``o`` is ``IV + o/16`` (mod 2^128), so each range starts its own
counter and the output equals a single-process ``openssl enc -aes-256-ctr`` of the whole
file, byte for byte. Each file gets a fresh random IV (``--iv`` fixes it for a single
file), so no two files share a keystream.

A range that fails its integrity check (or a key the engine refuses) is a verdict, not a
crash: the task returns it instead of raising, so it is not retried and prints no worker
traceback; the run fails with one ``error:`` line naming the range. Exceptions (a worker
that crashes or is lost, an I/O error) are retried ``--retries`` times.

Tasks are idempotent, so retries are safe: the output is a temporary file (or directory)
beside DST, preallocated before any task runs; a retried task (after an exception or a
killed worker) rewrites the same bytes at the same offsets. Only when every range is done
are the files flushed to disk and the temporary renamed to DST.

A JSON manifest (default ``DST.manifest.json`` for encrypt) records the cipher, range
size, each file's path, size and IV, and per range a SHA-256 of the ciphertext and an
HMAC-SHA-256 of the plaintext (keyed from the key: it reveals nothing without it), plus a
key-check value and a MAC over the whole manifest. ``decrypt`` checks every range against
it before anything is renamed into place; ``verify`` checks DST's ciphertext without the
key, and with the key also SRC's plaintext and the manifest's MAC.

Raw AES-CTR is malleable: the manifest's hashes and MACs are what detect changes, so keep
the manifest with the data (or use ``bitweave.seal_file`` for self-authenticating files).

Workers must see SRC and DST at the same paths (a shared filesystem) and run the same
``bitweave`` package. The key travels to the workers inside the task arguments: use a
TLS scheduler (``tls://``) when the network is not trusted.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import hmac
import json
import logging
import os
import secrets
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import bitweave

FORMAT = "bitweave-dask/1"
DEFAULT_RANGE = 64 << 20
CIPHERS = {"aes-128-ctr": 16, "aes-192-ctr": 24, "aes-256-ctr": 32}
_BLOCK = 16


class DaskCryptError(Exception):
    """A distributed run failed; the message says which file or range and why."""


# --- keys, counters, hashes -------------------------------------------------------------


def counter_at(iv: bytes, offset: int) -> bytes:
    """The CTR counter block for byte `offset` (block-aligned) of a stream started at `iv`."""
    if offset % _BLOCK:
        raise ValueError(f"range offset {offset} is not a multiple of {_BLOCK}")
    n = (int.from_bytes(iv, "big") + offset // _BLOCK) % (1 << 128)
    return n.to_bytes(_BLOCK, "big")


def _mac_key(key: bytes) -> bytes:
    return hmac.new(key, b"bitweave-dask/1 manifest", hashlib.sha256).digest()


def _key_check(key: bytes) -> str:
    return hmac.new(_mac_key(key), b"key check", hashlib.sha256).hexdigest()[:16]


def _plain_mac(key: bytes, data) -> str:
    return hmac.new(_mac_key(key), data, hashlib.sha256).hexdigest()


def _manifest_mac(key: bytes, manifest: dict) -> str:
    body = {k: v for k, v in manifest.items() if k != "mac"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(_mac_key(key), text, hashlib.sha256).hexdigest()


# --- tasks (run on the workers) ---------------------------------------------------------


@dataclass(frozen=True)
class RangeJob:
    """One byte range of one file: what a task needs, nothing secret."""

    path: str  # relative path in the manifest ("" for a single file)
    src: str
    dst: str
    offset: int
    length: int
    iv: bytes
    # Expected hashes (decrypt and verify), from the manifest.
    cipher_sha256: Optional[str] = None
    plain_mac: Optional[str] = None


_buffers = threading.local()


def _buffer(length: int, slot: int) -> bytearray:
    """This thread's reusable buffer number `slot`, `length` bytes long. A fresh
    bytearray per task cost every 64 MiB range ~16,000 page faults and an unmap (with
    the worker's other threads, a TLB shootdown): most of a run's system time."""
    held = getattr(_buffers, "held", None)
    if held is None:
        held = _buffers.held = {}
    buf = held.get(slot)
    if buf is None or len(buf) != length:
        buf = held[slot] = bytearray(length)
    return buf


def _wipe(buf: bytearray) -> None:
    """Zeroes `buf` in place (one memset; no 64 MiB temporary of zeros)."""
    if buf:
        ctypes.memset((ctypes.c_char * len(buf)).from_buffer(buf), 0, len(buf))


def _read_range(path: str, offset: int, length: int, slot: int = 0) -> bytearray:
    """Bytes `offset .. offset + length` of `path`, in this thread's buffer `slot`
    (valid until the thread's next read into that slot)."""
    buf = _buffer(length, slot)
    view = memoryview(buf)
    fd = os.open(path, os.O_RDONLY)
    try:
        done = 0
        while done < length:
            n = os.preadv(fd, [view[done:]], offset + done)
            if n == 0:
                _wipe(buf)
                raise DaskCryptError(
                    f"'{path}' is shorter than expected: it ends at byte {offset + done}, "
                    f"the range needs {offset + length}"
                )
            done += n
    finally:
        os.close(fd)
    return buf


def _write_range(path: str, offset: int, data: memoryview) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        done = 0
        while done < len(data):
            done += os.pwrite(fd, data[done:], offset + done)
    finally:
        os.close(fd)


def run_range(
    job: RangeJob,
    cipher_key: bytes,
    cipher: str,
    direction: str,
    threads: int = 1,
    fault: Optional[Callable[[RangeJob], None]] = None,
) -> dict:
    """Encrypts or decrypts one range into the output (a Dask task; idempotent).

    `fault` is a test hook called after the first half of the range is written.
    A range that fails its check, or a key the engine refuses, returns ``{"refused":
    message}`` with nothing written: retrying would give the same answer.
    """
    key = cipher_key
    buf = _read_range(job.src, job.offset, job.length)
    iv = counter_at(job.iv, job.offset)
    try:
        try:
            if direction == "encrypt":
                plain_mac = _plain_mac(key, buf)
                bitweave.encrypt(cipher, key, iv, buf, out=buf, threads=threads)
                cipher_sha = hashlib.sha256(buf).hexdigest()
            else:
                cipher_sha = hashlib.sha256(buf).hexdigest()
                if cipher_sha != job.cipher_sha256:
                    return {"refused": f"{_where(job)}: the ciphertext does not match the "
                                       "manifest (corrupted or altered)"}
                bitweave.decrypt(cipher, key, iv, buf, out=buf, threads=threads)
                plain_mac = _plain_mac(key, buf)
                if not hmac.compare_digest(plain_mac, job.plain_mac or ""):
                    return {"refused": f"{_where(job)}: the plaintext does not match the "
                                       "manifest (wrong key or IV)"}
        except bitweave.BitweaveError as e:
            return {"refused": f"{_where(job)}: {e}"}
        view = memoryview(buf)
        half = len(view) // 2
        _write_range(job.dst, job.offset, view[:half])
        if fault is not None:
            fault(job)
        _write_range(job.dst, job.offset + half, view[half:])
        return {"path": job.path, "offset": job.offset, "length": job.length,
                "cipher_sha256": cipher_sha, "plain_mac": plain_mac}
    finally:
        _wipe(buf)  # no plaintext left in the worker's memory, whatever happened


def check_range(job: RangeJob, cipher_key: Optional[bytes]) -> Optional[str]:
    """Verify task: None when the range matches the manifest, else what is wrong."""
    key = cipher_key
    ct = _read_range(job.dst, job.offset, job.length)
    if hashlib.sha256(ct).hexdigest() != job.cipher_sha256:
        return f"{_where(job)}: the ciphertext does not match the manifest"
    if key is not None:
        pt = _read_range(job.src, job.offset, job.length, slot=1)
        mac = _plain_mac(key, pt)
        _wipe(pt)  # no plaintext left in the worker's memory
        if not hmac.compare_digest(mac, job.plain_mac or ""):
            return f"{_where(job)}: the plaintext does not match the manifest"
    return None


def _where(job: RangeJob) -> str:
    name = job.path or os.path.basename(job.src)
    return f"'{name}' bytes {job.offset}..{job.offset + job.length}"


# --- planning (client side) -------------------------------------------------------------


def _scan(src: Path) -> tuple[list[tuple[str, int]], list[str]]:
    """Files (relative path, size) and directories of a tree, sorted; regular files only."""
    if src.is_file():
        return [("", src.stat().st_size)], []
    if not src.is_dir():
        raise DaskCryptError(f"cannot read '{src}': not a file or directory")
    files, dirs = [], []
    for root, dnames, fnames in os.walk(src, followlinks=False):
        dnames.sort()
        rel_root = os.path.relpath(root, src)
        for d in dnames:
            p = os.path.join(root, d)
            if os.path.islink(p):
                raise DaskCryptError(f"'{p}' is a symbolic link: not supported")
            dirs.append(os.path.normpath(os.path.join(rel_root, d)))
        for f in sorted(fnames):
            p = os.path.join(root, f)
            if os.path.islink(p) or not os.path.isfile(p):
                raise DaskCryptError(f"'{p}' is not a regular file: not supported")
            files.append((os.path.normpath(os.path.join(rel_root, f)), os.path.getsize(p)))
    return files, dirs


def _ranges(size: int, range_size: int) -> list[tuple[int, int]]:
    return [(o, min(range_size, size - o)) for o in range(0, size, range_size)]


def _temp_beside(dst: Path) -> Path:
    return dst.parent / f".{dst.name}.bitweave-{secrets.token_hex(4)}"


def _prepare_output(tmp: Path, tree: bool, files: list[dict], dirs: list[str]) -> None:
    """Creates the temporary output: directories, and every file at its final size."""
    if tree:
        tmp.mkdir()
        for d in dirs:
            (tmp / d).mkdir(parents=True, exist_ok=True)
    for f in files:
        p = tmp / f["path"] if tree else tmp
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "wb") as fh:
            fh.truncate(f["size"])


def _commit(tmp: Path, dst: Path, tree: bool) -> None:
    """Flushes every output file to disk, then renames the temporary to `dst`."""
    for p in (tmp.rglob("*") if tree else [tmp]):
        if p.is_file():
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    if tree:
        os.rename(tmp, dst)  # fails if dst appeared meanwhile: never merges trees
    else:
        os.replace(tmp, dst)


def _remove(tmp: Path) -> None:
    if tmp.is_dir():
        for p in sorted(tmp.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        tmp.rmdir()
    elif tmp.exists():
        tmp.unlink()


def _write_json(path: Path, data: dict) -> None:
    tmp = _temp_beside(path)
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _check_dst(dst: Path, tree: bool) -> None:
    if tree and dst.exists():
        raise DaskCryptError(f"'{dst}' already exists: give a new directory")
    if not tree and dst.is_dir():
        raise DaskCryptError(f"'{dst}' is a directory: give a file name")


def _run(client, fn, jobs: list, retries: int, **kwargs) -> list:
    """Runs `fn` on every job; raises `DaskCryptError` if any task refused its range."""
    # (Client.map's own `key=` names tasks: the cipher key is passed as `cipher_key`.)
    futures = client.map(fn, jobs, retries=retries, pure=False, **kwargs)
    results = client.gather(futures)
    refused = [r["refused"] for r in results if isinstance(r, dict) and "refused" in r]
    if refused:
        more = f" (and {len(refused) - 1} more range(s))" if len(refused) > 1 else ""
        raise DaskCryptError(refused[0] + more)
    return results


def encrypt(
    src, dst, key: bytes, *, client, cipher: str = "aes-256-ctr",
    range_size: int = DEFAULT_RANGE, iv: Optional[bytes] = None, manifest=None,
    retries: int = 3, threads: int = 1, fault=None,
) -> dict:
    """Encrypts the file or tree `src` into `dst` on `client`'s cluster; returns the
    manifest (also written to `manifest`, default `dst` + ".manifest.json")."""
    src, dst = Path(src), Path(dst)
    _check_key(cipher, key)
    if range_size <= 0 or range_size % _BLOCK:
        raise DaskCryptError(f"range size must be a positive multiple of {_BLOCK}, not {range_size}")
    files, dirs = _scan(src)
    tree = src.is_dir()
    if iv is not None and (tree or len(iv) != _BLOCK):
        raise DaskCryptError("--iv applies to a single file and must be 16 bytes (a tree's files each get a random IV)")
    _check_dst(dst, tree)
    entries = [{"path": p, "size": n, "iv": (iv or os.urandom(_BLOCK)).hex()} for p, n in files]
    tmp = _temp_beside(dst)
    try:
        _prepare_output(tmp, tree, entries, dirs)
        jobs = [
            RangeJob(e["path"], str(src / e["path"] if tree else src),
                     str(tmp / e["path"] if tree else tmp), off, n, bytes.fromhex(e["iv"]))
            for e in entries for off, n in _ranges(e["size"], range_size)
        ]
        results = _run(client, run_range, jobs, retries, cipher_key=key, cipher=cipher,
                       direction="encrypt", threads=threads, fault=fault)
        by_file: dict[str, list] = {}
        for r in results:
            by_file.setdefault(r["path"], []).append(
                {k: r[k] for k in ("offset", "length", "cipher_sha256", "plain_mac")})
        for e in entries:
            e["ranges"] = sorted(by_file.get(e["path"], []), key=lambda r: r["offset"])
        m = {"format": FORMAT, "cipher": cipher, "range_size": range_size,
             "kind": "tree" if tree else "file", "dirs": dirs, "files": entries,
             "key_check": _key_check(key)}
        m["mac"] = _manifest_mac(key, m)
        _commit(tmp, dst, tree)
    except BaseException:
        _remove(tmp)
        raise
    _write_json(Path(manifest) if manifest else _default_manifest(dst), m)
    return m


def _default_manifest(encrypted: Path) -> Path:
    return encrypted.parent / (encrypted.name + ".manifest.json")


def load_manifest(path, key: Optional[bytes]) -> dict:
    try:
        m = json.loads(Path(path).read_text())
    except OSError as e:
        raise DaskCryptError(f"cannot read manifest '{path}': {e.strerror}") from None
    except ValueError as e:
        raise DaskCryptError(f"manifest '{path}' is not valid JSON: {e}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise DaskCryptError(f"'{path}' is not a {FORMAT} manifest")
    if key is not None:
        _check_key(m["cipher"], key)
        if not hmac.compare_digest(m.get("key_check", ""), _key_check(key)):
            raise DaskCryptError("wrong key: it does not match the manifest's key check")
        if not hmac.compare_digest(m.get("mac", ""), _manifest_mac(key, m)):
            raise DaskCryptError(f"manifest '{path}' was altered (its MAC does not verify)")
    return m


def _jobs_from(m: dict, src: Path, dst: Path, tree: bool) -> list[RangeJob]:
    return [
        RangeJob(f["path"], str(src / f["path"] if tree else src),
                 str(dst / f["path"] if tree else dst), r["offset"], r["length"],
                 bytes.fromhex(f["iv"]), r["cipher_sha256"], r["plain_mac"])
        for f in m["files"] for r in f["ranges"]
    ]


def decrypt(src, dst, key: bytes, *, client, manifest=None, retries: int = 3,
            threads: int = 1, fault=None) -> dict:
    """Decrypts `src` (made by `encrypt`) into `dst`, checking every range against the
    manifest; `dst` appears only when all of it checked out."""
    src, dst = Path(src), Path(dst)
    m = load_manifest(manifest or _default_manifest(src), key)
    tree = m["kind"] == "tree"
    _check_dst(dst, tree)
    for f in m["files"]:
        p = src / f["path"] if tree else src
        if not p.is_file() or p.stat().st_size != f["size"]:
            raise DaskCryptError(f"'{p}' is missing or has the wrong size (manifest says {f['size']} bytes)")
    tmp = _temp_beside(dst)
    try:
        _prepare_output(tmp, tree, m["files"], m["dirs"])
        _run(client, run_range, _jobs_from(m, src, tmp, tree), retries, cipher_key=key,
             cipher=m["cipher"], direction="decrypt", threads=threads, fault=fault)
        _commit(tmp, dst, tree)
    except BaseException:
        _remove(tmp)
        raise
    return m


def verify(src, dst, key: Optional[bytes] = None, *, client, manifest=None,
           retries: int = 3) -> list[str]:
    """Checks that `dst` is the encryption of `src` per the manifest: the ciphertext
    always, the plaintext and the manifest's MAC too when `key` is given. Returns the
    problems found (empty: all good)."""
    src, dst = Path(src), Path(dst)
    m = load_manifest(manifest or _default_manifest(dst), key)
    tree = m["kind"] == "tree"
    problems = []
    for f in m["files"]:
        for side, root in (("ciphertext", dst), ("plaintext", src if key else None)):
            if root is None:
                continue
            p = root / f["path"] if tree else root
            if not p.is_file() or p.stat().st_size != f["size"]:
                problems.append(f"{side} '{p}' is missing or not {f['size']} bytes")
    if problems:
        return problems
    results = _run(client, check_range, _jobs_from(m, src, dst, tree), retries, cipher_key=key)
    return [r for r in results if r is not None]


def _check_key(cipher: str, key: bytes) -> None:
    if cipher not in CIPHERS:
        raise DaskCryptError(f"cipher must be one of {', '.join(CIPHERS)}, not '{cipher}'")
    if len(key) != CIPHERS[cipher]:
        raise DaskCryptError(
            f"wrong key length for {cipher}: expected {CIPHERS[cipher]} bytes, got {len(key)}")


# --- command line -----------------------------------------------------------------------


def _size(text: str) -> int:
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(text[-1:].lower(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 64M)")
    return int(digits) * scale


def _key_from(args) -> Optional[bytes]:
    if args.key_file:
        try:
            raw = Path(args.key_file).read_bytes()
        except OSError as e:
            raise DaskCryptError(f"cannot read key file '{args.key_file}': {e.strerror}") from None
        text = raw.strip()
        if len(text) in (32, 48, 64) and all(c in b"0123456789abcdefABCDEF" for c in text):
            return bytes.fromhex(text.decode())
        return raw
    if args.key:
        try:
            return bytes.fromhex(args.key)
        except ValueError:
            raise DaskCryptError("--key must be hex digits") from None
    return None


def quiet_background_logs() -> None:
    """Keeps asyncio's and tornado's background reports off stderr.

    A connection that times out while the cluster shuts down on a busy machine leaves a
    failed future behind (tornado's `with_timeout`); asyncio logs it when it is collected
    ("Future exception was never retrieved", no logger name), after the outcome was
    decided. Without --verbose that noise would follow the one `error:` line (seen in CI
    under load)."""
    for name in ("asyncio", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _client(args):
    from dask.distributed import Client, LocalCluster

    if not args.verbose:
        quiet_background_logs()
    if args.scheduler:
        return Client(args.scheduler), None
    # Workers log a failed task's traceback at WARNING; without --verbose only the one
    # `error:` line of the outcome is shown. The scheduler's HTTP server takes a free
    # port (the default 8787 may be taken, which prints a warning).
    #
    # By default the local workers are threads of this process: a task's work (reading,
    # the engine, SHA-256 and HMAC, writing) runs outside the GIL, so threads use every
    # core, and starting and stopping worker processes cost ~1.3 s a run here (Zen 4,
    # 2 workers), more than 256 MiB of work; 1 GiB took 2.9-3.3 s on threads and
    # 2.8-4.0 s on processes. `--processes` gives each worker a process of its own, as a
    # real cluster's workers have (a crashed worker is then replaced and its task
    # retried).
    workers = args.workers or os.cpu_count() or 1
    shape = (dict(n_workers=workers, threads_per_worker=1, processes=True) if args.processes
             else dict(n_workers=1, threads_per_worker=workers, processes=False))
    cluster = LocalCluster(**shape, dashboard_address=":0",
                           silence_logs=logging.WARNING if args.verbose else logging.CRITICAL)
    return Client(cluster), cluster


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bitweave.dask", description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["encrypt", "decrypt", "verify"])
    p.add_argument("src", help="encrypt: plaintext file or tree; decrypt: ciphertext; verify: plaintext")
    p.add_argument("dst", help="encrypt: ciphertext; decrypt: plaintext; verify: ciphertext")
    p.add_argument("--key-file", help="key: raw bytes, or hex text (16/24/32 bytes)")
    p.add_argument("--key", help="key as hex (visible to other users in the process list; prefer --key-file)")
    p.add_argument("--cipher", default="aes-256-ctr", choices=sorted(CIPHERS))
    p.add_argument("--iv", help="single file only: the initial counter block as hex (default random)")
    p.add_argument("--range-size", type=_size, default=DEFAULT_RANGE, help="bytes per task (default 64M)")
    p.add_argument("--manifest", help="manifest path (default: the ciphertext path + .manifest.json)")
    p.add_argument("--scheduler", help="address of a running scheduler, e.g. tcp://host:8786 (default: a local cluster)")
    p.add_argument("--workers", type=int, help="local cluster size (default: one per core)")
    p.add_argument("--processes", action="store_true",
                   help="local workers as separate processes (default: threads of this process)")
    p.add_argument("--retries", type=int, default=3, help="retries of a failed task (default 3)")
    p.add_argument("--threads", type=int, default=1, help="engine threads per task (default 1)")
    p.add_argument("--verbose", action="store_true", help="show the workers' logs and tracebacks")
    args = p.parse_args(argv)
    try:
        key = _key_from(args)
        if key is None and args.command != "verify":
            raise DaskCryptError("a key is needed: --key-file FILE (or --key HEX)")
        client, cluster = _client(args)
        try:
            start = time.perf_counter()
            if args.command == "encrypt":
                m = encrypt(args.src, args.dst, key, client=client, cipher=args.cipher,
                            range_size=args.range_size,
                            iv=bytes.fromhex(args.iv) if args.iv else None,
                            manifest=args.manifest, retries=args.retries, threads=args.threads)
            elif args.command == "decrypt":
                m = decrypt(args.src, args.dst, key, client=client, manifest=args.manifest,
                            retries=args.retries, threads=args.threads)
            else:
                problems = verify(args.src, args.dst, key, client=client,
                                  manifest=args.manifest, retries=args.retries)
                for line in problems:
                    print(f"mismatch: {line}", file=sys.stderr)
                if problems:
                    raise DaskCryptError(f"verify failed: {len(problems)} problem(s)")
                m = load_manifest(args.manifest or _default_manifest(Path(args.dst)), None)
            secs = time.perf_counter() - start
            total = sum(f["size"] for f in m["files"])
            print(json.dumps({"command": args.command, "files": len(m["files"]),
                              "ranges": sum(len(f["ranges"]) for f in m["files"]),
                              "bytes": total, "seconds": round(secs, 3),
                              "gbps": round(total / secs / 1e9, 3) if secs else None,
                              "plaintext_checked": key is not None}))
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    except OSError as e:
        where = f"'{e.filename}': " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except (DaskCryptError, bitweave.BitweaveError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # Run the importable module's main, so tasks pickle as `bitweave.dask.run_range`
    # (imported on the workers) rather than by value from __main__.
    from bitweave.dask import main as _main

    sys.exit(_main())
