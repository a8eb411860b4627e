// The payment-risk operator: a running total of cents per account, with
// deduplication by event id.
//
// Input records are keyed by account and carry JSON such as
//
//     {"account":"acct-47","event":"evt-47","cents":1200}
//
// An accepted event is emitted to output "out", keyed by account, as
//
//     {"account":"acct-47","event":"evt-47","cents":1200,"total":1200}
//
// with an "event-id" header. A redelivered event id produces no output and
// a debug log line. A record that is not such JSON, lacks a field, has
// negative cents or more than the configured maximum, or whose account is
// not its key, fails, and the host sends it to the dead-letter subject.
//
// Config (JSON, optional): {"max_cents": N} rejects events above N cents.
//
// Build: npm ci && npm run build   (writes risk.wasm)

import { register } from "@wasmstream/sdk";
import { RiskOperator } from "./operator";

export * from "@wasmstream/sdk/exports";

register(new RiskOperator());
