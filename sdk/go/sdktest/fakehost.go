//go:build !wasip1

package sdktest

import (
	"slices"
	"strconv"

	"github.com/wasmstream/wasmstream/abi"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// abort is the panic value of a host call that the real host would answer
// by aborting the batch (a fatal code of the registry).
type abort struct {
	code abi.Code
	msg  string
}

// Host limits of ABI v1 (abi/ABI.md §6.6 and §8) that package abi has no
// constant for.
const (
	defaultMaxEmitsPerRecord = 64
	maxLogLinesPerCall       = 1000
	maxLogLineLen            = 4096
)

// fakeHost answers the SDK's host calls for one guest call: Init (init is
// true) or one batch attempt. It implements hostcall.Host following
// abi/ABI.md.
type fakeHost struct {
	opts    *Options
	state   *store
	init    bool
	records []Record
	idx     int   // index of the current record; -1 before the first
	emitted int   // emits of the current record
	now     int64 // processing time of the call
	outputs []Output
	logs    []LogLine
	dropped int // log lines over maxLogLinesPerCall
	// declared is the harness's declarations: Init adds, records read.
	declared *declarations
}

func newFakeHost(opts *Options, st *store, d *declarations, records []Record, now int64) *fakeHost {
	return &fakeHost{opts: opts, state: st, declared: d, records: records, idx: -1, now: now}
}

// newInitHost returns the host of an Init call, where no record exists.
func newInitHost(opts *Options, st *store, d *declarations, now int64) *fakeHost {
	f := newFakeHost(opts, st, d, nil, now)
	f.init = true
	return f
}

// inRecord reports whether state and emit calls have a record to address.
func (f *fakeHost) inRecord() bool { return f.idx >= 0 && f.idx < len(f.records) }

// require aborts like the host does for a state or emit call outside a record.
func (f *fakeHost) require(call string) {
	if !f.inRecord() {
		panic(abort{code: abi.ErrNoRecord, msg: call + " called outside a record (in Init, or before or after the records of the batch)"})
	}
}

func (f *fakeHost) RecordNext() int32 {
	if f.init {
		panic(abort{code: abi.ErrNoRecord, msg: "record_next called in Init"})
	}
	f.emitted = 0
	if f.idx+1 < len(f.records) {
		f.idx++
		return 1
	}
	f.idx = len(f.records)
	return 0
}

func (f *fakeHost) id(name []byte) stateID {
	return stateID{key: string(f.records[f.idx].Key), name: string(name)}
}

func validStateName(name []byte) bool {
	return len(name) > 0 && len(name) <= abi.MaxStateNameLen
}

func (f *fakeHost) StateGet(name, out []byte) int32 {
	f.require("state_get")
	if !validStateName(name) {
		return int32(abi.ErrBadArgument)
	}
	id := f.id(name)
	v, ok, expiry := f.state.get(id)
	if !ok || !f.visible(id, v, expiry) {
		return int32(abi.ErrNotFound)
	}
	if len(v) <= len(out) {
		copy(out, v)
	}
	return int32(len(v))
}

func (f *fakeHost) StatePut(name, value []byte) int32 {
	f.require("state_put")
	switch {
	case !validStateName(name):
		return int32(abi.ErrBadArgument)
	case len(value) > f.maxValueLen():
		return int32(abi.ErrTooLarge)
	}
	f.state.put(f.id(name), value, f.expiryFor(name))
	return int32(abi.OK)
}

func (f *fakeHost) StateDelete(name []byte) int32 {
	f.require("state_delete")
	if !validStateName(name) {
		return int32(abi.ErrBadArgument)
	}
	f.state.delete(f.id(name))
	return int32(abi.OK)
}

func (f *fakeHost) Emit(output, key, value, headers []byte) int32 {
	f.require("emit")
	if code := f.checkEmit(output, key, value, headers); code != abi.OK {
		return int32(code)
	}
	f.outputs = append(f.outputs, Output{
		Output:  string(output),
		Key:     append([]byte{}, key...),
		Value:   append([]byte{}, value...),
		Headers: decodeHeaders(headers),
	})
	return int32(abi.OK)
}

// checkEmit applies the host's checks to an emit, in the host's order
// (ABI.md §6.5), and counts a successful one against the record's quota.
func (f *fakeHost) checkEmit(output, key, value, headers []byte) abi.Code {
	limit := f.maxValueLen()
	switch {
	case len(output) == 0 || len(output) > abi.MaxOutputNameLen:
		return abi.ErrBadArgument
	case len(f.opts.Outputs) > 0 && !slices.Contains(f.opts.Outputs, string(output)):
		return abi.ErrUnknownOutput
	case len(key) > limit || len(value) > limit || len(headers) > limit:
		return abi.ErrTooLarge
	case abi.ValidateHeaders(headers) != nil:
		return abi.ErrBadArgument
	case f.emitted >= f.maxEmitsPerRecord():
		return abi.ErrQuotaExceeded
	}
	f.emitted++
	return abi.OK
}

// Log keeps the line as the host logs it: an unknown level is error, a
// line is cut at 4096 bytes, and lines past 1000 in one call are dropped
// (see finish).
func (f *fakeHost) Log(level int32, msg []byte) {
	if len(f.logs) >= maxLogLinesPerCall {
		f.dropped++
		return
	}
	if level < abi.LogTrace || level > abi.LogError {
		level = abi.LogError
	}
	f.logs = append(f.logs, LogLine{Level: wasmstream.Level(level), Msg: string(msg[:min(len(msg), maxLogLineLen)])})
}

// finish adds the host's warning about dropped log lines after the call.
func (f *fakeHost) finish() {
	if f.dropped > 0 {
		f.logs = append(f.logs, LogLine{Level: wasmstream.LevelWarn,
			Msg: "guest log lines dropped: " + strconv.Itoa(f.dropped)})
	}
}

// EventTime returns the current record's event time.
func (f *fakeHost) EventTime() int64 {
	f.require("event_time")
	return unixNano(f.records[f.idx].EventTime)
}

func (f *fakeHost) ProcessingTime() int64 { return f.now }

func (f *fakeHost) maxEmitsPerRecord() int {
	if f.opts.MaxEmitsPerRecord > 0 {
		return f.opts.MaxEmitsPerRecord
	}
	return defaultMaxEmitsPerRecord
}

func (f *fakeHost) maxValueLen() int {
	if f.opts.MaxValueLen > 0 {
		return f.opts.MaxValueLen
	}
	return abi.DefaultMaxValueLen
}

// decodeHeaders decodes a validated header list; nil when empty.
func decodeHeaders(b []byte) []wasmstream.Header {
	var hs []wasmstream.Header
	hr := abi.NewHeaderReader(b)
	for {
		n, v, more, err := hr.Next()
		if err != nil || !more {
			return hs
		}
		hs = append(hs, wasmstream.Header{Name: string(n), Value: string(v)})
	}
}
