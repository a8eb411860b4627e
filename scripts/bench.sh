#!/usr/bin/env bash
# Runs the throughput benchmarks recorded in BENCHMARKS.md several times and
# prints the median records/s of each, with the ratios the issues ask for.
#   COUNT=5 B1_N=1000000 B2_N=200000 ./scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
b1n="${B1_N:-1000000}"
b2n="${B2_N:-200000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
go test -run '^$' -bench 'BenchmarkB1$|BenchmarkB1WAT$' -benchtime "${b1n}x" -count "$count" ./internal/bench/ | tee -a "$out" | grep records/s
go test -run '^$' -bench 'BenchmarkB2$' -benchtime "${b2n}x" -count "$count" ./internal/bench/ | tee -a "$out" | grep records/s

echo
echo "medians of $count runs (records/s):"
awk '/records\/s/ {
  name=$1; sub(/-[0-9]+$/, "", name)
  for (i = 1; i <= NF; i++) if ($(i+1) == "records/s") v[name] = v[name] " " $i
}
END {
  for (n in v) {
    k = split(substr(v[n], 2), a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    m[n] = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    printf "  %-28s %12.0f\n", n, m[n]
  }
  if (m["BenchmarkB1/native"] > 0) printf "  B1 wasm-go / native        %12.3f\n", m["BenchmarkB1/wasm-go"] / m["BenchmarkB1/native"]
  if (m["BenchmarkB2/plain-go"] > 0) printf "  B2 wasmstream / plain-go   %12.3f\n", m["BenchmarkB2/wasmstream"] / m["BenchmarkB2/plain-go"]
}' "$out"
