#!/usr/bin/env bash
# Runs the sink benchmarks recorded in BENCHMARKS.md ("Sinks") COUNT times
# and prints the median of every metric, with the throughput ratios of the
# idempotent and transactional sinks against at_least_once (same invocation).
#   COUNT=3 ./scripts/bench-sinks.sh
# Sizes (defaults are the recorded ones; the benchmarks' own defaults are tiny):
#   SINK_N=300000 SINK_KEYS=100000   records and keys of the throughput benchmark
#   SINK_RATE=2000 SINK_SECONDS=20   steady input of the latency benchmark (records/s, seconds)
#   SINK_INTERVAL_MS=1000            checkpoint interval of both
# ONLY=throughput|latency runs one of them; CK_LOG=1 shows the engine's log.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-3}"
export SINK_KEYS="${SINK_KEYS:-100000}"
export SINK_RATE="${SINK_RATE:-2000}" SINK_SECONDS="${SINK_SECONDS:-20}"
export SINK_INTERVAL_MS="${SINK_INTERVAL_MS:-1000}"
n="${SINK_N:-300000}"
only="${ONLY:-}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: SINK_N=$n SINK_KEYS=$SINK_KEYS SINK_RATE=$SINK_RATE SINK_SECONDS=$SINK_SECONDS SINK_INTERVAL_MS=$SINK_INTERVAL_MS"

# One go test invocation per repetition, not -count: -count repeats each
# mode COUNT times in a row, so a change of load on the machine between the
# modes would show in the ratios. Here every invocation runs the three modes
# side by side.
bench() { # name pattern benchtime
  if [[ -n "$only" && "$only" != "$1" ]]; then return; fi
  for ((i = 1; i <= count; i++)); do
    echo "load before $1, run $i: $(cut -d' ' -f1-3 /proc/loadavg)"
    go test -count 1 -run '^$' -bench "$2" -benchtime "$3" -timeout 3h ./internal/bench/ | tee -a "$out" | grep '^Benchmark'
  done
}
bench throughput 'BenchmarkSinkThroughput$' "${n}x"
bench latency 'BenchmarkSinkLatency$' 1x
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "medians of $count runs (the runs lists keep the decimals of the ms figures):"
awk -v ratios="throughput idempotent / at_least_once,SinkThroughput/idempotent,SinkThroughput/at_least_once,records/s,none set;throughput transactional / at_least_once,SinkThroughput/transactional,SinkThroughput/at_least_once,records/s,none set" \
  -f scripts/medians.awk "$out"
