// Command ledger1 is the Go reference implementation of the conformance
// operator "ledger1" (conformance/OPERATORS.md): a running total per key,
// stored as decimal text under the state's first version.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o ledger1.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&ledger{}) }

// main is never called: the host drives the module through its exports.
func main() {}
