#!/usr/bin/env bash
# Measures what live state queries (wasmstream state get --live,
# docs/state-queries.md) cost the running pipeline: BenchmarkLiveQueryOverhead
# runs the payment-risk pipeline over a published backlog without queries and
# with 100 live queries/s for accounts that exist, side by side in each of
# COUNT invocations, alternating which mode runs first, then prints the
# median records/s and process CPU per record of each mode and their ratios
# (goal >= 0.97), and
# BenchmarkTaskAnswerQuery (what one query costs the task that answers it,
# by the number of entries in its write-back cache).
#   COUNT=5 QUERY_N=40000 ./scripts/bench-query.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
n="${QUERY_N:-40000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: QUERY_N=$n records, COUNT=$count invocations"

# Build once: every invocation then runs the same binary.
bin="$(mktemp -d)/engine.test"
go test -c -o "$bin" ./internal/engine/
for ((i = 1; i <= count; i++)); do
  first=off
  if ((i % 2 == 0)); then first=on; fi
  echo "run $i ($first first), load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd internal/engine && QUERY_FIRST="$first" "$bin" -test.count 1 -test.run '^$' -test.bench 'BenchmarkLiveQueryOverhead' \
    -test.benchtime "${n}x" -test.timeout 1h) | tee -a "$out" | grep -E '^(Benchmark|--- FAIL|    )'
done
echo
echo "cost of one query to the task that answers it, by entries in its write-back cache:"
(cd internal/engine && "$bin" -test.count 3 -test.run '^$' -test.bench 'BenchmarkTaskAnswerQuery' -test.benchtime 100x) | grep '^Benchmark'
rm -rf "$(dirname "$bin")"

echo
echo "medians of $count runs:"
awk -v ratios="throughput queried / not,LiveQueryOverhead/on,LiveQueryOverhead/off,records/s,>= 0.97;CPU per record not queried / queried,LiveQueryOverhead/off,LiveQueryOverhead/on,cpu-ns/record,>= 0.97" -f scripts/medians.awk "$out"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
