#!/usr/bin/env bash
# Runs BenchmarkGraphTwoStagesAgainstOne (internal/engine) COUNT rounds, one
# stage and two stages side by side in alternating order, and prints the
# medians and the ratio two stages / one stage (BENCHMARKS.md "Dataflow
# graphs").
#   COUNT=5 RECORDS=100000 ./scripts/bench-graph-throughput.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-5}"
export WASMSTREAM_BENCH_RECORDS="${RECORDS:-100000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
bin="$(mktemp -d)/engine.test"
go test -c -o "$bin" ./internal/engine/

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version); $WASMSTREAM_BENCH_RECORDS records per run; $count rounds"
run() { # stages
  (cd internal/engine && "$bin" -test.run '^$' -test.bench "BenchmarkGraphTwoStagesAgainstOne/stages=$1\$" -test.benchtime 1x) | tee -a "$out" | grep '^Benchmark'
}
for i in $(seq 1 "$count"); do
  echo "round $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if (( i % 2 )); then run 1; run 2; else run 2; run 1; fi
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "medians of $count rounds:"
awk -v ratios="two stages / one stage,GraphTwoStagesAgainstOne/stages=2,GraphTwoStagesAgainstOne/stages=1,records/s,none set" -f scripts/medians.awk "$out"
