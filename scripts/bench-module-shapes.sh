#!/usr/bin/env bash
# Peak memory (max RSS) and wall time of `wasmstream validate` and
# `wasmstream operator push` on the worst module shapes the host accepts:
# each just within one of host.ModuleLimits, one at all of them at once,
# and the Go payment-risk operator for comparison. Medians of COUNT runs
# (default 3); validate compiles cold (the data dir, with its compilation
# cache, is removed before each run); push uses a temporary embedded
# server on the pipeline's store. Needs GNU time (/usr/bin/time; apt-get
# install time).
#   COUNT=3 ./scripts/bench-module-shapes.sh
#   SHAPES="functions locals" ./scripts/bench-module-shapes.sh
#   WASMSTREAM=/path/to/other/wasmstream ./scripts/bench-module-shapes.sh  # another build, e.g. a base commit
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-3}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# name: wasmshape flags (see internal/wasmgen). The 4 ABI functions come on
# top of the fillers; bodies are code bytes + 2 (locals declaration, end).
declare -A shapes=(
  [functions]="-functions 99996"                                  # 100,000 functions
  [locals]="-functions 20 -locals 50000"                          # 1,000,000 locals
  [function-code]="-functions 1 -body 524286 -code stores"        # one body of 512 KiB
  [code]="-functions 31 -body 524286 -code calls"                 # 15.5 MiB of code in bodies of 512 KiB
  [declarations]="-functions 99990 -types 9996"                   # 100,000 functions x 10,000 types
  [entries]="-data 999991"                                        # 1,000,000 section entries
  [all]="-functions 99000 -locals 10 -body 160 -types 9996 -data 989995" # every limit at once
)
order="${SHAPES:-functions locals function-code code declarations entries all go}"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version)"
if [ -n "${WASMSTREAM:-}" ]; then
  cp "$WASMSTREAM" "$dir/wasmstream"
else
  go build -ldflags "-X main.version=$(git describe --always --dirty 2>/dev/null || echo dev)" -o "$dir/wasmstream" ./cmd/wasmstream
fi
go build -o "$dir/wasmshape" ./internal/wasmgen/wasmshape

module() { # name -> path of its module
  if [ "$1" = go ]; then
    GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "$dir/go.wasm" ./examples/payment-risk/operator
  else
    # shellcheck disable=SC2086
    "$dir/wasmshape" ${shapes[$1]} -o "$dir/$1.wasm"
  fi
  echo "$dir/$1.wasm"
}

pipeline() { # name module -> path of a pipeline file running it
  cat >"$dir/$1.hcl" <<EOF
name     = "shape"
data_dir = "$dir/data-$1"
stream "IN" {
  subjects = ["in.>", "out.>"]
}
source "in" {
  stream  = "IN"
  subject = "in.>"
}
operator "op" {
  module  = "$2"
  inputs  = ["in"]
  key {
    subject_token = 1
  }
  outputs = { out = "out" }
}
sink "out" {
  subject = "out.x"
}
EOF
  echo "$dir/$1.hcl"
}

# measure LABEL CMD...: one run; prints "kB seconds".
measure() {
  /usr/bin/time -f '%M %e' -o "$dir/time" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  cat "$dir/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-14s %10s %-8s %14s %10s  %s\n' shape bytes command "max RSS (MiB)" "wall (s)" "runs (MiB)"
for name in $order; do
  wasm="$(module "$name")"
  hcl="$(pipeline "$name" "$wasm")"
  for cmd in validate push; do
    runs=()
    for _ in $(seq "$count"); do
      rm -rf "$dir/data-$name"
      if [ "$cmd" = validate ]; then
        runs+=("$(measure "$dir/wasmstream" validate "$hcl")")
      else
        runs+=("$(measure "$dir/wasmstream" operator push "$wasm" --name "$name" --config "$hcl")")
      fi
    done
    rss="$(printf '%s\n' "${runs[@]}" | awk '{ print $1 / 1024 }' | median)"
    wall="$(printf '%s\n' "${runs[@]}" | awk '{ print $2 }' | median)"
    all="$(printf '%s\n' "${runs[@]}" | awk '{ printf "%.0f ", $1 / 1024 }')"
    printf '%-14s %10d %-8s %14.0f %10.2f  %s\n' "$name" "$(stat -c %s "$wasm")" "$cmd" "$rss" "$wall" "$all"
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
