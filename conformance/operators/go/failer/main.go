// Command failer is the Go reference implementation of the conformance
// operator "failer" (conformance/OPERATORS.md): it counts records per key,
// and fails or traps on records marked to.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o failer.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&failer{}) }

// main is never called: the host drives the module through its exports.
func main() {}
