#!/usr/bin/env bash
# Measures what live state queries (wasmstream state get --live,
# docs/state-queries.md) cost the running pipeline, on the payment-risk
# pipeline over a published backlog, 100 live queries/s for accounts that
# exist:
#   - BenchmarkLiveQueryWindows: inside one run, queried and quiet windows
#     of 1.5 s in turn; the median over pairs of records per queried window
#     against the quiet windows around it (goal >= 0.97), COUNT runs;
#   - BenchmarkLiveQueryOverhead: separate runs without and with queries,
#     alternating which runs first, COUNT invocations; records/s and process
#     CPU per record of each mode and their ratios (a shared machine's load
#     moves these far more than 3 %);
#   - BenchmarkTaskAnswerQuery: what one query costs the task that answers
#     it, by the number of entries in its write-back cache;
#   - BenchmarkLiveQueryCPU: the CPU of one query end to end, and its share
#     of one core at 100 queries/s.
#   COUNT=5 QUERY_N=40000 QUERY_WINDOW_N=400000 ./scripts/bench-query.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
n="${QUERY_N:-40000}"
wn="${QUERY_WINDOW_N:-400000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: QUERY_WINDOW_N=$wn and QUERY_N=$n records, COUNT=$count runs"

# Build once: every invocation then runs the same binary.
bin="$(mktemp -d)/engine.test"
go test -c -o "$bin" ./internal/engine/
run() { (cd internal/engine && "$bin" -test.count 1 -test.run '^$' -test.timeout 1h "$@"); }

echo "queried and quiet windows in one run:"
for ((i = 1; i <= count; i++)); do
  echo "run $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
  run -test.bench 'BenchmarkLiveQueryWindows' -test.benchtime "${wn}x" | tee -a "$out" | grep -E '^(Benchmark|--- FAIL|    )'
done
echo
echo "separate runs without and with queries:"
for ((i = 1; i <= count; i++)); do
  first=off
  if ((i % 2 == 0)); then first=on; fi
  echo "run $i ($first first), load $(cut -d' ' -f1-3 /proc/loadavg)"
  QUERY_FIRST="$first" run -test.bench 'BenchmarkLiveQueryOverhead' -test.benchtime "${n}x" | tee -a "$out" | grep -E '^(Benchmark|--- FAIL|    )'
done
echo
echo "cost of one query to the task that answers it, by entries in its write-back cache:"
(cd internal/engine && "$bin" -test.count 3 -test.run '^$' -test.bench 'BenchmarkTaskAnswerQuery' -test.benchtime 100x) | grep '^Benchmark'
echo
echo "CPU of one live query end to end (querier, server, pipeline), and its share of one core at 100 queries/s:"
(cd internal/engine && "$bin" -test.count "$count" -test.run '^$' -test.bench 'BenchmarkLiveQueryCPU' -test.benchtime 2000x) | tee -a "$out" | grep '^Benchmark'
rm -rf "$(dirname "$bin")"

echo
echo "medians of $count runs:"
awk -v ratios="throughput queried / not (separate runs),LiveQueryOverhead/on,LiveQueryOverhead/off,records/s,>= 0.97;CPU per record not queried / queried (separate runs),LiveQueryOverhead/off,LiveQueryOverhead/on,cpu-ns/record,>= 0.97" -f scripts/medians.awk "$out"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
