#!/usr/bin/env bash
# Python package (crates/bitweave-py): builds it into a venv and runs its pytest suite.
#
# Needs only Python >= 3.9 with pip and venv, and Rust: pip fetches maturin (the build
# backend) and the test extras (pytest, numpy, dask[distributed], cryptography). The
# venv lives in the build dir ($CARGO_TARGET_DIR or target/) and is reused across runs;
# the extension is rebuilt incrementally with the `ci` profile (optimised, parallel
# codegen, no LTO) unless MATURIN_PEP517_ARGS says otherwise. Extra arguments go to
# pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$CARGO_TARGET_DIR/python/venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile ci}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# The crate is outside the root workspace (root Cargo.toml), so `cargo fmt --all` and
# `cargo clippy --workspace` do not see it: check it here.
rustfmt --check --edition 2021 crates/bitweave-py/src/*.rs
cargo clippy --quiet --manifest-path crates/bitweave-py/Cargo.toml --all-targets -- -D warnings

echo "test-python: building and installing bitweave (maturin $MATURIN_PEP517_ARGS)"
start=$SECONDS
# The build backend goes into the venv and the build runs there without isolation: an
# isolated build puts a fresh temporary directory on PATH, which makes PyO3's build
# script rerun and rebuild everything on every run.
"$venv/bin/python" -m pip install --quiet "maturin>=1.9,<2"
"$venv/bin/python" -m pip install --quiet --no-build-isolation "./crates/bitweave-py[test]"
echo "test-python: installed in $((SECONDS - start)) s"

cd crates/bitweave-py
# -rs: every skipped test is listed with its reason (nothing passes silently by skipping).
"$venv/bin/python" -m pytest -q -rs -p no:cacheprovider tests "$@"
