#!/usr/bin/env python3
"""Where bitweave trails its best peer, per CPU tier: the README's survey tables.

    scripts/survey.py [--bin target/release/bitweave] [--runs 3] [TIER ...]

Runs `bitweave bench --json` over every suite, both directions, 16 B to 16 KiB, once per
run and tier (`BITWEAVE_CPU=TIER`; `default` for no cap), with OpenSSL capped to the tier
through `OPENSSL_ia32cap` (the bench caps libgcrypt itself). Per row it keeps bitweave's best
cycles/byte over the runs and each peer's best, and prints how many rows lead the better
peer (ratio >= 0.995) and every row that trails, worst first. Runs alternate between tiers
so a slow spell of the machine spreads over all of them.
"""
import argparse
import json
import os
import subprocess

# The masks the bench names for each tier (crates/bitweave-bench/src/peers/mod.rs).
OPENSSL_MASK = {
    "avx2-gfni": ":~0x5842DC230000",
    "avx2": ":~0x5842DC230000",
    "avx2-novaes": ":~0x5E42DC230000",
    "aesni": ":0",
}
SIZES = "16,64,256,1024,16384"


def sweep(binary, tier, time_ms):
    env = dict(os.environ)
    env.pop("BITWEAVE_CPU", None)
    env.pop("OPENSSL_ia32cap", None)
    if tier != "default":
        env["BITWEAVE_CPU"] = tier
        if tier in OPENSSL_MASK:
            env["OPENSSL_ia32cap"] = OPENSSL_MASK[tier]
    out = subprocess.run(
        [binary, "bench", "--json", "--quiet", "--size", SIZES, "--time-ms", str(time_ms)],
        env=env, capture_output=True, text=True, check=True,
    ).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/bitweave")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--time-ms", type=int, default=40)
    ap.add_argument("tiers", nargs="*", default=["default"])
    args = ap.parse_args()
    best = {t: {} for t in args.tiers}
    for _ in range(args.runs):
        for tier in args.tiers:
            for r in sweep(args.bin, tier, args.time_ms):
                key = (r["cipher"], r["direction"], r["bytes"])
                b = best[tier].setdefault(key, {"backend": r["backend"]})
                for field in ("cycles_per_byte", "openssl_cycles_per_byte", "gcrypt_cycles_per_byte"):
                    v = r.get(field)
                    if v:
                        b[field] = min(b.get(field, v), v)
    for tier in args.tiers:
        rows, trailing = 0, []
        for (suite, direction, size), b in best[tier].items():
            peers = [b[f] for f in ("openssl_cycles_per_byte", "gcrypt_cycles_per_byte") if f in b]
            if not peers or "cycles_per_byte" not in b:
                continue
            rows += 1
            ratio = min(peers) / b["cycles_per_byte"]
            if ratio < 0.995:
                trailing.append((ratio, suite, direction, size, b["backend"]))
        print(f"tier {tier}: {rows - len(trailing)} of {rows} rows lead the better peer")
        for ratio, suite, direction, size, backend in sorted(trailing):
            print(f"  {ratio:5.2f}  {suite:16} {direction} {size:>6} B  {backend}")


if __name__ == "__main__":
    main()
