#!/usr/bin/env bash
# Runs the state TTL benchmarks recorded in BENCHMARKS.md ("State TTL")
# COUNT times and prints the median of every metric, with the throughput
# ratios of the TTL cases against no TTL (same invocation).
#   COUNT=5 ./scripts/bench-ttl.sh
# Sizes: TTL_N=300000 records over TTL_KEYS=100000 keys (engine benchmark).
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-3}"
export TTL_KEYS="${TTL_KEYS:-100000}"
n="${TTL_N:-300000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: TTL_N=$n TTL_KEYS=$TTL_KEYS"
go test -run '^$' -bench 'BenchmarkTTLThroughput$' -benchtime "${n}x" -count "$count" -timeout 3h ./internal/bench/ | tee -a "$out" | grep '^Benchmark'
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "medians of $count runs:"
awk -v ratios="throughput ttl-1h / none,TTLThroughput/ttl-1h,TTLThroughput/none,records/s,>= 0.9;throughput ttl-1s / none,TTLThroughput/ttl-1s,TTLThroughput/none,records/s,>= 0.9" \
  -f scripts/medians.awk "$out"
