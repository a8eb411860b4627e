#!/usr/bin/env bash
# Measures the cost of the metrics endpoint (observe block, docs/metrics.md):
# BenchmarkMetricsOverhead runs the same pipeline without the endpoint and
# with it (scraped every 250 ms) side by side in each of COUNT invocations,
# alternating which mode runs first, then prints the median records/s of
# each mode and their ratio (goal >= 0.97), and BenchmarkTaskMetricsPerBatch
# (what the endpoint adds to each guest batch).
#   COUNT=5 METRICS_N=200000 ./scripts/bench-metrics.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
n="${METRICS_N:-200000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: METRICS_N=$n records, COUNT=$count invocations"

# Build once: every invocation then runs the same binary.
bin="$(mktemp -d)/engine.test"
go test -c -o "$bin" ./internal/engine/
for ((i = 1; i <= count; i++)); do
  first=off
  if ((i % 2 == 0)); then first=on; fi
  echo "run $i ($first first), load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd internal/engine && METRICS_FIRST="$first" "$bin" -test.count 1 -test.run '^$' -test.bench 'BenchmarkMetricsOverhead' \
    -test.benchtime "${n}x" -test.timeout 1h) | tee -a "$out" | grep '^Benchmark'
done
echo
echo "hot-path cost per guest batch with the endpoint on:"
(cd internal/engine && "$bin" -test.count 3 -test.run '^$' -test.bench 'BenchmarkTaskMetricsPerBatch$') | grep '^Benchmark'
rm -rf "$(dirname "$bin")"

echo
echo "medians of $count runs:"
awk -v ratios="throughput on / off,MetricsOverhead/on,MetricsOverhead/off,records/s,>= 0.97" -f scripts/medians.awk "$out"
