// Package exchangejs creates and trims the JetStream streams of the dataflow graph's edges, in
// the shape internal/exchange/FORMAT.md §2 specifies. It is the only part of the exchange that
// needs a NATS connection; names, record ids and markers are internal/exchange.
package exchangejs
