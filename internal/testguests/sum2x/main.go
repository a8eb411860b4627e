// Command sum2x is a test guest with two inputs for the engine's recovery,
// rescale and barrier-alignment tests: per key, the sum of the records of
// each input.
//
// Records are JSON keyed by the "k" field:
//
//	{"k":"key-17","v":42}
//
// Each record adds v to the key's state "sum-<input>" (an Int64Codec value)
// and emits one output on "out", keyed by k:
//
//	{"k":"key-17","input":1,"v":42,"sum":1042}
//
// Sums commute, so the final state does not depend on how the inputs
// interleave or on how keys are spread over tasks: a run restored from any
// checkpoint, at any parallelism, must end in the state of a run that never
// stopped. Nothing is deduplicated on purpose, so a record applied twice or
// lost shows in the state. A record that is not valid JSON, lacks "k" or
// "v", has a "k" other than the record key, or arrives on an input above 1
// fails (the host dead-letters it).
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o sum2x.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(sum2x{}) }

// main is never called: the host drives the module through its exports.
func main() {}
