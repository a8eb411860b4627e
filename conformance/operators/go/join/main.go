// Command join is the Go reference implementation of the conformance
// operator "join" (conformance/OPERATORS.md): payments on input 0 are
// checked against the per-account limit that input 1 sets.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o join.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&join{}) }

// main is never called: the host drives the module through its exports.
func main() {}
