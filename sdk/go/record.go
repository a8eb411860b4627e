package wasmstream

import (
	"iter"
	"time"

	"github.com/wasmstream/wasmstream/abi"
)

// Record is one input record. The SDK reuses one Record for every call of
// Process: neither r nor its slices may be kept after Process returns.
type Record struct {
	// Key is the record's key, as extracted by the host. State calls during
	// Process address this key.
	Key []byte
	// Value is the record's payload.
	Value []byte
	// EventTime is the time the event happened, set by the host (UTC).
	EventTime time.Time
	// Input is the index of the operator input the record arrived on, in
	// the order of the pipeline config.
	Input int

	headers []byte // encoded with abi.AppendHeader, validated at decode
}

// Header is one record header. Names are case-sensitive.
type Header struct {
	Name, Value string
}

// Header returns the value of the first header called name.
func (r *Record) Header(name string) (string, bool) {
	hr := abi.NewHeaderReader(r.headers)
	for {
		n, v, more, err := hr.Next()
		if err != nil || !more {
			return "", false
		}
		if string(n) == name {
			return string(v), true
		}
	}
}

// Headers yields every header in the order of the record's header list,
// repeated names included. The engine sorts a message's headers by name
// (byte order) and keeps the order of one name's values (abi/ABI.md §5.2),
// so a replay yields the same sequence.
func (r *Record) Headers() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		hr := abi.NewHeaderReader(r.headers)
		for {
			n, v, more, err := hr.Next()
			if err != nil || !more || !yield(string(n), string(v)) {
				return
			}
		}
	}
}

// set fills r from a decoded batch record without copying.
func (r *Record) set(ar *abi.Record) {
	r.Key = ar.Key
	r.Value = ar.Value
	r.EventTime = time.Unix(0, ar.EventTime).UTC()
	r.Input = int(ar.Input)
	r.headers = ar.Headers
}
