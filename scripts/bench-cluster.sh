#!/usr/bin/env bash
# Runs BenchmarkClusterThroughput (internal/cluster/acceptance): the
# throughput of 3 workers against 1 worker on the same 3-node NATS cluster,
# rounds alternating 1 and 3 workers, with each worker's records read (the
# read amplification of filter-on-read) and CPU time. Prints the machine
# first: the cluster's 3 nodes and the workers share its cores.
#   ./scripts/bench-cluster.sh
# Sizes (the benchmark's defaults): CLUSTER_BENCH_RECORDS=100000 records per
# round, CLUSTER_BENCH_ROUNDS=3 rounds per number of workers.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
echo "sizes: CLUSTER_BENCH_RECORDS=${CLUSTER_BENCH_RECORDS:-100000} CLUSTER_BENCH_ROUNDS=${CLUSTER_BENCH_ROUNDS:-3}"

CLUSTER_BENCH=1 go test -run '^$' -bench BenchmarkClusterThroughput -benchtime 1x -timeout 60m ./internal/cluster/acceptance/
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
