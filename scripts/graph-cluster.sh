#!/usr/bin/env bash
# Runs the dataflow-graph tests of the cluster harness (internal/cluster/
# acceptance/graph_test.go) on a 3-node NATS cluster with worker processes
# and prints their summary lines (BENCHMARKS.md "Dataflow graphs on a
# cluster"):
#   - TestGraphWorkerKills: KILLS SIGKILLs (default 50) of 3 workers running
#     the three-stage graph with its source routed; lost, duplicates and the
#     per-key check at the sink and at every stage's exchange stream;
#   - TestGraphRoutedSourceIsReadOnce: 4 workers, the source routed and not:
#     how often the source stream and each exchange stream was read;
#   - TestGraphRescalesTheMiddleStageLive: the middle stage 2 -> 6 -> 3 live.
# These are counts and checks, not timings; the times they print depend on
# the machine's load. CLUSTER_LONG=1 publishes 100,000 records per test
# instead of 20,000. ACCEPTANCE_LOGS=DIR keeps the workers' logs.
#   KILLS=50 ./scripts/graph-cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "building the acceptance tests"
go test -c -o "$out.test" ./internal/cluster/acceptance/
run() {
  echo "running $1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
  (cd internal/cluster/acceptance && ACCEPTANCE_GRAPH_KILLS="${KILLS:-50}" "$out.test" -test.run "^$1\$" -test.v -test.timeout 90m) >"$out" 2>&1 || {
    tail -50 "$out"
    exit 1
  }
  grep -E 'ACCEPTANCE-SUMMARY|^--- ' "$out" | sed 's/^ *//'
}
run TestGraphWorkerKills
run TestGraphRoutedSourceIsReadOnce
run TestGraphRescalesTheMiddleStageLive
rm -f "$out.test"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
