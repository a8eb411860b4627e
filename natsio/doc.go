// Package natsio does all NATS work for wasmstream.
//
//   - Server and streams: Connect starts the embedded JetStream server
//     (ServerOptions.URL == "") or connects to an external one;
//     EnsureStream and EnsureAtomicStream declare streams, and
//     DuplicateWindow reports how long a stream remembers message ids.
//   - Sources, from a stream position the engine owns and checkpoints.
//     Source is an ordered consumer without acknowledgements, for streams
//     with Limits retention: the server keeps no consumer state worth
//     recovering. AckingSource, for WorkQueue and Interest streams
//     (ErrNeedsNoAcks on a Limits stream), reads through a durable pull
//     consumer and acknowledges only through AckThrough, up to the position
//     a completed checkpoint records, so the server never removes a message
//     no completed checkpoint covers. Both stop with ErrSequenceGap instead
//     of skipping lost messages, unless the spec sets AllowGap (or
//     AcceptGapsThrough covers them), and with ErrStreamRecreated when the
//     stream is deleted and created again under them.
//   - Sinks: Sink publishes asynchronously, each message with its
//     Nats-Msg-Id when it has one (idempotent within the stream's duplicate
//     window), and accounts for every acknowledgement; it sends what a
//     disconnect left unacknowledged again, for up to an outage budget
//     (IsOutage tells an outage from a refusal); PublishAtomicBatch
//     and CommitBatches publish JetStream atomic batches, which a
//     transactional sink commits again safely after a crash.
//   - Keys: KeyExtractor takes a record's key from a subject token, a
//     header or a JSON field.
//   - Object Store: OpenObjectStore and EnsureObjectStore open buckets.
//   - Tools: PublishJSONLines feeds JSON lines into a stream, ReadStored
//     reads stored messages back.
//
// See RATIONALE.md for the decisions and BENCHMARKS.md for measured
// throughput.
package natsio
