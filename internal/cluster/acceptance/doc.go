// Package acceptance holds the black-box acceptance tests of one pipeline
// run by several `wasmstream worker` processes on a 3-node NATS JetStream
// cluster (design ../../../shared/cluster.md §6, acceptance criteria in
// §7 phase 1). It has tests only; this file is its sole non-test file.
//
// Each test starts a real cluster (package clustertest: nats-server
// children that can be SIGKILLed), creates the pipeline's R3 streams,
// writes one pipeline file per worker (they differ only in data_dir),
// starts the workers as children of the test, publishes records over
// about 200 keys and checks the sink stream through a recorder on a
// connection of its own:
//
//   - every output the model expects is stored exactly once after
//     JetStream's deduplication, with the payload the model gives, and
//     nothing else is stored (accounted by Nats-Msg-Id and by payload);
//   - per key, the stored outputs are 1..n once each, in increasing order,
//     with count == seq: state applied twice, or lost, shows even where
//     deduplication hid the output;
//   - the workers exit 0 within 30 s of SIGTERM.
//
// The operator is internal/testguests/sum2 and each record carries its
// key's sequence number as its value, so the output of a key's n-th record
// has count n and sum n(n+1)/2. The reference is a model of that in Go,
// not a single-process `wasmstream run`: the output of sum2 is simple
// enough, and its ids follow docs/sinks.md (<pipeline>.<operator>.<source>.<stream sequence>.0),
// which is what a single process would store.
//
// A failing test prints the end of every worker's log (kept in the test's
// temporary directory) and, through clustertest, of every node's.
//
// Run them with
//
//	go test -count=1 -v -timeout 30m ./internal/cluster/acceptance/
//
// (-short: 20,000 records instead of 100,000). ACCEPTANCE_SEED=<seed>
// draws the same keys and the same killed worker again; every test logs
// its seed.
package acceptance
