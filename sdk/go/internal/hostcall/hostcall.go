// Package hostcall is the one place where the Go SDK calls the wasmstream
// host. In a guest (GOOS=wasip1) every function is a direct wasm import of
// module "wasmstream"; on every other platform the calls go to a Host that a
// test harness (package sdktest) installs, so that operators can be built,
// vetted and unit-tested natively.
//
// The functions take Go slices and convert them to the pointer/length pairs
// of the ABI (see package abi); results are the raw ABI codes.
package hostcall

// Host is the set of host functions of ABI v1, with guest memory already
// turned into slices. Results follow the ABI: a length or flag when zero or
// positive, an abi.Code when negative.
type Host interface {
	// RecordNext advances to the next record of the batch: 1, or 0 at the end.
	RecordNext() int32
	// StateGet copies the value of state name into out when it fits and
	// returns its length; abi.ErrNotFound when there is none.
	StateGet(name, out []byte) int32
	// StatePut stores value under state name for the current record's key.
	StatePut(name, value []byte) int32
	// StateDelete removes state name for the current record's key.
	StateDelete(name []byte) int32
	// Emit sends one record to the named output. headers are encoded with
	// abi.AppendHeader.
	Emit(output, key, value, headers []byte) int32
	// Log writes msg at an abi.Log* level.
	Log(level int32, msg []byte)
	// EventTime is the event time of the current record, Unix nanoseconds.
	EventTime() int64
	// ProcessingTime is the host clock at the start of the batch, Unix nanoseconds.
	ProcessingTime() int64
	// StateDeclare declares state name's version and TTL (ABI 1.1, ws_init only).
	StateDeclare(name []byte, version int32, ttlMillis int64, flags int32) int32
}
