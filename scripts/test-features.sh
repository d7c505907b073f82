#!/usr/bin/env bash
# Builds without the optional features, as a user who wants less would:
# - the library without `seal` and `rustcrypto` (the cipher engine, modes, π-Cipher and
#   openssl's Salted__ format only), and its unit tests;
# - the CLI without the bench's peers (`cargo install --path crates/bitweave-cli
#   --no-default-features`): it must link neither OpenSSL nor libgcrypt, and its bench
#   must run and say that no peer is built in.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --quiet -p bitweave --no-default-features --lib
echo "test-features: the library builds and its unit tests pass without seal and rustcrypto"

cargo build --quiet -p bitweave-cli --no-default-features
bin=target/debug/bitweave
if ldd "$bin" | grep -E 'libssl|libcrypto|libgcrypt'; then
  echo "test-features: FAIL: the CLI built without peers links the libraries above" >&2
  exit 1
fi
out=$("$bin" bench -c aes-128-ecb --direction enc --time-ms 1)
grep -q "peers on 1 thread: none" <<<"$out" || {
  echo "test-features: FAIL: the bench header does not say no peer is built in:" >&2
  echo "$out" >&2
  exit 1
}
echo "test-features: the CLI without peers links neither OpenSSL nor libgcrypt; its bench ran alone"
