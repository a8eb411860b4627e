// Command echo is a pass-through guest for the engine's output-size tests.
// For every record it adds 1 to the key's state "count", then emits two
// outputs on "out", keyed by the record key: first a short note
// ("<n> bytes", n the value's length), then the record's value unchanged.
// The note comes first so that a test can see that a record whose second
// output cannot be published loses its first one too, and the count shows
// that the record's state write was rolled back.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o echo.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(echo{}) }

// main is never called: the host drives the module through its exports.
func main() {}
