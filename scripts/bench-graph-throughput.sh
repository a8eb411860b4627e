#!/usr/bin/env bash
# Runs BenchmarkGraphTwoStagesAgainstOne (internal/engine) COUNT rounds: one
# stage, two stages with the local-edge shortcut and two stages reading the
# exchange stream back, side by side in rotating order, and prints the
# medians and the ratios (BENCHMARKS.md "Dataflow graphs").
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
run() { # case
  (cd internal/engine && "$bin" -test.run '^$' -test.bench "BenchmarkGraphTwoStagesAgainstOne/$1\$" -test.benchtime 1x) | tee -a "$out" | grep '^Benchmark'
}
cases=("stages=1" "stages=2" "stages=2-stream")
for i in $(seq 1 "$count"); do
  echo "round $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for j in 0 1 2; do run "${cases[$(( (i + j) % 3 ))]}"; done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "medians of $count rounds:"
awk -v ratios="two stages (shortcut) / one stage,GraphTwoStagesAgainstOne/stages=2,GraphTwoStagesAgainstOne/stages=1,records/s,none set;two stages (stream) / one stage,GraphTwoStagesAgainstOne/stages=2-stream,GraphTwoStagesAgainstOne/stages=1,records/s,none set;shortcut / stream,GraphTwoStagesAgainstOne/stages=2,GraphTwoStagesAgainstOne/stages=2-stream,records/s,none set" -f scripts/medians.awk "$out"
