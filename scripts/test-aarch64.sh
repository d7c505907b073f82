#!/usr/bin/env bash
# The aarch64 stage: cross-builds bitweave for aarch64-unknown-linux-gnu and runs the
# library's tests and a check of the CLI under qemu-user with `-cpu max` (NEON and the
# ARMv8 crypto extension). It proves the ARM64 backends (`armv8` for AES) and the portable
# ones give the x86 bytes on ARM64; it says nothing about ARM64 speed (emulated time is
# not a CPU's time). Every CPU model this qemu offers has the crypto extension, so the
# tiers without it run under the tier cap (BITWEAVE_CPU=neon, =portable), which lowers
# what detection reports exactly as a CPU without the extension would.
#
# Installs what it needs (rustup's aarch64 std, the cross gcc, qemu-user and the arm64
# runtime libraries through Debian multi-arch). If the machine cannot get them, the stage
# prints "aarch64 stage NOT RUN" with the reason and exits 0; a test failure exits non-zero.
#
# The runner is `qemu-aarch64 -cpu max` WITHOUT `-L /usr/aarch64-linux-gnu`: with the
# cross sysroot's libc (libc6-arm64-cross 2.36-8cross1) as the runtime, every dynamically
# linked program that starts a thread spins forever in glibc's thread-stack cache under
# qemu 7.2 — a 5-line C program with one pthread_create does — which is what made
# `bitweave list` look hung on ARM64. The multi-arch libc6:arm64 (/lib/ld-linux-aarch64.so.1)
# runs them; every emulated command here also has a timeout, so a hang fails the stage.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
not_run() {
  echo "=== aarch64 stage NOT RUN: $* ===" >&2
  exit 0
}

