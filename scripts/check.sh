#!/usr/bin/env bash
# The pre-merge check: formatting, vet, the whole test suite, and a tidy
# go.mod with a clean tree.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "not gofmt-ed:" >&2
  echo "$unformatted" >&2
  exit 1
fi

echo "== go vet"
go vet ./...
GOOS=wasip1 GOARCH=wasm go vet ./sdk/go/... ./examples/... ./internal/testguests/... ./conformance/operators/go/...
# The nested module of the Extism peer benchmark (its own go.mod).
(cd internal/bench/extism && go vet ./... && GOOS=wasip1 GOARCH=wasm go vet ./guest)

echo "== go mod tidy"
go mod tidy
(cd internal/bench/extism && go mod tidy)
if ! git diff --quiet -- go.mod go.sum internal/bench/extism/go.mod internal/bench/extism/go.sum; then
  echo "go.mod/go.sum are not tidy: commit the result of go mod tidy" >&2
  git diff -- go.mod go.sum internal/bench/extism/go.mod internal/bench/extism/go.sum >&2
  exit 1
fi

./scripts/test.sh

echo "== clean tree"
if [ -n "$(git status --porcelain)" ]; then
  echo "the checks left changes behind:" >&2
  git status --porcelain >&2
  exit 1
fi
echo "check: ok"
