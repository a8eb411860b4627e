#!/usr/bin/env bash
# Runs BenchmarkYardstick (internal/bench/yardstick_test.go): wasmstream
# pipelines (pass-through and keyed counter, Go, Rust and C guests,
# idempotent sink) against a raw nats.go ordered-consumer -> PublishAsync
# loop on the same server and records, with and without message ids, on an
# external nats-server child process and on the embedded server. Every
# round runs every case once, in an order rotated per round; the benchmark
# prints each run with the load average, then the medians and the median
# ratios to raw-ids of the same round.
#   COUNT=5 N=300000 ./scripts/bench-yardstick.sh
# Other settings: KEYS=100000 (keys of the counter), LANGS=go,rust,c,
# SERVERS=external,embedded, CASES (keep only these cases, e.g.
# "external/go-counter"), YARDSTICK_NATS_SERVER (the nats-server binary;
# default: on PATH, else ~/go/bin/nats-server). Extra arguments go to
# go test (e.g. -cpuprofile /tmp/cpu.out).
# Rust and C counters come from scripts/build-rust.sh and build-c.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

export YARDSTICK_ROUNDS="${COUNT:-5}" YARDSTICK_N="${N:-300000}" YARDSTICK_KEYS="${KEYS:-100000}"
export YARDSTICK_LANGS="${LANGS:-go,rust,c}" YARDSTICK_SERVERS="${SERVERS:-external,embedded}"
export YARDSTICK_CASES="${CASES:-}"
cmd=(go test -count 1 -run '^$' -bench 'BenchmarkYardstick$' -benchtime 1x -timeout 6h "$@" ./internal/bench/)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
bin="${YARDSTICK_NATS_SERVER:-$(command -v nats-server || echo "$HOME/go/bin/nats-server")}"
echo "external server: $bin $("$bin" --version 2>/dev/null || echo '(not found)')"
echo "command: YARDSTICK_ROUNDS=$YARDSTICK_ROUNDS YARDSTICK_N=$YARDSTICK_N YARDSTICK_KEYS=$YARDSTICK_KEYS" \
  "YARDSTICK_LANGS=$YARDSTICK_LANGS YARDSTICK_SERVERS=$YARDSTICK_SERVERS YARDSTICK_CASES=$YARDSTICK_CASES ${cmd[*]}"
"${cmd[@]}"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