rustup target list --installed 2>/dev/null | grep -qx "$target" ||
  rustup target add "$target" || not_run "rustup could not install the $target standard library"

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
need=()
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu)
# The cross C runtime (crt1.o, crti.o, libc.so for the linker): only recommended by the
# cross gcc, so --no-install-recommends leaves it out.
[ -e /usr/aarch64-linux-gnu/lib/crti.o ] || need+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null 2>&1 || need+=(qemu-user)
[ -e /usr/lib/aarch64-linux-gnu/libssl.so ] || need+=(libssl-dev:arm64)
# Runtime library only: libgcrypt20-dev is not multi-arch (its arm64 package would remove
# the amd64 one the x86 build needs); build.rs links the soname when cross-building.
[ -e /usr/lib/aarch64-linux-gnu/libgcrypt.so.20 ] || need+=(libgcrypt20:arm64)
[ -e /lib/ld-linux-aarch64.so.1 ] || need+=(libc6:arm64)
if [ ${#need[@]} -gt 0 ]; then
  dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64 ||
    not_run "dpkg cannot add the arm64 architecture"
  $sudo apt-get update || not_run "apt-get update failed"
  $sudo apt-get install -y --no-install-recommends "${need[@]}" ||
    not_run "apt-get could not install ${need[*]}"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="timeout 900 qemu-aarch64 -cpu max"
export PKG_CONFIG_ALLOW_CROSS=1
export PKG_CONFIG_PATH_aarch64_unknown_linux_gnu=/usr/lib/aarch64-linux-gnu/pkgconfig
run() { timeout 120 qemu-aarch64 -cpu max "$@"; }

echo "=== aarch64: cross build (warnings are errors) ==="
RUSTFLAGS="-D warnings" cargo build --release --target "$target" -p bitweave -p bitweave-cli
# The ARM build's own docs (x86-only modules are absent there, so their links would dangle).
RUSTDOCFLAGS="-D warnings" cargo doc --target "$target" -p bitweave --no-deps --document-private-items

# The library's tests, release build (debug code under emulation is ~10x slower). Reduced
# on purpose, and said here: the OpenSSL differential runs 1,000 random cases per cipher,
# mode and padding instead of 10,000, and the 17 MiB thread-split test (about how the
# engine splits work, not about the architecture) is left to the x86 run.
echo "=== aarch64: library tests under qemu-aarch64 -cpu max (1,000 differential cases each; the 17 MiB thread-split test skipped) ==="
BITWEAVE_DIFF_CASES=1000 RUSTFLAGS="-D warnings" cargo test --release --target "$target" \
  -p bitweave -- --skip large_interleaved_inputs_are_independent_of_thread_count
# Without the crypto extension the defaults are NEON's bitsliced `sliced128` for AES (and
# DES, as everywhere on ARM64), and without NEON the portable backends (AES on `sliced64`,
# π-Cipher on plain words): the shared vectors, π-Cipher's and a smaller differential run
# check them as the defaults.
for tier in neon portable; do
  echo "=== aarch64: vectors, π-Cipher and 200 differential cases each under BITWEAVE_CPU=$tier ==="
  BITWEAVE_CPU=$tier BITWEAVE_DIFF_CASES=200 RUSTFLAGS="-D warnings" cargo test --release \
    --target "$target" -p bitweave --test vectors --test openssl_diff --test pi_cipher
done

echo "=== aarch64: the CLI under qemu, against the host's openssl ==="
bin="target/$target/release/bitweave"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Each tier reports itself and picks its AES default: `armv8` with the crypto extension,
# the NEON bitsliced `sliced128` without it, the portable `sliced64` without NEON.
for tier in crypto neon portable; do
  BITWEAVE_CPU=$tier run "$bin" list >"$dir/list"
  want=sliced64
  [ "$tier" = neon ] && want=sliced128
  [ "$tier" = crypto ] && want=armv8
  grep -q "^CPU tier: $tier" "$dir/list" && grep -q "aes-128=$want" "$dir/list" || {
    echo "aarch64: under BITWEAVE_CPU=$tier, bitweave list did not report tier $tier with AES on $want" >&2
    exit 1
  }
  # π-Cipher: NEON's whole-step and lane kernels wherever NEON is allowed.
  pi=neon
  [ "$tier" = portable ] && pi=portable
  grep -q "^AEAD backends: .*(default $pi)" "$dir/list" || {
    echo "aarch64: under BITWEAVE_CPU=$tier, bitweave list did not report π-Cipher on $pi" >&2
    exit 1
  }
  echo "aarch64 CLI: BITWEAVE_CPU=$tier reports tier $tier, AES on $want, π-Cipher on $pi"
done
BITWEAVE_CPU=avx2 run "$bin" list >/dev/null 2>&1 && {
  echo "aarch64: BITWEAVE_CPU=avx2 (an x86 tier) was not refused" >&2
  exit 1
}
head -c 100003 /dev/urandom >"$dir/plain"
k16=000102030405060708090a0b0c0d0e0f
k24=${k16}1011121314151617
k32=${k16}${k16}
while read -r suite key iv; do
  ours_iv=() theirs_iv=()
  [ "$iv" = - ] || { ours_iv=(--iv "$iv"); theirs_iv=(-iv "$iv"); }
  openssl enc -provider legacy -provider default "-$suite" -K "$key" "${theirs_iv[@]}" \
    -in "$dir/plain" -out "$dir/theirs"
  for tier in crypto neon portable; do
    BITWEAVE_CPU=$tier run "$bin" enc -c "$suite" -K "$key" "${ours_iv[@]}" -i "$dir/plain" -o "$dir/ours"
    cmp -s "$dir/ours" "$dir/theirs" || {
      echo "aarch64: bitweave enc -c $suite (BITWEAVE_CPU=$tier) differs from openssl enc" >&2
      exit 1
    }
    BITWEAVE_CPU=$tier run "$bin" dec -c "$suite" -K "$key" "${ours_iv[@]}" -i "$dir/ours" -o "$dir/back"
    cmp -s "$dir/back" "$dir/plain" || {
      echo "aarch64: bitweave dec -c $suite (BITWEAVE_CPU=$tier) does not give the plaintext back" >&2
      exit 1
    }
  done
  echo "aarch64 CLI: $suite enc = openssl enc, dec round trip ok (tiers crypto, neon and portable)"
done <<EOF
aes-128-ctr $k16 $k16
aes-128-ecb $k16 -
aes-256-cbc $k32 $k16
aes-256-cfb $k32 $k16
aes-192-ofb $k24 $k16
des-ede3-cbc $k24 0001020304050607
des-ede3-cfb8 $k24 0001020304050607
des-cbc 0001020304050607 0706050403020100
seed-cbc $k16 $k16
seed-ecb $k16 -
EOF
printf '%s' "$k32" >"$dir/key"
for suite in aes-256-ctr-hmac-sha256 pi64cipher256v2; do
  run "$bin" seal --suite "$suite" --key-file "$dir/key" -i "$dir/plain" -o "$dir/sealed"
  run "$bin" open --key-file "$dir/key" -i "$dir/sealed" -o "$dir/opened"
  cmp -s "$dir/opened" "$dir/plain" || {
    echo "aarch64: seal/open ($suite) does not round-trip" >&2
    exit 1
  }
  echo "aarch64 CLI: seal/open ($suite) round trip ok"
done
echo "=== aarch64 stage passed ==="
