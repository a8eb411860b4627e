#!/usr/bin/env bash
# Runs the whole test suite: installs the toolchains it needs (wabt, gcc for
# cgo and -race, clang-19 and wasi-libc, Debian's Rust, Node.js when none is
# installed (20 or newer is required: an older one is refused by name),
# AssemblyScript from npm), builds the guests of
# every language, then runs every Go test (unit, integration on embedded
# JetStream + Pebble with real guests, conformance across languages and
# engines, hostile guests, fuzz seed corpora), with the race detector on the
# packages whose concurrency matters.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== toolchains and guests (the first run installs packages and builds every guest: several minutes)"
./scripts/install-toolchains.sh
# Every SDK language's example and reference operators: the conformance
# suite and the SDK host tests run them (and fail under CI when one is missing).
./scripts/build-examples.sh
export CGO_ENABLED="${CGO_ENABLED:-1}"

echo "== SDK tests in their own languages"
./scripts/build-assemblyscript.sh --test
for crate in sdk/rust examples/payment-graph/merchants; do
  (cd "$crate" && RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc /usr/bin/cargo test --offline --quiet)
done

echo "== go test ./..."
go test -count=1 -timeout 20m ./...

echo "== benchmarks still run (one iteration each; figures come from scripts/bench.sh)"
if ! out=$(go test -count=1 -run '^$' -bench . -benchtime 1x ./internal/bench/ ./internal/state/ ./natsio/ 2>&1); then
  echo "$out" >&2
  exit 1
fi

echo "== the Extism peer benchmark's nested module: both sides do the same work (the benchmark: scripts/bench-extism.sh)"
(cd internal/bench/extism && go test -count=1 -timeout 10m .)

echo "== go test -race (engine, state, natsio)"
# -short: the race pass skips the engine tests that only check refusals and
# errors (they ran above without the race detector).
go test -count=1 -race -short -timeout 20m ./internal/engine/... ./internal/state/... ./internal/protocol/ ./natsio/...
