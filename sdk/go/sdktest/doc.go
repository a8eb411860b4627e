//go:build !wasip1

// Package sdktest runs a wasmstream Operator natively, against an in-memory
// fake of the wasmstream host, so that operators can be unit-tested with
// go test:
//
//	h, err := sdktest.New(&myOperator{}, sdktest.Options{Config: []byte(`{"max_cents":5000}`)})
//	...
//	res, err := h.Process(sdktest.Record{Key: []byte("acct-47"), Value: []byte(`{...}`)})
//	// res.Outputs, res.DeadLetters, res.Logs; h.State("acct-47", "total")
//
// The harness drives the same SDK code as the wasm exports do: records are
// encoded into an ABI batch, decoded by the SDK, and every host call is
// checked as the ABI specifies (name and value limits, outputs, quota,
// calls outside a record). A batch behaves as on the host: state writes and
// emits become visible only when the whole batch succeeds; a record whose
// Process fails is moved to Result.DeadLetters and the batch runs again
// without it.
//
// Limits and checks follow abi/ABI.md: state and output name lengths,
// max_value_bytes for state values and for each emitted key, value and
// header list, max_emits_per_record (per input record), log lines per call
// and line length, and NO_RECORD for record, state, emit and event-time
// calls outside a record (reported as an AbortError).
//
// What differs from the real host: there are no checkpoints, no TTL, no
// deadline, and a panic is returned as a TrapError instead of being
// dead-lettered (on the host the instance is discarded, the record goes to
// the dead-letter subject and the batch runs again on a new instance whose
// Go variables start afresh). Only one harness runs at a time per process;
// harnesses in parallel tests take turns.
package sdktest
