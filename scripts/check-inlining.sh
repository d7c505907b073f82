#!/usr/bin/env bash
# The SIMD kernels must not depend on LTO or a single codegen unit to inline their
# intrinsics: a crate that depends on bitweave builds it with its own release profile
# (by default 16 codegen units, no LTO). There, a closure in a kernel's generic code
# (e.g. `core::array::from_fn`) is compiled without the kernel's target features, and
# every intrinsic it calls stays an out-of-line function call. This builds the library
# that way and fails if any of its code calls a `core::arch` function.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -m)" != "x86_64" ]; then
  echo "check-inlining: NOT RUN (x86-64 only; this machine is $(uname -m))"
  exit 0
fi
command -v objdump >/dev/null || { echo "check-inlining: objdump (binutils) is missing" >&2; exit 1; }
dir=target/inlining
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_LTO=false \
  cargo build --quiet --release -p bitweave --target-dir "$dir"
rlib=$(ls -t "$dir"/release/deps/libbitweave-*.rlib | head -1)
calls=$(objdump -dr --no-show-raw-insn "$rlib" 2>/dev/null \
  | awk '/^[0-9a-f]+ <.*>:$/ {fn=$2} /R_X86_64_(PLT32|PC32).*core_arch/ {print fn " -> " $NF}' \
  | sort | uniq -c || true)
if [ -n "$calls" ]; then
  echo "check-inlining: out-of-line core::arch calls in a 16-codegen-unit build:" >&2
  echo "$calls" | head -20 >&2
  exit 1
fi
echo "check-inlining: no out-of-line core::arch call in a 16-codegen-unit, no-LTO build of the library"
