#!/usr/bin/env bash
# Builds every example and reference operator in every SDK language,
# installing each toolchain when it is missing: Go (payment-risk,
# payment-limits, payment-graph's accounts and regions), C, Rust
# (payment-graph's merchants too) and AssemblyScript (payment-risk and
# conformance/operators/<lang>).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go"
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o examples/payment-risk/operator/risk.wasm ./examples/payment-risk/operator
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o examples/payment-limits/operator/limits.wasm ./examples/payment-limits/operator
for stage in accounts regions; do
  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "examples/payment-graph/$stage/$stage.wasm" "./examples/payment-graph/$stage"
done
mkdir -p conformance/build/go
for op in counter dedup join failer ttldedup ledger1 ledger2; do
  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "conformance/build/go/$op.wasm" "./conformance/operators/go/$op"
done
for lang in c rust assemblyscript; do
  echo "== $lang"
  "./scripts/build-$lang.sh"
done
