// Package crashtest kills real wasmstream processes and checks that nothing
// is lost or counted twice.
//
// The tests build the CLI once, run an in-process JetStream server that
// outlives the children, start "wasmstream run" as a child process, kill it
// with SIGKILL at chosen or random moments (and at every named crash point
// of the checkpoint protocol), restart it, and compare the newest
// checkpoint's state and the stored outputs with a crash-free reference run
// of the same input. They check the design's invariants 1-3 (consistent cut,
// replay from the cut, no silent fresh start) and 4 for every sink mode
// (sinks_*_test.go): a recorder on its own connection sees every output
// that ever becomes visible; transactional outputs must never be visible
// before their checkpoint completed, whole atomic batches only, exactly
// once; idempotent ones exactly once after JetStream's deduplication;
// at_least_once ones at least once, their duplicates counted. A dataflow
// graph (three operators through two exchange streams) gets a kill loop of
// its own (graph_killloop_test.go; CRASHTEST_GRAPH_KILLS=50 runs the
// issue's 50 kills). A NATS
// server restart or freeze of a few seconds mid-run must lose nothing
// either, and the pipeline must ride it out without exiting
// (server.outage_budget).
//
// The package holds tests only. Run them with
//
//	go test -count=1 -v ./internal/crashtest/
//
// (-short shrinks the sizes and skips the sink kill loops, the
// transactional crash points and the server restarts and freezes; -v shows
// the CRASHTEST-SUMMARY lines of the kill loops and outages). The kill loops log the seed of their random kill delays;
// CRASHTEST_SEED=<seed> draws the same delays again. Tests of engine bugs
// that are known and not fixed yet are skipped unless CRASHTEST_KNOWN_BUGS=1.
package crashtest
