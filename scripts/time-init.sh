#!/usr/bin/env bash
# Times the way from nothing to a passing test for each language:
# wasmstream init, wasmstream build and the project's own tests (make test),
# in a temp dir, first cold, then warm.
#   cold: empty caches for the project: GOCACHE and GOMODCACHE (Go),
#         CARGO_TARGET_DIR (Rust), npm_config_cache (AssemblyScript: npm ci
#         downloads the compiler from the registry); C has no cache.
#   warm: the same steps again, in a new project at the same path, with the
#         caches the cold run filled.
# The caches are temp dirs: the machine's own caches are neither used nor
# touched. The toolchains themselves must be installed
# (scripts/install-toolchains.sh).
#   LANGS="go rust c assemblyscript" ./scripts/time-init.sh
#   WASMSTREAM=path/to/wasmstream ./scripts/time-init.sh   (else it is built)
set -euo pipefail
cd "$(dirname "$0")/.."

langs="${LANGS:-go rust c assemblyscript}"
root="$(mktemp -d)"
trap 'chmod -R u+w "$root" 2>/dev/null; rm -rf "$root"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "toolchains: $(go version | cut -d' ' -f3), $(/usr/bin/rustc --version 2>/dev/null | cut -d' ' -f1-2), $(clang-19 --version 2>/dev/null | head -1 | sed 's/ (.*//'), $(cc --version | head -1), node $(node --version 2>/dev/null)"

bin="${WASMSTREAM:-}"
if [[ -z "$bin" ]]; then
  bin="$root/wasmstream"
  go build -o "$bin" ./cmd/wasmstream
fi

# now prints the time in seconds with milliseconds.
now() { date +%s.%3N; }

# step runs a command in the project, its output into the log; the seconds it took.
step() {
  local dir="$1" log="$2"
  shift 2
  local t0
  t0="$(now)"
  echo "+ $*" >>"$log"
  if ! (cd "$dir" && "$@") >>"$log" 2>&1; then
    echo "failed: $* in $dir; its output:" >&2
    tail -40 "$log" >&2
    return 1
  fi
  echo "$(now) - $t0" | bc
}

# run_once times init, build and make test of a new project of language $1
# with the caches under $2; prints "init build test total".
run_once() {
  local lang="$1" caches="$2" parent="$root/projects/$1"
  local log="$root/$lang.log"
  rm -rf "$parent"
  mkdir -p "$parent"
  local i b t
  export GOCACHE="$caches/gocache" GOMODCACHE="$caches/gomod" GOFLAGS=-mod=mod GOPROXY=off
  export CARGO_TARGET_DIR="$caches/cargo-target" npm_config_cache="$caches/npm"
  i="$(step "$parent" "$log" "$bin" init --lang "$lang" pay-totals)"
  b="$(step "$parent/pay-totals" "$log" "$bin" build)"
  t="$(step "$parent/pay-totals" "$log" make test "WASMSTREAM=$bin")"
  printf '%s %s %s %s\n' "$i" "$b" "$t" "$(echo "$i + $b + $t" | bc)"
}

rows=()
for lang in $langs; do
  caches="$root/caches/$lang"
  mkdir -p "$caches"
  echo "$lang: cold, load $(cut -d' ' -f1-3 /proc/loadavg)"
  cold="$(run_once "$lang" "$caches")"
  read -r ci cb ct cs <<<"$cold"
  echo "$lang: warm, load $(cut -d' ' -f1-3 /proc/loadavg)"
  warm="$(run_once "$lang" "$caches")"
  read -r wi wb wt ws <<<"$warm"
  rows+=("$(printf '| %s | %.1f s | %.1f s | %.1f s | **%.1f s** | %.1f s | %.1f s | %.1f s | **%.1f s** |' \
    "$lang" "$ci" "$cb" "$ct" "$cs" "$wi" "$wb" "$wt" "$ws")")
done

echo
echo "| language | cold: init | build | make test | total | warm: init | build | make test | total |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
