#!/usr/bin/env bash
# Today's bench against the first wave's (commit d214a67, the state the second wave's
# issues were filed against) on this CPU: both CLIs built, then `bitweave bench` on the
# same suites and sizes, old and new alternating, RUNS times (default 3). Prints, per
# row, each build's best cycles/byte and peer ratios and the speed-up (old c/B over new;
# above 1 is faster today). Default backends; set BITWEAVE_CPU to compare a capped tier.
#
#   scripts/against-first-wave.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-3}"
base=d214a67
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/old" 2>/dev/null || true; rm -rf "$work"' EXIT
git worktree add --quiet --detach "$work/old" "$base"
# The first wave's suites (it had no GCM) and the three π-Cipher widths.
suites="aes-128-ecb aes-128-cbc aes-128-ctr aes-256-ctr aes-128-cfb aes-128-ofb aes-256-cbc
des-ecb des-ede3-ecb des-ede3-cbc des-ede3-ctr seed-ecb seed-cbc seed-ctr
pi64cipher256v2 pi32cipher256v2 pi16cipher128v2"
args=()
for s in $suites; do args+=(-c "$s"); done

cargo build --release --quiet -p bitweave-cli
(cd "$work/old" && CARGO_TARGET_DIR="$work/old-target" cargo build --release --quiet -p bitweave-cli)
new="$PWD/target/release/bitweave"
old="$work/old-target/release/bitweave"

for run in $(seq "$runs"); do
  for size in 64 1024 16384; do
    for who in old new; do
      bin=$old; [ "$who" = new ] && bin=$new
      "$bin" bench --quiet "${args[@]}" --size "$size" --time-ms 40 --json \
        > "$work/${who}_${size}_${run}.json"
    done
  done
done

python3 - "$work" <<'EOF'
import collections, glob, json, sys

best = collections.defaultdict(dict)
for path in glob.glob(f"{sys.argv[1]}/*_*_*.json"):
    who = path.rsplit("/", 1)[1].split("_")[0]
    for r in json.load(open(path)):
        # π rows carry their message count in `interleave`.
        key = (r["cipher"], r["direction"], r["bytes"], r.get("interleave", 1))
        d = best[key].setdefault(who, {"cpb": float("inf"), "backend": "", "o": 0, "g": 0})
        if r["cycles_per_byte"] < d["cpb"]:
            d["cpb"], d["backend"] = r["cycles_per_byte"], r["backend"]
        d["o"] = max(d["o"], r.get("ratio_vs_openssl") or 0)
        d["g"] = max(d["g"], r.get("ratio_vs_gcrypt") or 0)

print(f"{'suite':16} dir  bytes x msgs | first wave: backend c/B vs-OpenSSL vs-gcrypt"
      f" | today: backend c/B vs-OpenSSL vs-gcrypt | speed-up")
for key in sorted(best):
    o, n = best[key].get("old"), best[key].get("new")
    if not (o and n):
        continue
    cells = [f"{d['backend']:9} {d['cpb']:8.3f} {d['o']:5.2f} {d['g']:5.2f}" for d in (o, n)]
    print(f"{key[0]:16} {key[1]} {key[2]:6} x{key[3]:<3} | {cells[0]} | {cells[1]}"
          f" | {o['cpb'] / n['cpb']:5.2f}")
EOF
