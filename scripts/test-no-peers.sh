#!/usr/bin/env bash
# The CLI without the bench's peers (`--no-default-features`): it must build and link
# neither OpenSSL nor libgcrypt, and its bench must run and say that no peer is built in.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet -p bitweave-cli --no-default-features
bin=target/debug/bitweave
if ldd "$bin" | grep -E 'libssl|libcrypto|libgcrypt'; then
  echo "test-no-peers: FAIL: the CLI built without peers links the libraries above" >&2
  exit 1
fi
out=$("$bin" bench -c aes-128-ecb --direction enc --time-ms 1)
grep -q "peers on 1 thread: none" <<<"$out" || {
  echo "test-no-peers: FAIL: the bench header does not say no peer is built in:" >&2
  echo "$out" >&2
  exit 1
}
echo "test-no-peers: the CLI without peers links neither OpenSSL nor libgcrypt; its bench ran alone"
