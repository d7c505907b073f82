#!/usr/bin/env bash
# Bitsliced AES-128 vs RustCrypto's fixsliced `aes` software backend, in one process.
# The `aes` crate picks its software backend only at compile time (`--cfg aes_backend="soft"`),
# so this builds the comparison in its own target directory with that flag.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/fixslice"
RUSTFLAGS='--cfg aes_backend="soft"' cargo run --release -q -p bitweave --example fixslice_compare
