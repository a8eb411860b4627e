#!/usr/bin/env bash
# Runs the payment-risk example on the embedded default: builds the CLI and
# the Go operator, publishes the pinned events to the embedded JetStream
# (store under examples/payment-risk/data), runs the pipeline until it is
# idle, and prints the outputs. No setup beyond Go.
set -euo pipefail
cd "$(dirname "$0")/.."

ex=examples/payment-risk
mkdir -p bin
echo "== build wasmstream and the payment-risk operator (the first build downloads the Go modules and compiles them: a few minutes)"
go build -ldflags "-X main.version=$(git describe --always --dirty 2>/dev/null || echo dev)" -o bin/wasmstream ./cmd/wasmstream
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "$ex/operator/risk.wasm" "./$ex/operator"

echo "== fresh data dir"
rm -rf "$ex/data"

echo "== validate"
bin/wasmstream validate "$ex/pipeline.hcl"

echo "== publish the pinned events (evt-48 is delivered twice)"
bin/wasmstream publish --config "$ex/pipeline.hcl" --subject payments.in "$ex/events.jsonl"

echo "== run until idle"
bin/wasmstream run "$ex/pipeline.hcl" --stop-when-idle 2s

echo "== outputs on risk.totals"
bin/wasmstream read --config "$ex/pipeline.hcl" --subject risk.totals

echo "== checkpoints"
bin/wasmstream checkpoints list "$ex/pipeline.hcl"
