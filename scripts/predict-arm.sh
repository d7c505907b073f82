#!/usr/bin/env bash
# Predicted ARM64 speed of the ARM kernels (AES and SEED on `armv8`, bitsliced DES, π-Cipher
# on NEON, GHASH on PMULL), from the aarch64 binary's own instructions through llvm-mca's
# models of Neoverse N1, V1 and V2: a prediction, never a measurement (see
# scripts/predict_arm.py for what it computes).
#
# Needs the aarch64 build of scripts/test-aarch64.sh (it builds it when missing) and
# llvm-mca 19 (Debian's llvm-19, installed here when missing: LLVM 14 has no Neoverse
# scheduling models and treats every core as Cortex-A57). If either cannot be had it
# prints "ARM prediction NOT RUN" with the reason and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
bin="target/$target/release/bitweave"
not_run() {
  echo "=== ARM prediction NOT RUN: $* ===" >&2
  exit 0
}

if ! command -v llvm-mca-19 >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends llvm-19; } ||
    not_run "apt-get could not install llvm-19"
fi
if [ ! -x "$bin" ]; then
  command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
    rustup target list --installed 2>/dev/null | grep -qx "$target" ||
    not_run "no aarch64 build, cross linker or target (scripts/test-aarch64.sh installs them)"
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc PKG_CONFIG_ALLOW_CROSS=1 \
    PKG_CONFIG_PATH_aarch64_unknown_linux_gnu=/usr/lib/aarch64-linux-gnu/pkgconfig \
    cargo build --release --target "$target" -p bitweave-cli ||
    not_run "the aarch64 build failed (scripts/test-aarch64.sh reports why)"
fi
echo "=== ARM64 kernels: predicted by llvm-mca-19, not measured ==="
python3 scripts/predict_arm.py "$bin" -19
