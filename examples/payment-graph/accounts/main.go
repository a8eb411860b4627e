// Command accounts is stage 1 of the payment-graph example: a running total
// of cents per account, with deduplication by event id.
//
// Input records are keyed by account and carry JSON such as
//
//	{"event":"evt-1","account":"acct-1","merchant":"m-1","region":"eu","cents":1200}
//
// An accepted event is emitted to output "scored", keyed by account, with
// the account's new total and whether that total is over the configured
// limit:
//
//	{"event":"evt-1","account":"acct-1","merchant":"m-1","region":"eu","cents":1200,"total":1200,"flagged":0}
//
// "flagged" is 1 or 0, not a JSON boolean: the flat JSON that every SDK
// reads alike (conformance/OPERATORS.md) has strings and integers only,
// and stage 2 is written in Rust. A redelivered event id produces no
// output. A record that is not valid JSON, lacks a field or has negative
// cents fails, and the host sends it to the dead-letter subject.
//
// Config (JSON, optional): {"flag_over_cents": N} flags totals above N
// cents; 0 or no config flags nothing.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o accounts.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&accountsOperator{}) }

// main is never called: the host drives the module through its exports.
func main() {}
