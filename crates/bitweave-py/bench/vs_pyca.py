"""bitweave against pyca/cryptography in one process, 16 B to 16 MiB.

Two kinds of row, each the time per call, best of five alternating repeats, with the
ratio pyca / bitweave (above 1: bitweave is faster); outputs are checked equal first.

- `new`: a new keyed run per call — `bitweave.encrypt(suite, key, iv, data)` against
  pyca's `Cipher(algorithm(key), mode).encryptor()` + `update` + `finalize`.
- `keyed`: the key set up once — `bitweave.Cipher(suite, key).encrypt(iv, data)` against
  one pyca `Cipher` object's `encryptor()` + `update` + `finalize` per call (pyca has no
  context that survives a new IV, so this is its cheapest per-message path).
- `stream`: one streaming context each (`Cipher.encryptor(iv)` against pyca's
  `encryptor()`), `update(data)` per call.

AES rows cover ECB/CBC/CTR in both directions; DES/3DES/SEED rows use pyca's
`decrepit` algorithms (its bundled OpenSSL) in their batch modes (ECB, CBC decryption)
and in serial CBC encryption. `--threads` is passed to bitweave (0 = all cores).

    python crates/bitweave-py/bench/vs_pyca.py [--threads 1] [--max-mib 16] [--quick]
"""

import argparse
import os
import platform
import timeit

import bitweave
from cryptography.hazmat.decrepit.ciphers import algorithms as decrepit
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# bitweave suite -> (pyca algorithm class, key bytes, block bytes)
ALGORITHMS = {
    "aes-128": (algorithms.AES, 16, 16),
    "aes-256": (algorithms.AES, 32, 16),
    "des-ede3": (decrepit.TripleDES, 24, 8),
    "seed": (decrepit.SEED, 16, 16),
}
MODES = {"ecb": lambda iv: modes.ECB(), "cbc": modes.CBC, "ctr": modes.CTR}


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def pyca_cipher(suite, key, iv):
    cipher, mode = suite.rsplit("-", 1)
    return Cipher(ALGORITHMS[cipher][0](key), MODES[mode](iv))


def run(ctx, data):
    return ctx.update(data) + ctx.finalize()


def best_alternating(ours, theirs, number):
    """Best time per call of each over five rounds, the two timed in turn within a round,
    so a slow spell of the machine falls on both."""
    a = b = float("inf")
    for _ in range(5):
        a = min(a, timeit.timeit(ours, number=number))
        b = min(b, timeit.timeit(theirs, number=number))
    return a / number, b / number


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-mib", type=int, default=16)
    ap.add_argument("--quick", action="store_true", help="16 B, 1 KiB and 1 MiB only")
    ap.add_argument("--only", default="", metavar="PREFIXES",
                    help="only the suites starting with one of these comma-separated prefixes (e.g. seed,aes-128-ctr)")
    args = ap.parse_args()
    print(f"bitweave {bitweave.__version__} vs pyca/cryptography, one process; CPU: {cpu_name()}; "
          f"bitweave threads={args.threads}")
    print(f"{'call':<30} {'kind':<6} {'size':>9} {'bitweave us':>12} {'pyca us':>10} "
          f"{'MB/s bw':>9} {'MB/s pyca':>10} {'pyca/bw':>8}")
    aes_sizes = [16, 1024, 1 << 20] if args.quick else [16, 64, 1024, 16 << 10, 1 << 20, args.max_mib << 20]
    legacy_sizes = [1024, 1 << 20] if args.quick else [64, 1024, 16 << 10, 1 << 20]
    rows = [(s, d, aes_sizes) for s, d in [
        ("aes-128-ctr", False), ("aes-256-ctr", False), ("aes-128-ecb", False), ("aes-128-ecb", True),
        ("aes-128-cbc", False), ("aes-128-cbc", True), ("aes-256-cbc", True)]]
    rows += [(s, d, legacy_sizes) for s, d in [
        ("des-ede3-ecb", False), ("des-ede3-cbc", True), ("des-ede3-cbc", False),
        ("seed-ecb", False), ("seed-cbc", True), ("seed-cbc", False)]]
    prefixes = [p for p in args.only.split(",") if p]
    rows = [r for r in rows if not prefixes or r[0].startswith(tuple(prefixes))]
    for suite, decrypt, sizes in rows:
        cipher, mode = suite.rsplit("-", 1)
        _, key_len, block = ALGORITHMS[cipher]
        key = os.urandom(key_len)
        iv = None if mode == "ecb" else os.urandom(block)
        keyed = bitweave.Cipher(suite, key, padding=False, threads=args.threads)
        theirs_keyed = pyca_cipher(suite, key, iv)
        for n in sizes:
            data = os.urandom(n)
            if decrypt:
                ours_new = lambda: bitweave.decrypt(suite, key, iv, data, padding=False, threads=args.threads)
                ours_keyed = lambda: keyed.decrypt(iv, data)
                theirs_new = lambda: run(pyca_cipher(suite, key, iv).decryptor(), data)
                theirs_k = lambda: run(theirs_keyed.decryptor(), data)
            else:
                ours_new = lambda: bitweave.encrypt(suite, key, iv, data, padding=False, threads=args.threads)
                ours_keyed = lambda: keyed.encrypt(iv, data)
                theirs_new = lambda: run(pyca_cipher(suite, key, iv).encryptor(), data)
                theirs_k = lambda: run(theirs_keyed.encryptor(), data)
            want = theirs_new()
            assert ours_new() == want and ours_keyed() == want, (suite, n)
            # Streaming: one context each, fed `data` again and again (steady state).
            s_ours = keyed.decryptor(iv) if decrypt else keyed.encryptor(iv)
            s_theirs = theirs_keyed.decryptor() if decrypt else theirs_keyed.encryptor()
            assert s_ours.update(data) == s_theirs.update(data), (suite, n)
            number = max(3, int(4e6 // max(n, 256)))
            name = f"{'decrypt' if decrypt else 'encrypt'} {suite}"
            for kind, ours, theirs in (("new", ours_new, theirs_new), ("keyed", ours_keyed, theirs_k),
                                       ("stream", lambda: s_ours.update(data),
                                        lambda: s_theirs.update(data))):
                a, b = best_alternating(ours, theirs, number)
                print(f"{name:<30} {kind:<6} {n:>9} {a * 1e6:>12.2f} {b * 1e6:>10.2f} "
                      f"{n / a / 1e6:>9.1f} {n / b / 1e6:>10.1f} {b / a:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
