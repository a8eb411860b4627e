package execrun

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine"
)

// Result is what a run produced; outputs and dead letters in input order.
type Result struct {
	Operator string
	Input    string // the input's name ("stdin" for -)
	// StateDir keeps the final state; empty when it was temporary.
	StateDir    string
	Outputs     []Output
	DeadLetters []DeadLetter
	State       []StateValue
	Stats       engine.ExecStats
}

// Output is one record the operator emitted, as a pipeline would publish it.
type Output struct {
	Line     int    // the input line of the record that caused it
	Sequence uint64 // that record's number among the input's records
	Output   string // the guest's output name
	Sink     string
	Subject  string
	MsgID    string // its Nats-Msg-Id; "" for an at_least_once sink
	Key      []byte
	// Headers are the guest's, without the key header.
	Headers nats.Header
	Value   []byte
}

// DeadLetter is an input record the operator refused, with the reason a
// pipeline's dead letter carries.
type DeadLetter struct {
	Line     int
	Sequence uint64
	Subject  string // the dead-letter subject
	Reason   string
	Value    []byte // the record
}

// StateValue is one committed state entry.
type StateValue struct {
	Key   []byte // the record key it belongs to
	State string // the state's name
	// MapKey is the entry's key in a map state (stored as name 0x00 mapKey).
	MapKey    []byte
	IsMap     bool
	Value     []byte
	ExpiresAt int64 // Unix nanoseconds in its TTL's time domain; 0: never
}

// collect adds what the engine collected to r; lines maps a record's
// sequence to its input line.
func (r *Result) collect(msgs []engine.ExecMessage, lines func(uint64) int) {
	for _, m := range msgs {
		if m.DeadLetter() {
			r.DeadLetters = append(r.DeadLetters, DeadLetter{Line: lines(m.Sequence), Sequence: m.Sequence,
				Subject: m.Msg.Subject, Reason: m.Reason(), Value: m.Msg.Data})
			continue
		}
		h := maps.Clone(m.Msg.Header)
		key := []byte(h.Get(engine.HeaderKey))
		h.Del(engine.HeaderKey)
		if len(h) == 0 {
			h = nil
		}
		r.Outputs = append(r.Outputs, Output{Line: lines(m.Sequence), Sequence: m.Sequence, Output: m.Output, Sink: m.Sink,
			Subject: m.Msg.Subject, MsgID: m.Msg.MsgID, Key: key, Headers: h, Value: m.Msg.Data})
	}
}

// sortByInput orders outputs and dead letters by their input record: the
// tasks of an operator with parallelism, and the key failures found while
// routing, come in another order (a record's own outputs keep theirs).
func (r *Result) sortByInput() {
	slices.SortStableFunc(r.Outputs, func(a, b Output) int { return cmp.Compare(a.Sequence, b.Sequence) })
	slices.SortStableFunc(r.DeadLetters, func(a, b DeadLetter) int { return cmp.Compare(a.Sequence, b.Sequence) })
}

// stateValues converts the engine's entries.
func stateValues(entries []engine.StateEntry) []StateValue {
	out := make([]StateValue, len(entries))
	for i, e := range entries {
		v := StateValue{Key: []byte(e.Key), State: e.Name, Value: e.Value, ExpiresAt: e.ExpiresAt}
		if name, mapKey, ok := strings.Cut(e.Name, "\x00"); ok {
			v.State, v.MapKey, v.IsMap = name, []byte(mapKey), true
		}
		out[i] = v
	}
	return out
}
