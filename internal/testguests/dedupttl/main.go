// Command dedupttl is a guest for the state TTL tests: it drops records
// whose id it has seen for the same key, remembering ids in the map state
// "seen" (entries "seen\x00<id>" = 0x01, the layout of the SDK's Dedup).
//
// Records are JSON keyed by the "k" field: {"k":"acct-1","id":"42"}. Each
// record not seen before is emitted on "out" as it came.
//
// Config: empty — the map is not declared, so the pipeline config's state
// block decides its TTL; or {"ttl_ms":N} — the module declares it with
// wasmstream.NewDedup (TTL N ms), which overrides the config.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o dedupttl.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&dedupOp{}) }

// main is never called: the host drives the module through its exports.
func main() {}
