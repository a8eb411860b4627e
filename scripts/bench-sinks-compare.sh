#!/usr/bin/env bash
# Compares the transactional sink with at_least_once, both measured in the
# same invocation, between a base commit and the working tree, alternating
# the two round by round (scripts/bench-compare.sh), and prints each
# round's ratio and the medians (BENCHMARKS.md "Sinks").
#   ROUNDS=5 ./scripts/bench-sinks-compare.sh BASE_REV
# Sizes as scripts/bench-sinks.sh: SINK_N=300000 SINK_KEYS=100000 SINK_INTERVAL_MS=1000
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:?usage: bench-sinks-compare.sh BASE_REV}"
export SINK_KEYS="${SINK_KEYS:-100000}" SINK_INTERVAL_MS="${SINK_INTERVAL_MS:-1000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "uptime before: $(uptime)"
./scripts/bench-compare.sh "$base" 'BenchmarkSinkThroughput/(at_least_once|transactional)$' "${SINK_N:-300000}x" "${ROUNDS:-5}" | tee "$out"
echo "uptime after: $(uptime)"
echo
awk -f scripts/sink-ratios.awk "$out"
