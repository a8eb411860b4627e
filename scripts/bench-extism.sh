#!/usr/bin/env bash
# The peer comparison recorded in BENCHMARKS.md ("Extism, one call per
# record"): the B1 keyed counter as an Extism plug-in called through
# Extism's Go SDK once per record, beside wasmstream's batch ABI with the Go
# guest and the WAT guest, in the B1 harness over the same records, keys and
# state backend (internal/bench/extism, a nested module so that the SDK stays
# out of the main go.mod). Builds the Go plug-in with the standard toolchain,
# runs the benchmark COUNT times (default 5) as separate invocations of one
# test binary, alternating which side runs first, and prints the medians.
#   COUNT=5 EXTISM_N=100000 ./scripts/bench-extism.sh
# Needs only Go and the Go module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
n="${EXTISM_N:-100000}"
work="$(mktemp -d)"
out="$work/bench.out"
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: EXTISM_N=$n records per run after a warm-up pass over 100000 keys, COUNT=$count invocations"

# The plug-in, built as toolchains.md says for Go guests; the test reads it
# from EXTISM_COUNTER_WASM (without it, the test builds the same itself).
(cd internal/bench/extism && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "$work/counter.wasm" ./guest)
export EXTISM_COUNTER_WASM="$work/counter.wasm"
echo "extism plug-in: $(stat -c %s "$EXTISM_COUNTER_WASM") bytes ($(cd internal/bench/extism && go list -m -f '{{.Path}} {{.Version}}' github.com/extism/go-sdk github.com/extism/go-pdk github.com/tetratelabs/wazero | paste -sd ' '))"

(cd internal/bench/extism && go test -c -o "$work/extism.test" .)
for ((i = 1; i <= count; i++)); do
  first=extism
  if ((i % 2 == 0)); then first=wasmstream; fi
  echo "run $i ($first first), load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd internal/bench/extism && EXTISM_FIRST="$first" "$work/extism.test" -test.count 1 -test.run '^$' \
    -test.bench 'BenchmarkExtismB1$' -test.benchtime "${n}x" -test.timeout 2h) |
    tee -a "$out" | grep -E '^(Benchmark|--- FAIL|    )'
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "medians of $count runs:"
awk -v ratios="extism-go / wasmstream-go (ns per record),ExtismB1/extism-go,ExtismB1/wasmstream-go,ns/record,-;extism-go-timeout / wasmstream-go (ns per record),ExtismB1/extism-go-timeout,ExtismB1/wasmstream-go,ns/record,-;extism-go / wasmstream-wat (ns per record),ExtismB1/extism-go,ExtismB1/wasmstream-wat,ns/record,-" \
  -f scripts/medians.awk "$out"
