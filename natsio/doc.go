// Package natsio does all NATS work for wasmstream: it runs the embedded
// JetStream server (or connects to an external one), declares streams,
// reads records from a stream position the engine owns (Source), publishes
// results with JetStream de-duplication ids (Sink), takes record keys from
// messages (KeyExtractor) and feeds JSON lines into a stream
// (PublishJSONLines).
//
// The engine owns every position: a Source is an ordered, ack-less consumer
// that starts where the last checkpoint says, and the server keeps no
// consumer state worth recovering. See RATIONALE.md for the decisions and
// BENCHMARKS.md for measured throughput.
package natsio
