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
  echo "run $i ($first first), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
  (cd internal/bench/extism && EXTISM_FIRST="$first" "$work/extism.test" -test.count 1 -test.run '^$' \
    -test.bench 'BenchmarkExtismB1$' -test.benchtime "${n}x" -test.timeout 2h) |
    tee -a "$out" | grep -E '^(Benchmark|--- FAIL|    )'
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "medians of $count runs:"
awk -v ratios="extism-go / wasmstream-go (ns per record),ExtismB1/extism-go,ExtismB1/wasmstream-go,ns/record,-;extism-go-timeout / wasmstream-go (ns per record),ExtismB1/extism-go-timeout,ExtismB1/wasmstream-go,ns/record,-;extism-go / wasmstream-wat (ns per record),ExtismB1/extism-go,ExtismB1/wasmstream-wat,ns/record,-" \
  -f scripts/medians.awk "$out"

echo
echo "ns/record ratios within each invocation (the cases of one invocation share its load), and their medians:"
awk '/^run [0-9]+/ { run = $2; if (run > runs) runs = run }
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkExtismB1\//, "", name)
  for (i = 5; i < NF; i += 2) if ($(i + 1) == "ns/record") ns[run, name] = $i
}
function median(list,   a, k, i, j, t) {
  k = split(substr(list, 2), a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
  n = split("extism-go/wasmstream-go extism-go-timeout/wasmstream-go extism-go/wasmstream-wat wasmstream-go/wasmstream-wat", pairs, " ")
  for (p = 1; p <= n; p++) {
    split(pairs[p], ab, "/"); list = ""
    for (r = 1; r <= runs; r++) if (ns[r, ab[2]] > 0) list = list sprintf(" %.1f", ns[r, ab[1]] / ns[r, ab[2]])
    printf "  %-36s %8.1f   (runs:%s)\n", pairs[p], median(list), list
  }
}' "$out"
