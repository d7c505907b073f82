#!/usr/bin/env bash
# Whole-process figures: the bitweave command against the peer a user would run instead,
# on a file and through pipes. Each row: median wall time of RUNS runs after a warm-up
# (the two commands alternate, so drift hits both), the ratio bitweave / peer (below 1:
# bitweave is faster) and both system times. Outputs go to /dev/null or to a new file
# (removed, and the page cache's dirty pages written back, before every run), so the
# disk's write-back of earlier runs is not timed.
#
#   scripts/end-to-end.sh [MIB] [RUNS]      default 1024 MiB, 3 runs
set -euo pipefail
cd "$(dirname "$0")/.."

mib="${1:-1024}"
runs="${2:-3}"
cargo build --release --quiet -p bitweave-cli
bw="$PWD/target/release/bitweave"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
head -c $((mib << 20)) /dev/urandom > "$work/in"
head -c 32 /dev/urandom > "$work/key"
k16=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
k24=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
k32=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
iv8=${iv:0:16}
kf=$(od -An -tx1 -N32 "$work/key" | tr -d ' \n')
# Inputs for decryption: padded ciphertexts made by openssl.
openssl enc -aes-128-cbc -K "$k16" -iv "$iv" -in "$work/in" -out "$work/cbc"
openssl enc -des-ede3-cbc -K "$k24" -iv "$iv8" -in "$work/in" -out "$work/3cbc"
# SEED is in OpenSSL 3's legacy provider.
seed_ossl="-provider legacy -provider default"
openssl enc -seed-cbc $seed_ossl -K "$k16" -iv "$iv" -in "$work/in" -out "$work/scbc"
"$bw" seal --key-file "$work/key" -i "$work/in" -o "$work/sealed" --quiet
"$bw" seal --suite aes-256-ctr-hmac-sha256 --key-file "$work/key" -i "$work/in" -o "$work/sealed-hmac" --quiet

