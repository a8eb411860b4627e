#!/usr/bin/env bash
# Runs TestNemesis (internal/cluster/acceptance): 24 mixed faults on 3
# workers and a 3-node NATS cluster while records are published, then
# checks that nothing was lost or duplicated. Prints each fault and the
# summary; worker logs are kept in ACCEPTANCE_LOGS (default
# /tmp/wasmstream-nemesis). 10–20 minutes on a 2-core machine.
#   ./scripts/nemesis.sh                 # 100,000 records
#   SHORT=1 ./scripts/nemesis.sh         # 20,000 records
#   ACCEPTANCE_SEED=123 ./scripts/nemesis.sh   # repeat a run's choices
set -euo pipefail
cd "$(dirname "$0")/.."

logs="${ACCEPTANCE_LOGS:-/tmp/wasmstream-nemesis}"
short=()
if [[ "${SHORT:-}" == 1 ]]; then short=(-short); fi
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); worker logs in $logs"
CLUSTER_LONG=1 ACCEPTANCE_LOGS="$logs" go test -count=1 -v -timeout 60m "${short[@]}" \
  -run '^TestNemesis$' ./internal/cluster/acceptance/ | grep -E --line-buffered 'fault [0-9]+|seed|ACCEPTANCE-SUMMARY|^(--- |FAIL|ok|PASS)|_test.go'
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
