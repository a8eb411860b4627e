#!/usr/bin/env bash
# Builds the C guests: the payment-risk example and the reference operators
# of conformance/OPERATORS.md, with the C SDK in sdk/c.
#
# Installs clang-19, lld-19, the wasm32 compiler runtime and wasi-libc from
# Debian when any of them is missing (root or sudo; apt-get update only
# then). Safe to run again. CC overrides the compiler (default clang-19).
#
# Outputs (not committed):
#   examples/payment-risk/c/risk.wasm
#   conformance/build/c/{counter,dedup,join,failer,ttldedup}.wasm
set -euo pipefail
cd "$(dirname "$0")/.."

CC=${CC:-clang-19}
SYSROOT=/usr
packages=(clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc)

# install_toolchain installs the Debian packages when the compiler, the
# linker, the compiler runtime or the wasi-libc sysroot is missing.
install_toolchain() {
  if command -v clang-19 >/dev/null 2>&1 && command -v wasm-ld-19 >/dev/null 2>&1 &&
    [ -f "$SYSROOT/lib/wasm32-wasi/libc.a" ] && [ -f "$SYSROOT/include/wasm32-wasi/stdio.h" ] &&
    [ -f /usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a ]; then
    return
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  echo "== installing ${packages[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" >/dev/null
}

install_toolchain

sdk=sdk/c
ex=examples/payment-risk/c
out=conformance/build/c
CFLAGS=(--target=wasm32-wasi "--sysroot=$SYSROOT" -mexec-model=reactor -O2 -std=c11
  -Wall -Wextra -Werror -Wl,--strip-debug "-I$sdk" "-I$ex")
SDK_SRC=("$sdk/wasmstream.c" "$sdk/wasmstream_json.c")

# build compiles one module: build <output.wasm> <sources...>
build() {
  local wasm=$1
  shift
  mkdir -p "$(dirname "$wasm")"
  "$CC" "${CFLAGS[@]}" -o "$wasm" "$@" "${SDK_SRC[@]}"
  echo "$wasm $(wc -c <"$wasm") bytes"
}

build "$ex/risk.wasm" "$ex/risk.c" "$ex/payment.c"
build "$out/counter.wasm" conformance/operators/c/counter.c "$ex/payment.c"
build "$out/dedup.wasm" conformance/operators/c/dedup.c
build "$out/join.wasm" conformance/operators/c/join.c "$ex/payment.c"
build "$out/failer.wasm" conformance/operators/c/failer.c
build "$out/ttldedup.wasm" conformance/operators/c/ttldedup.c
build "$out/ledger1.wasm" conformance/operators/c/ledger1.c
build "$out/ledger2.wasm" conformance/operators/c/ledger2.c
