#!/usr/bin/env bash
# Runs the checkpoint benchmarks recorded in BENCHMARKS.md ("Checkpoints")
# COUNT times and prints the median of every metric, with the throughput
# ratio interval-1s / none.
#   COUNT=3 ./scripts/bench-checkpoint.sh
# Sizes (defaults are the recorded ones; the benchmarks' own defaults are tiny):
#   CK_KEYS=10000,100000,1000000   state sizes of the checkpoint and recovery benchmarks
#   CK_TPUT_N=600000 CK_TPUT_KEYS=200000   records and keys of the throughput benchmark
#   CK_BURN=2500 CK_SLOW=40000 CK_CHECKPOINTS=3 CK_WARM=3000   the alignment benchmark
# ONLY=state|recovery|throughput|alignment runs one of them.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-3}"
export CK_KEYS="${CK_KEYS:-10000,100000,1000000}"
export CK_TPUT_KEYS="${CK_TPUT_KEYS:-200000}"
export CK_BURN="${CK_BURN:-2500}" CK_SLOW="${CK_SLOW:-40000}" CK_CHECKPOINTS="${CK_CHECKPOINTS:-3}" CK_WARM="${CK_WARM:-3000}"
tputn="${CK_TPUT_N:-600000}"
only="${ONLY:-}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: CK_KEYS=$CK_KEYS CK_TPUT_N=$tputn CK_TPUT_KEYS=$CK_TPUT_KEYS CK_BURN=$CK_BURN CK_SLOW=$CK_SLOW CK_CHECKPOINTS=$CK_CHECKPOINTS CK_WARM=$CK_WARM"

bench() { # name benchtime
  if [[ -n "$only" && "$only" != "$1" ]]; then return; fi
  local pattern
  case "$1" in
  state) pattern='BenchmarkCheckpointState$' ;;
  recovery) pattern='BenchmarkCheckpointRecovery$' ;;
  throughput) pattern='BenchmarkCheckpointThroughput$' ;;
  alignment) pattern='BenchmarkCheckpointAlignment$' ;;
  esac
  echo "load before $1: $(cut -d' ' -f1-3 /proc/loadavg)"
  go test -run '^$' -bench "$pattern" -benchtime "$2" -count "$count" -timeout 3h ./internal/bench/ | tee -a "$out" | grep '^Benchmark'
}
bench state 1x
bench recovery 1x
bench throughput "${tputn}x"
bench alignment 1x
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "medians of $count runs:"
awk -v ratios="throughput interval-1s / none,CheckpointThroughput/interval-1s,CheckpointThroughput/none,records/s,>= 0.9" -f scripts/medians.awk "$out"
