// Command ttldedup is the Go reference implementation of the conformance
// operator "ttldedup" (conformance/OPERATORS.md): records whose id (the
// value) the key has seen within a TTL are dropped, with the SDK's Dedup
// helper, which declares the TTL to the host.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o ttldedup.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&ttlDedup{}) }

// main is never called: the host drives the module through its exports.
func main() {}
