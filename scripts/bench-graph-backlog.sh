#!/usr/bin/env bash
# Runs BenchmarkGraphUnalignedCheckpointOverBacklog (internal/engine) COUNT
# times and prints the median of its metrics: an unaligned checkpoint of a
# graph whose two-input stage lags on its exchange input by 10k, 100k and 1M
# messages, from trigger to completion (BENCHMARKS.md "Dataflow graphs").
#   COUNT=5 ./scripts/bench-graph-backlog.sh
#   BACKLOGS=10000,100000 ./scripts/bench-graph-backlog.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-3}"
export WASMSTREAM_BENCH_BACKLOGS="${BACKLOGS:-10000,100000,1000000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version); backlogs $WASMSTREAM_BENCH_BACKLOGS; $count runs, 5 checkpoints each"
for i in $(seq 1 "$count"); do
  echo "run $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
  go test -count=1 -run '^$' -bench 'BenchmarkGraphUnalignedCheckpointOverBacklog' -benchtime 5x -timeout 2h ./internal/engine/ | tee -a "$out" | grep '^Benchmark'
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "medians of $count runs:"
awk -f scripts/medians.awk "$out"
