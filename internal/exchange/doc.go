// Package exchange is the wire format of the streams that carry records from one operator to
// another: which stream and subjects an edge of the dataflow graph uses, the Nats-Msg-Id of a
// record a producer task publishes, and the in-band barrier marker. FORMAT.md specifies it,
// with its version and change log; this package is its one implementation.
//
// The package is a leaf: standard library only, no NATS client, no server, no state store, so
// the engine, the CLI and tests share one copy of the format. Creating the streams on
// JetStream is internal/exchange/exchangejs.
package exchange
