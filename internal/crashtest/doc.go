// Package crashtest kills real wasmstream processes and checks that nothing
// is lost or counted twice.
//
// The tests build the CLI once, run an in-process JetStream server that
// outlives the children, start "wasmstream run" as a child process, kill it
// with SIGKILL at chosen or random moments (and at every named crash point
// of the checkpoint protocol), restart it, and compare the newest
// checkpoint's state and the stored outputs with a crash-free reference run
// of the same input. They check the design's invariants 1-3 (consistent cut,
// replay from the cut, no silent fresh start) and the idempotent sink.
//
// The package holds tests only. Run them with
//
//	go test -count=1 -v ./internal/crashtest/
//
// (-short shrinks the sizes; -v shows the CRASHTEST-SUMMARY lines of the
// kill loops). The kill loops log the seed of their random kill delays;
// CRASHTEST_SEED=<seed> draws the same delays again.
package crashtest
