//go:build !wasip1

package sdktest

import (
	"time"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// Record is an input record for Harness.Process.
type Record struct {
	Key, Value []byte
	// EventTime is the event time the operator sees; the zero time is sent
	// as Unix time 0.
	EventTime time.Time
	// Input is the index of the operator input the record arrives on.
	Input   int
	Headers []wasmstream.Header
}

// Output is a record the operator emitted.
type Output struct {
	Output     string // the output name passed to wasmstream.Emit
	Key, Value []byte
	Headers    []wasmstream.Header
}

// LogLine is a line the operator or the SDK logged.
type LogLine struct {
	Level wasmstream.Level
	Msg   string
}

// DeadLetter is an input record on which Process returned an error.
type DeadLetter struct {
	Record Record
	// Reason is the error line the SDK logged for the record; it contains
	// the error Process returned.
	Reason string
}

// Result is the outcome of one Harness.Process call.
type Result struct {
	// Outputs are the emits of the records that succeeded, in order.
	Outputs []Output
	// DeadLetters are the records that failed, in input order.
	DeadLetters []DeadLetter
	// Logs are every line logged while processing, failed attempts
	// included, as a host's log would show them.
	Logs []LogLine
}

// Options configure a Harness. The zero value works: any output name is
// accepted and the limits are the host's defaults.
type Options struct {
	// Config is passed to the operator's Init.
	Config []byte
	// Outputs lists the output names the pipeline wires; Emit to any other
	// fails with wasmstream.ErrUnknownOutput. Empty accepts every name.
	Outputs []string
	// MaxValueLen is limits.max_value_bytes: the largest state value and
	// the largest emitted key, value or header list. 0 means the host's
	// default, abi.DefaultMaxValueLen (1 MiB).
	MaxValueLen int
	// MaxEmitsPerRecord is limits.max_emits_per_record: the emits one input
	// record may make before Emit fails with wasmstream.ErrQuotaExceeded.
	// 0 means the host's default, 64.
	MaxEmitsPerRecord int
	// Clock gives the processing time of each batch; nil means time.Now.
	Clock func() time.Time
}
