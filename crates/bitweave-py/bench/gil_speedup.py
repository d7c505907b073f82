"""Two Python threads vs one: the speed-up the released GIL buys on 64 MiB buffers.

Each call runs the engine on one thread (threads=1), so any speed-up comes from two
Python threads running native code at the same time. Sequential: both buffers one
after the other on one thread; parallel: one buffer per thread. Best of --repeat runs
each, alternated so machine noise hits both alike. Also compares the one-shot call with
the library's raw speed via bench() (the cost of the Python layer).

    python crates/bitweave-py/bench/gil_speedup.py [--size-mib 64] [--repeat 5]
"""

import argparse
import hashlib
import json
import os
import threading
import time

import bitweave

CASES = [
    # (suite, key length, block, notes)
    ("aes-128-ctr", 16, 16),
    ("aes-128-cbc", 16, 16),  # CBC encryption: one serial chain per buffer
    ("seed-ctr", 16, 16),
    ("des-ede3-ecb", 24, 8),
]


def one(suite, key, iv, buf, out):
    bitweave.encrypt(suite, key, iv, buf, padding=False, threads=1, out=out)


def measure(suite, klen, bs, size, repeat):
    key = os.urandom(klen)
    iv = None if suite.endswith("ecb") else os.urandom(bs)
    bufs = [bytearray(os.urandom(size)) for _ in range(2)]
    outs = [bytearray(size) for _ in range(2)]
    seq, par, cpu = [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        for b, o in zip(bufs, outs):
            one(suite, key, iv, b, o)
        seq.append(time.perf_counter() - t)
        threads = [threading.Thread(target=one, args=(suite, key, iv, b, o))
                   for b, o in zip(bufs, outs)]
        t, c = time.perf_counter(), time.process_time()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        par.append(time.perf_counter() - t)
        cpu.append((time.process_time() - c) / par[-1])
    s, p = min(seq), min(par)
    raw = bitweave.bench(suite, size=min(size, 16 << 20), direction="enc", time_ms=200)[0]
    return {
        "suite": suite,
        "bytes_per_thread": size,
        "sequential_s": round(s, 4),
        "two_threads_s": round(p, 4),
        "speedup": round(s / p, 2),
        # CPU seconds per wall second while the two threads ran: ~2 means both ran at
        # once (GIL released); ~1 would mean they took turns.
        "cores_busy": round(max(cpu), 2),
        "python_one_thread_gbps": round(2 * size / s / 1e9, 3),
        "engine_gbps": round(raw["gbps"], 3),
        "backend": raw["backend"],
    }


def control(size, repeat):
    """hashlib.sha256, which releases the GIL on large buffers: what 2 threads can gain
    on this machine right now (other processes may hold the second core)."""
    bufs = [os.urandom(size) for _ in range(2)]
    seq, par = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        for b in bufs:
            hashlib.sha256(b).digest()
        seq.append(time.perf_counter() - t)
        ths = [threading.Thread(target=lambda b=b: hashlib.sha256(b).digest()) for b in bufs]
        t = time.perf_counter()
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        par.append(time.perf_counter() - t)
    return {"control": "hashlib.sha256", "speedup": round(min(seq) / min(par), 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    print(json.dumps(control(a.size_mib << 20, a.repeat)), flush=True)
    for suite, klen, bs in CASES:
        print(json.dumps(measure(suite, klen, bs, a.size_mib << 20, a.repeat)), flush=True)
    print(json.dumps(control(a.size_mib << 20, a.repeat)), flush=True)


if __name__ == "__main__":
    main()
