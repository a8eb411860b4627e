#!/usr/bin/env bash
# Runs the operator-module benchmarks COUNT times (default 5) in one go and
# prints the median of each, in milliseconds:
#   - cold start of the Go payment-risk operator: a new runtime + Compile
#     with an empty wazero compilation cache dir, and with a warm one;
#   - validation as `operator push` does it (compiler engine, no cache);
#   - Fetch from the registry (embedded JetStream) into an empty module
#     cache, and a cache hit.
# Needs only Go: the benchmark builds the operator (GOOS=wasip1).
#   COUNT=5 BENCHTIME=3x ./scripts/bench-operator.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
benchtime="${BENCHTIME:-3x}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "runs: $count x $benchtime"
go test -run '^$' -bench 'BenchmarkColdStart|BenchmarkValidate|BenchmarkFetch' -benchtime "$benchtime" -count "$count" -timeout 1h ./plugins/ |
  tee "$out" | grep '^Benchmark'
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "medians of $count runs (ms per operation):"
awk '/^Benchmark/ && $4 == "ns/op" {
  name = $1; sub(/-[0-9]+$/, "", name)
  if (!(name in v)) order[++n] = name
  v[name] = v[name] " " $3
}
function median(list,   a, k, i, j, t) {
  k = split(substr(list, 2), a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
  for (i = 1; i <= n; i++) {
    m[order[i]] = median(v[order[i]]) / 1e6
    printf "  %-40s %10.1f\n", order[i], m[order[i]]
  }
  cold = m["BenchmarkColdStart/empty-cache"]; warm = m["BenchmarkColdStart/warm-cache"]
  if (warm > 0) printf "  cold start empty / warm cache            %9.1fx\n", cold / warm
}' "$out"
