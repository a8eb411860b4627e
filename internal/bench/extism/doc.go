// Package extism keeps the peer comparison of BENCHMARKS.md: the B1 keyed
// counter as an Extism plug-in, called through Extism's Go SDK once per
// record, beside the same counter through wasmstream's batch ABI, in the
// same B1 harness (internal/bench/b1) over the same state backend.
//
// It is a nested Go module so that Extism's SDK never enters the main
// go.mod; its go.mod replaces github.com/wasmstream/wasmstream with the
// repository, so it measures the code in the working tree. Run it with
// scripts/bench-extism.sh, or from this directory:
//
//	go test -run '^$' -bench 'BenchmarkExtismB1$' -benchtime 50000x
package extism
