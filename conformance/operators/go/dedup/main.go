// Command dedup is the Go reference implementation of the conformance
// operator "dedup" (conformance/OPERATORS.md): the first delivery of each
// key passes, later ones are dropped.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o dedup.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(dedup{}) }

// main is never called: the host drives the module through its exports.
func main() {}
