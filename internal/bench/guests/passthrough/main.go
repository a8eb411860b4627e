// Command passthrough is the Go pass-through guest of the yardstick
// benchmark (internal/bench/yardstick_test.go): every record is emitted
// unchanged to output "out" with its key and value, and no state is read
// or written. The C and Rust guests beside it do the same.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o passthrough.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(passthrough{}) }

// main is never called: the host drives the module through its exports.
func main() {}

type passthrough struct{}

// Init ignores the config.
func (passthrough) Init([]byte) error { return nil }

// Process emits the record as it came.
func (passthrough) Process(r *wasmstream.Record) error {
	return wasmstream.Emit("out", r.Key, r.Value)
}
