// Command operator is the payment-limits operator: payments checked against
// a per-account spending limit, joining two inputs keyed by account.
//
// Input 0 carries account-limit updates, input 1 payments, both keyed by
// the "account" field:
//
//	{"account":"acct-1","limit_cents":50000}
//	{"id":"evt-1","account":"acct-1","amount_cents":1200}
//
// A limit update replaces the account's limit and emits nothing. Each
// payment whose id the account has not seen before gets one decision on
// output "decisions", keyed by account, with a "payment-id" header:
//
//	{"id":"evt-1","account":"acct-1","amount_cents":1200,"spent_cents":1200,"limit_cents":50000,"decision":"approved"}
//
// "no-limit" when the account has no limit yet, "over-limit" when the
// payment would take the spent total past the limit, else "approved", the
// only decision that adds to the spent total. A payment id seen before is
// ignored (a debug log line, no output). A record that is not valid JSON or
// lacks a field fails, and the host sends it to the dead-letter subject.
//
// The operator takes no config.
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o limits.wasm .
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&limitsOperator{}) }

// main is never called: the host drives the module through its exports.
func main() {}
