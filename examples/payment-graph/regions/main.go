// Command regions is stage 3 of the payment-graph example: totals per
// region of the payments the merchants stage passes on.
//
// Input records are keyed by region and carry one accepted payment as the
// merchants stage emits it:
//
//	{"event":"evt-1","merchant":"m-1","region":"eu","cents":1200,"flagged":0}
//
// Each one updates its region's count of payments, cents and count of
// flagged payments, and the region's new totals are emitted to output
// "totals", keyed by region:
//
//	{"region":"eu","count":1,"cents":1200,"flagged":0}
//
// A record that is not valid JSON, lacks a field or has another region than
// its key fails, and the host sends it to the dead-letter subject.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o regions.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(regionsOperator{}) }

// main is never called: the host drives the module through its exports.
func main() {}
