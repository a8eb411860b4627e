#!/usr/bin/env bash
# Builds the AssemblyScript operator modules with the SDK in
# sdk/assemblyscript:
#   examples/payment-risk/assemblyscript/risk.wasm
#   conformance/build/assemblyscript/{counter,dedup,join,failer,ttldedup}.wasm
# Installs what is missing first: Node.js and npm from apt when there is no
# node at all (AssemblyScript 0.28 needs Node.js 20 or newer), then the
# pinned AssemblyScript compiler from each project's package-lock.json with
# `npm ci`. Safe to run again. Installing with apt needs root or sudo.
#
#   scripts/build-assemblyscript.sh          # install what is missing, build
#   scripts/build-assemblyscript.sh --test   # also run the SDK's own tests
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

run_tests=false
case "${1:-}" in
  --test) run_tests=true ;;
  "") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

ensure_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "== installing nodejs and npm with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 20 ]; then
    echo "error: Node.js $(node --version) is too old: AssemblyScript 0.28 needs Node.js 20 or newer." >&2
    echo "Install Node.js 20+ (Debian 12's own nodejs package is 18) and run this script again." >&2
    exit 1
  fi
}

# npm_ci installs a project's locked dependencies, unless an earlier run
# installed them from the same lock file.
npm_ci() {
  local dir=$1
  if [ -d "$dir/node_modules/assemblyscript" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return
  fi
  echo "== npm ci in ${dir#"$root"/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
}

ensure_node

sdk=$root/sdk/assemblyscript
example=$root/examples/payment-risk/assemblyscript
conf=$root/conformance/operators/assemblyscript
out=$root/conformance/build/assemblyscript

npm_ci "$example"
npm_ci "$conf"

echo "== build examples/payment-risk/assemblyscript/risk.wasm"
(cd "$example" && npx asc assembly/index.ts -o risk.wasm)

mkdir -p "$out"
for op in counter dedup join failer ttldedup ledger1 ledger2; do
  echo "== build conformance/build/assemblyscript/$op.wasm"
  (cd "$conf" && npx asc "$op/index.ts" -o "$out/$op.wasm")
done

if $run_tests; then
  npm_ci "$sdk"
  echo "== SDK tests"
  (cd "$sdk" && npm test)
fi

ls -l "$example/risk.wasm" "$out"/*.wasm
