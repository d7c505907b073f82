#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time; exits non-zero if any target
# crashes (a panic, a failed assertion, a timeout or running out of memory).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]       # default 20: the CI budget
#   scripts/fuzz.sh 600                        # the long local run fuzz/README.md records
#   FUZZ_TARGETS="seal_open pi_decrypt" scripts/fuzz.sh 60
#   FUZZ_SANITIZER=address scripts/fuzz.sh 600 # with AddressSanitizer (see below)
#
# Toolchain: only stable Rust is needed. cargo-fuzz with `-s none` (no sanitizer) passes
# rustc only stable flags (-Cpasses=sancov-module, -Cllvm-args=..., -Cdebug-assertions,
# --cfg fuzzing), and libfuzzer-sys builds libFuzzer itself with the C++ compiler. A
# sanitizer needs `-Zsanitizer=...`, a nightly flag: with FUZZ_SANITIZER set to anything
# but `none` this script sets RUSTC_BOOTSTRAP=1, which lets the stable compiler accept it
# (the sanitizer runtimes ship with the stable x86_64 Linux toolchain); the sanitizer
# build goes to its own target directory so the two never overwrite each other.
#
# The corpus grows in fuzz/corpus/<target> (not committed); the committed seeds in
# fuzz/seeds/<target> (fuzz/make_seeds.py writes them from the test vectors) are read as
# well. A crash leaves its input in fuzz/artifacts/<target>/; reproduce it with
# `cargo fuzz run --fuzz-dir fuzz -s none <target> <file>`. Logs: fuzz/target/logs/.
# Budget: about 1 minute to install cargo-fuzz (once per machine), 1-2 minutes to build,
# then SECONDS_PER_TARGET for each of the six targets.
set -euo pipefail

secs="${1:-20}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
fuzz_dir="$root/fuzz"
sanitizer="${FUZZ_SANITIZER:-none}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

target_dir="$fuzz_dir/target"
if [ "$sanitizer" != none ]; then
    export RUSTC_BOOTSTRAP=1
    target_dir="$fuzz_dir/target/sanitizer-$sanitizer"
fi
flags=(--fuzz-dir "$fuzz_dir" -s "$sanitizer" --target-dir "$target_dir")

if [ -n "${FUZZ_TARGETS:-}" ]; then
    read -r -a targets <<<"$FUZZ_TARGETS"
else
    mapfile -t targets < <(cargo fuzz list --fuzz-dir "$fuzz_dir")
fi

echo "fuzz.sh: building ${#targets[@]} targets (sanitizer: $sanitizer)"
cargo fuzz build "${flags[@]}"
# The binaries run directly (not through `cargo fuzz run`, which would rebuild first), so
# every target tests this one build even if the tree changes during a long run.
bin_dir="$target_dir/$(rustc -vV | sed -n 's/^host: //p')/release"

logs="$fuzz_dir/target/logs"
mkdir -p "$logs"
failed=()
summary=()
for t in "${targets[@]}"; do
    mkdir -p "$fuzz_dir/corpus/$t"
    seeds=()
    [ -d "$fuzz_dir/seeds/$t" ] && seeds=("$fuzz_dir/seeds/$t")
    echo "fuzz.sh: $t for ${secs}s"
    status=0
    mkdir -p "$fuzz_dir/artifacts/$t"
    "$bin_dir/$t" -artifact_prefix="$fuzz_dir/artifacts/$t/" \
        -max_total_time="$secs" -timeout=30 -print_final_stats=1 \
        "$fuzz_dir/corpus/$t" "${seeds[@]}" >"$logs/$t.log" 2>&1 || status=$?
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)"
    done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$logs/$t.log" | tail -1 || true)"
    if [ "$status" -ne 0 ]; then
        failed+=("$t")
        summary+=("$t: CRASH (exit $status), log $logs/$t.log")
        # The panic message and the crashing input's path.
        grep -E "panicked at|^(thread|  left|  right)|ERROR: libFuzzer|Test unit written" \
            "$logs/$t.log" | head -20 || true
    else
        summary+=("$t: ok, ${execs:-?} executions; ${done_line:-}")
    fi
done

echo
echo "fuzz.sh: ${secs}s per target, sanitizer $sanitizer"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz.sh: crashes in: ${failed[*]}" >&2
    exit 1
fi
