#!/usr/bin/env bash
# Long streams through pipes: GIB gibibytes (default 10) of data through
#   enc | dec   (aes-256-cbc with padding, and 512-way interleaved 3DES-CBC when asked)
#   seal | open (AES-256-CTR + HMAC-SHA-256 and pi64cipher256v2, raw key file)
# with every stage's peak RSS measured by GNU time, and the plaintext's SHA-256 compared
# with what comes out of the far end. Prints one line per stage; exits non-zero on any
# mismatch or failure.
#
#   scripts/long-stream.sh [GIB]      e.g. scripts/long-stream.sh 10
set -euo pipefail
cd "$(dirname "$0")/.."

gib="${1:-10}"
bytes=$((gib << 30))
cargo build --release --quiet -p bitweave-cli
bw="$PWD/target/release/bitweave"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
head -c 32 /dev/urandom > "$work/key"
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')

# The source: zeros encrypted by bitweave's own CTR (incompressible, not all-zero blocks).
source_data() {
  head -c "$bytes" /dev/zero | "$bw" enc -c aes-128-ctr -K "${key:0:32}" --iv "$iv" --quiet
}

# run_pair NAME "FORWARD ARGS" "BACKWARD ARGS": source | forward | backward, hashed at both ends.
run_pair() {
  local name=$1 fwd=$2 back=$3
  local start=$SECONDS
  # shellcheck disable=SC2086
  source_data \
    | tee >(sha256sum | cut -d' ' -f1 > "$work/in.sha") \
    | /usr/bin/time -f %M -o "$work/fwd.rss" "$bw" $fwd --quiet \
    | /usr/bin/time -f %M -o "$work/back.rss" "$bw" $back --quiet \
    | sha256sum | cut -d' ' -f1 > "$work/out.sha"
  wait
  local secs=$((SECONDS - start))
  local ok=MISMATCH
  [ "$(cat "$work/in.sha")" = "$(cat "$work/out.sha")" ] && ok=identical
  printf '%-34s %3d GiB  %4d s  peak RSS: %s %5d MiB, %s %5d MiB  output %s\n' \
    "$name" "$gib" "$secs" "${fwd%% *}" $(( $(cat "$work/fwd.rss") / 1024 )) \
    "${back%% *}" $(( $(cat "$work/back.rss") / 1024 )) "$ok"
  [ "$ok" = identical ]
}

iv8=$(od -An -tx1 -N$((512 * 8)) /dev/urandom | tr -d ' \n')
k24=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
run_pair "enc|dec aes-256-cbc (padded)" \
  "enc -c aes-256-cbc -K $key --iv $iv" "dec -c aes-256-cbc -K $key --iv $iv"
run_pair "enc|dec des-ede3-cbc interleave 512" \
  "enc -c des-ede3-cbc -K $k24 --iv $iv8 --interleave 512" \
  "dec -c des-ede3-cbc -K $k24 --iv $iv8 --interleave 512"
run_pair "seal|open aes-256-ctr-hmac-sha256" \
  "seal --key-file $work/key" "open --key-file $work/key"
run_pair "seal|open pi64cipher256v2" \
  "seal --suite pi64cipher256v2 --key-file $work/key" "open --key-file $work/key"
