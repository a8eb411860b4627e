#!/usr/bin/env bash
# Compares the B1 operator benchmarks (issue 18: the WASM operator path)
# between a base commit and the working tree: BenchmarkB1 (Go guest and
# native), BenchmarkB1WAT, BenchmarkB1WATEmitBatch (head only when the base
# lacks it), BenchmarkB1Steps and BenchmarkLanguages (Go, Rust, C,
# AssemblyScript). Each side's guests are built with its own SDKs first
# (scripts/build-{c,rust,assemblyscript}.sh). Rounds alternate base and
# head so that a change of machine load hits both alike; every run records
# the load (uptime) and the end prints the median and range per benchmark.
#   ./scripts/bench-b1.sh BASE_REV [ROUNDS] [RECORDS]
# e.g. ./scripts/bench-b1.sh main 5 1000000
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:?usage: bench-b1.sh BASE_REV [ROUNDS] [RECORDS]}"
rounds="${2:-5}"
records="${3:-1000000}"
bench='BenchmarkB1$|BenchmarkB1WAT$|BenchmarkB1WATEmitBatch$|BenchmarkB1Steps$|BenchmarkLanguages$'
tree="$(mktemp -d)"
out="$(mktemp)"
bins="$(mktemp -d)"
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$out" "$bins"' EXIT
git worktree add --detach --force "$tree" "$base" >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); go: $(go version)"
echo "base $base = $(git rev-parse --short "$base"), head $(git rev-parse --short HEAD)$(git diff --quiet || echo ' + working tree')"
for side in base head; do
  dir=.
  [[ $side == base ]] && dir="$tree"
  echo "== build $side guests and test binary"
  (cd "$dir" && for lang in c rust assemblyscript; do "./scripts/build-$lang.sh" >/dev/null; done &&
    go test -c -o "$bins/$side.test" ./internal/bench/)
done
for r in $(seq "$rounds"); do
  for side in base head; do
    dir=.
    [[ $side == base ]] && dir="$tree"
    echo "== round $r $side: $(uptime)"
    (cd "$dir/internal/bench" && "$bins/$side.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${records}x" -test.count 1 -test.timeout 1h) |
      grep '^Benchmark' | sed "s/^/$side /" | tee -a "$out"
  done
done
echo "== end: $(uptime)"
echo "== medians over $rounds rounds, records/s (min .. max)"
awk '{for (i = 1; i <= NF; i++) if ($i == "records/s") {n = $2; sub(/-[0-9]+$/, "", n); print n, $1, $(i-1)}}' "$out" |
  sort -k1,1 -k2,2 -k3,3n | awk '{k = $1 " " $2; v[k] = v[k] " " $3; c[k]++}
    END {for (k in v) {split(substr(v[k], 2), a, " "); printf "%-40s %10.0f  (%.0f .. %.0f)\n", k, a[int((c[k] + 1) / 2)], a[1], a[c[k]]}}' | sort
