#!/usr/bin/env bash
# Compares one benchmark of internal/bench between a base commit and the
# working tree, alternating the two round by round so that a change of
# machine load hits both alike, and prints every run and the medians.
#   ./scripts/bench-compare.sh BASE_REV [BENCH_REGEX] [BENCHTIME] [ROUNDS]
# e.g. ./scripts/bench-compare.sh 42d9641 'BenchmarkCheckpointThroughput$' 300000x 3
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:?usage: bench-compare.sh BASE_REV [BENCH_REGEX] [BENCHTIME] [ROUNDS]}"
bench="${2:-BenchmarkCheckpointThroughput\$}"
benchtime="${3:-300000x}"
rounds="${4:-3}"
tree="$(mktemp -d)"
out="$(mktemp)"
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -f "$out"' EXIT
echo "== base $base in $tree"
git worktree add --detach --force "$tree" "$base" >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); go: $(go version)"
for r in $(seq "$rounds"); do
  for side in base head; do
    dir=.
    [[ $side == base ]] && dir="$tree"
    echo "== round $r $side (load $(cut -d' ' -f1-3 /proc/loadavg))"
    (cd "$dir" && go test -run '^$' -bench "$bench" -benchtime "$benchtime" -count 1 -timeout 1h ./internal/bench/) |
      grep '^Benchmark' | sed "s/^/$side /" | tee -a "$out"
  done
done
echo "== medians (records/s)"
awk '{for (i = 1; i <= NF; i++) if ($i == "records/s") print $1, $2, $(i-1)}' "$out" |
  sort -k1,2 -k3,3n | awk '{k = $1 " " $2; v[k] = v[k] " " $3; n[k]++}
    END {for (k in v) {split(substr(v[k], 2), a, " "); print k, a[int((n[k] + 1) / 2)], "(" substr(v[k], 2) ")"}}' | sort
