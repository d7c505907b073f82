"""bitweave against pyca/cryptography in one process: one-shot AES calls, 16 B to 16 MiB.

Each row: the time per call of `bitweave.encrypt(suite, key, iv, data)` (a new keyed run
each call, as the one-shot API is) and of pyca's `Cipher(...).encryptor()` +
`update` + `finalize` (a new context each call), best of five alternating repeats, and
the ratio pyca / bitweave (above 1: bitweave is faster). Outputs are checked equal
first. `--threads` is passed to bitweave (0 = all cores).

    python crates/bitweave-py/bench/vs_pyca.py [--threads 1] [--max-mib 16]
"""

import argparse
import os
import platform
import timeit

import bitweave
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def pyca_call(suite, key, iv, data, decrypt):
    bits, mode = suite.split("-")[1], suite.split("-")[2]
    assert len(key) * 8 == int(bits)
    m = {"ecb": lambda: modes.ECB(), "cbc": lambda: modes.CBC(iv), "ctr": lambda: modes.CTR(iv)}[mode]
    c = Cipher(algorithms.AES(key), m())
    ctx = c.decryptor() if decrypt else c.encryptor()
    return ctx.update(data) + ctx.finalize()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-mib", type=int, default=16)
    args = ap.parse_args()
    print(f"bitweave {bitweave.__version__} vs pyca/cryptography, one process; CPU: {cpu_name()}; "
          f"bitweave threads={args.threads}")
    print(f"{'call':<28} {'size':>9} {'bitweave us':>12} {'pyca us':>10} {'MB/s bw':>9} {'MB/s pyca':>10} {'pyca/bw':>8}")
    sizes = [16, 64, 1024, 16 << 10, 1 << 20, args.max_mib << 20]
    for suite, decrypt in [("aes-128-ctr", False), ("aes-256-ctr", False), ("aes-128-ecb", False),
                           ("aes-128-cbc", False), ("aes-128-cbc", True)]:
        key = os.urandom(int(suite.split("-")[1]) // 8)
        iv = None if suite.endswith("ecb") else os.urandom(16)
        for n in sizes:
            data = os.urandom(n)
            fn = bitweave.decrypt if decrypt else bitweave.encrypt

            def ours():
                return fn(suite, key, iv, data, padding=False, threads=args.threads)

            def theirs():
                return pyca_call(suite, key, iv, data, decrypt)

            assert ours() == theirs(), (suite, n)
            number = max(3, int(4e6 // max(n, 256)))
            t_ours, t_theirs = [], []
            for _ in range(5):
                t_ours.append(timeit.timeit(ours, number=number) / number)
                t_theirs.append(timeit.timeit(theirs, number=number) / number)
            a, b = min(t_ours), min(t_theirs)
            name = f"{'decrypt' if decrypt else 'encrypt'} {suite}"
            print(f"{name:<28} {n:>9} {a * 1e6:>12.2f} {b * 1e6:>10.2f} {n / a / 1e6:>9.1f} "
                  f"{n / b / 1e6:>10.1f} {b / a:>8.2f}")


if __name__ == "__main__":
    main()
