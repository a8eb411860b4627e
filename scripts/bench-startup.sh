#!/usr/bin/env bash
# Start-up of an operator from a warm compilation cache: the `counter`
# reference operator in Go and in Rust (host.BenchmarkStartup: a new
# process's first start and a restart in the same process; and
# host.BenchmarkStartupPhases: the steps of the first). Each case runs in
# its own process, ROUNDS times, in an order that alternates round by
# round, so that a change of machine load hits every case alike; then the
# median of every metric. The machine's load is printed before each round.
#
#   ROUNDS=5 BENCHTIME=10x ./scripts/bench-startup.sh
#   RACE=1 ./scripts/bench-startup.sh      # under the race detector, as scripts/test.sh runs the engine
#   BASE_DIR=/path/to/other/checkout ./scripts/bench-startup.sh
#       # also runs the same cases in another checkout (it must have the
#       # benchmark), alternating with this one: before/after a change
#
# The Rust module comes from scripts/build-rust.sh (skipped when missing);
# the Go module is built by the benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${ROUNDS:-5}"
benchtime="${BENCHTIME:-10x}"
race=()
[[ "${RACE:-}" == 1 ]] && race=(-race)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

[[ -f conformance/build/rust/counter.wasm ]] || echo "note: conformance/build/rust/counter.wasm missing (scripts/build-rust.sh): Rust cases skipped"

# Test binaries, one per tree; a shared disk cache per tree, filled by the
# first run, so that every later process starts from a warm one.
sides=(head)
go test -c ${race[@]+"${race[@]}"} -o "$work/head.test" ./host
if [[ -n "${BASE_DIR:-}" ]]; then
  sides=(base head)
  (cd "$BASE_DIR" && go test -c ${race[@]+"${race[@]}"} -o "$work/base.test" ./host)
fi

cases=(
  '^BenchmarkStartup$/^go$/^disk-cache$'
  '^BenchmarkStartup$/^go$/^restart$'
  '^BenchmarkStartup$/^rust$/^disk-cache$'
  '^BenchmarkStartup$/^rust$/^restart$'
  '^BenchmarkStartupPhases$/^go$'
  '^BenchmarkStartupPhases$/^rust$'
)

# run SIDE CASE appends the benchmark lines of one process to $work/out.
run() {
  local dir=.
  [[ $1 == base ]] && dir="$BASE_DIR"
  (cd "$dir/host" && WASMSTREAM_STARTUP_CACHE="$work/cache-$1" "$work/$1.test" -test.run '^$' \
    -test.bench "$2" -test.benchtime "$benchtime" -test.count 1 -test.timeout 30m) |
    grep '^Benchmark' | sed "s/^/$1 /" | tee -a "$work/out"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(go version); race: ${RACE:-0}"
for r in $(seq "$rounds"); do
  echo "== round $r (load $(cut -d' ' -f1-3 /proc/loadavg))"
  order=("${cases[@]}")
  if ((r % 2 == 0)); then
    order=()
    for ((i = ${#cases[@]} - 1; i >= 0; i--)); do order+=("${cases[i]}"); done
  fi
  for c in "${order[@]}"; do
    for side in "${sides[@]}"; do run "$side" "$c"; done
  done
done

echo "== medians of $rounds rounds (ms per start)"
awk '{
    key = $1 " " $2; sub(/-[0-9]+$/, "", key)
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    for (i = 4; i < NF; i += 2) {
      u = $(i + 1); v = $i
      if (u == "ns/op") { u = "total-ms"; v = v / 1e6 }
      if (!((key, u) in vals)) units[key] = units[key] " " u
      vals[key, u] = vals[key, u] " " v
    }
  }
  function median(list,   a, k, i, j, t) {
    k = split(substr(list, 2), a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (c = 1; c <= n; c++) {
      print "  " order[c]
      k = split(substr(units[order[c]], 2), us, " ")
      for (i = 1; i <= k; i++) printf "    %-20s %10.2f   (runs:%s)\n", us[i], median(vals[order[c], us[i]]), vals[order[c], us[i]]
    }
  }' "$work/out"