# seconds COMMAND: wall and system seconds of the command and everything it started.
seconds() {
  local TIMEFORMAT='%R %S'
  { time bash -c "$1" > /dev/null 2>&1; } 2>&1
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# A clean start for each timed run: the previous output removed and every dirty page
# written back (untimed). Without the `sync`, a run that writes a file pays for the
# write-back of the run before it: on a 2-vCPU VM (Intel Xeon, 2026-11-30) `dd bs=1M` of
# 1 GiB took 0.33-1.87 s and `bitweave enc` file to file 0.31-1.93 s, system time equal
# to wall time, while `openssl enc`, writing at a third of the rate, stayed at 0.84 s.
fresh() {
  rm -f "$work/out"
  sync
}

# row NAME "BITWEAVE COMMAND" "PEER COMMAND"
row() {
  local name=$1 a=$2 b=$3 wa=() wb=() sa=() sb=() r
  fresh; bash -c "$a" > /dev/null; fresh; bash -c "$b" > /dev/null
  for _ in $(seq "$runs"); do
    fresh; r=($(seconds "$a")); wa+=("${r[0]}"); sa+=("${r[1]}")
    fresh; r=($(seconds "$b")); wb+=("${r[0]}"); sb+=("${r[1]}")
  done
  local ma mb msa msb
  ma=$(printf '%s\n' "${wa[@]}" | median); mb=$(printf '%s\n' "${wb[@]}" | median)
  msa=$(printf '%s\n' "${sa[@]}" | median); msb=$(printf '%s\n' "${sb[@]}" | median)
  printf '| %s | %.2f s (sys %.2f) | %.2f s (sys %.2f) | %.2f |\n' \
    "$name" "$ma" "$msa" "$mb" "$msb" "$(echo "$ma / $mb" | bc -l)"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "bitweave end to end: $mib MiB, median of $runs runs, $(nproc) CPUs, $cpu, $(date +%F)"
echo "$(openssl version)"
echo
echo "| command | bitweave | peer | bitweave / peer (wall) |"
echo "|---|---|---|---|"
in="$work/in"
row "enc aes-256-ctr, file to file (peer: openssl enc)" \
  "$bw enc -c aes-256-ctr -K $k32 --iv $iv -i $in -o $work/out" \
  "openssl enc -aes-256-ctr -K $k32 -iv $iv -in $in -out $work/out"
row "enc aes-256-ctr, pipe to pipe" \
  "cat $in | $bw enc -c aes-256-ctr -K $k32 --iv $iv | cat" \
  "cat $in | openssl enc -aes-256-ctr -K $k32 -iv $iv | cat"
row "enc aes-128-ecb --nopad, file to pipe" \
  "$bw enc -c aes-128-ecb -K $k16 --nopad -i $in" \
  "openssl enc -aes-128-ecb -K $k16 -nopad -in $in"
row "dec aes-128-cbc (padded), pipe to pipe" \
  "cat $work/cbc | $bw dec -c aes-128-cbc -K $k16 --iv $iv | cat" \
  "cat $work/cbc | openssl enc -d -aes-128-cbc -K $k16 -iv $iv | cat"
row "dec aes-128-cbc --threads 1, pipe to pipe" \
  "cat $work/cbc | $bw dec -c aes-128-cbc -K $k16 --iv $iv --threads 1 | cat" \
  "cat $work/cbc | openssl enc -d -aes-128-cbc -K $k16 -iv $iv | cat"
row "dec des-ede3-cbc, file to pipe" \
  "$bw dec -c des-ede3-cbc -K $k24 --iv $iv8 -i $work/3cbc" \
  "openssl enc -d -des-ede3-cbc -K $k24 -iv $iv8 -in $work/3cbc"
row "enc des-ede3-ecb --nopad, file to pipe" \
  "$bw enc -c des-ede3-ecb -K $k24 --nopad -i $in" \
  "openssl enc -des-ede3-ecb -K $k24 -nopad -in $in"
row "dec seed-cbc, file to pipe" \
  "$bw dec -c seed-cbc -K $k16 --iv $iv -i $work/scbc" \
  "openssl enc -d -seed-cbc $seed_ossl -K $k16 -iv $iv -in $work/scbc"
row "enc seed-ecb --nopad, file to pipe" \
  "$bw enc -c seed-ecb -K $k16 --nopad -i $in" \
  "openssl enc -seed-ecb $seed_ossl -K $k16 -nopad -in $in"
row "seal --key-file, file to new file (peer: cp)" \
  "$bw seal --key-file $work/key -i $in -o $work/out --quiet" \
  "cp $in $work/out"
row "seal --key-file, file to pipe (peer: openssl enc | openssl dgst -hmac)" \
  "$bw seal --key-file $work/key -i $in --quiet" \
  "openssl enc -aes-256-ctr -K $kf -iv $iv -in $in | openssl dgst -sha256 -hmac $kf"
row "open --key-file, file to new file (peer: cp)" \
  "$bw open --key-file $work/key -i $work/sealed -o $work/out --quiet" \
  "cp $work/sealed $work/out"
# The same two with the HMAC suite (the default where the CPU has no carry-less multiply).
row "seal --suite aes-256-ctr-hmac-sha256, file to new file (peer: cp)" \
  "$bw seal --suite aes-256-ctr-hmac-sha256 --key-file $work/key -i $in -o $work/out --quiet" \
  "cp $in $work/out"
row "open of an aes-256-ctr-hmac-sha256 file, file to new file (peer: cp)" \
  "$bw open --key-file $work/key -i $work/sealed-hmac -o $work/out --quiet" \
  "cp $work/sealed-hmac $work/out"

# Python's file functions and the Dask ranges, when an interpreter with bitweave installed
# is at hand (scripts/test-python.sh builds one; PYTHON_BW names another).
py="${PYTHON_BW:-$PWD/target/python/venv/bin/python}"
if [ -x "$py" ] && "$py" -c "import bitweave.dask, dask.distributed" 2> /dev/null; then
  key="open('$work/key', 'rb').read()"
  row "Python seal_file, file to new file (peer: cp)" \
    "$py -c \"import bitweave; bitweave.seal_file('$in', '$work/out', key=$key)\"" \
    "cp $in $work/out"
  row "Python open_file, file to new file (peer: cp)" \
    "$py -c \"import bitweave; bitweave.open_file('$work/sealed', '$work/out', key=$key)\"" \
    "cp $work/sealed $work/out"
  row "python -m bitweave.dask encrypt, 2 local worker threads (peer: openssl enc aes-256-ctr)" \
    "$py -m bitweave.dask encrypt $in $work/out --key-file $work/key --workers 2 --range-size 64M" \
    "openssl enc -aes-256-ctr -K $k32 -iv $iv -in $in -out $work/out"
else
  echo
  echo "(Python rows not run: no interpreter with bitweave and dask at $py; run scripts/test-python.sh first, or set PYTHON_BW)"
fi
