#!/usr/bin/env bash
# Installs what the test suite needs beyond Go: wabt (wat2wasm) for the
# hand-written hostile WebAssembly modules, gcc for cgo (the race
# detector) and chromium for the test that renders the web UI headless
# (internal/engine/observe_ui_test.go). Safe to run again; it only
# installs what is missing. Needs root (or sudo) on Debian/Ubuntu.
set -euo pipefail

missing=()
command -v wat2wasm >/dev/null 2>&1 || missing+=(wabt)
# The race detector (go test -race) needs cgo, hence a C compiler.
command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
# The web UI test renders the page in headless Chromium (Debian's package).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
