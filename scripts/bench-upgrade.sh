#!/usr/bin/env bash
# Runs the upgrade benchmark recorded in BENCHMARKS.md ("Operators and
# upgrades") COUNT times per state size and prints the medians: the pause a
# running payment-risk pipeline sees when upgraded from release 1 to release
# 2 (which migrates every account's total), and the time of the request.
#   COUNT=3 UPG_SIZES=1000,100000 ./scripts/bench-upgrade.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-3}"
sizes="${UPG_SIZES:-1000,100000}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
for keys in ${sizes//,/ }; do
  out="$(mktemp)"
  UPG_KEYS="$keys" go test -run '^$' -bench 'BenchmarkUpgradePause$' -benchtime 1x -count "$count" -timeout 1h ./internal/bench/ |
    tee "$out" | grep '^Benchmark'
  echo "accounts $keys, medians of $count runs:"
  awk -f scripts/medians.awk "$out"
  rm -f "$out"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
