// Command operator is the payment-risk operator: a running total of cents
// per account, with deduplication by event id.
//
// Input records are keyed by account and carry JSON such as
//
//	{"account":"acct-47","event":"evt-47","cents":1200}
//
// An accepted event is emitted to output "out", keyed by account, as
//
//	{"account":"acct-47","event":"evt-47","cents":1200,"total":1200}
//
// with an "event-id" header. A redelivered event id produces no output and a
// debug log line. A record that is not valid JSON, lacks a field, has
// negative cents or more than the configured maximum fails, and the host
// sends it to the dead-letter subject.
//
// Config (JSON, optional): {"max_cents": N} rejects events above N cents.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o operator.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&riskOperator{}) }

// main is never called: the host drives the module through its exports.
func main() {}
