#!/usr/bin/env bash
# Builds the Rust guests: the payment-risk example to
# examples/payment-risk/rust/risk.wasm, payment-graph's merchants stage to
# examples/payment-graph/merchants/merchants.wasm and the reference operators of
# conformance/OPERATORS.md to conformance/build/rust/<operator>.wasm.
#
# Installs Debian's Rust toolchain (rustc 1.63, cargo, the wasm32 standard
# library, the lld linker) when it is missing; safe to run again. Needs root or sudo only for
# that install. No crates.io access is needed: the SDK has no dependencies.
#
# Debian's compiler is always named explicitly (RUSTC=/usr/bin/rustc): a
# rustup toolchain on PATH usually has no wasm32 standard library.
set -euo pipefail
cd "$(dirname "$0")/.."

export RUSTC=/usr/bin/rustc
cargo=/usr/bin/cargo
wasm_std=/usr/lib/rustlib/wasm32-unknown-unknown

# install_toolchain installs the Debian packages that are missing, running
# apt-get update first only when something has to be installed.
install_toolchain() {
  local missing=()
  [ -x "$RUSTC" ] || missing+=(rustc)
  [ -x "$cargo" ] || missing+=(cargo)
  [ -d "$wasm_std" ] || missing+=(libstd-rust-dev-wasm32)
  # The wasm linker is only a recommendation of libstd-rust-dev-wasm32.
  [ -x /usr/bin/lld-14 ] || missing+=(lld-14)
  if [ ${#missing[@]} -eq 0 ]; then
    return
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "build-rust: need root or sudo to install: ${missing[*]}" >&2
      exit 1
    fi
    sudo="sudo"
  fi
  echo "== installing ${missing[*]}" >&2
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# build_wasm builds the cdylib crate or workspace in directory $1 for wasm.
build_wasm() {
  (cd "$1" && "$cargo" build --quiet --offline --release --target wasm32-unknown-unknown)
}

# copy_module copies a built module and prints its size.
copy_module() {
  local from=$1 to=$2
  mkdir -p "$(dirname "$to")"
  cp "$from" "$to"
  echo "$to: $(wc -c <"$to") bytes"
}

install_toolchain

echo "== payment-risk example"
ex=examples/payment-risk/rust
build_wasm "$ex"
copy_module "$ex/target/wasm32-unknown-unknown/release/payment_risk.wasm" "$ex/risk.wasm"

echo "== payment-graph example: the merchants stage"
ex=examples/payment-graph/merchants
build_wasm "$ex"
copy_module "$ex/target/wasm32-unknown-unknown/release/merchants.wasm" "$ex/merchants.wasm"

echo "== reference operators"
ops=conformance/operators/rust
build_wasm "$ops"
mkdir -p conformance/build/rust
# Build outputs, never committed.
echo '*' >conformance/build/rust/.gitignore
for op in counter dedup join failer ttldedup ledger1 ledger2; do
  copy_module "$ops/target/wasm32-unknown-unknown/release/ws_$op.wasm" "conformance/build/rust/$op.wasm"
done
