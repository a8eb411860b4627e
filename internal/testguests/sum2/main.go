// Command sum2 is a guest for the crash tests: per key, the sum and the
// count of the records of each of its (up to two) inputs.
//
// Records are JSON keyed by the "k" field:
//
//	{"k":"key-17","v":42}
//
// Each record adds v to the key's sum of the input it arrived on and emits
// one output on "out", keyed by k:
//
//	{"k":"key-17","input":1,"v":42,"sum":1042,"count":9}
//
// Sums are commutative, so the final state does not depend on how the two
// inputs interleave, and each output depends only on earlier records of the
// same input: a replay in any interleaving gives the same state and the same
// outputs. There is no deduplication on purpose: a record applied twice
// shows in the state. A record that is not valid JSON, lacks "k" or "v", has
// a "k" other than the record key, or arrives on an input above 1 fails
// (the host dead-letters it).
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o sum2.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(sum2{}) }

// main is never called: the host drives the module through its exports.
func main() {}
