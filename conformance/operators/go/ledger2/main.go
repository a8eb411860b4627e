// Command ledger2 is the Go reference implementation of the conformance
// operator "ledger2" (conformance/OPERATORS.md): ledger1's running total
// in a new encoding, version 2 of the state, with the migration from
// version 1 that an upgrade from ledger1 runs.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o ledger2.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&ledger{}) }

// main is never called: the host drives the module through its exports.
func main() {}
