// Command counter is the Go reference implementation of the conformance
// operator "counter" (conformance/OPERATORS.md): a running total of cents
// per account, counting each event id once.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o counter.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&counter{}) }

// main is never called: the host drives the module through its exports.
func main() {}
