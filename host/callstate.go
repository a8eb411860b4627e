package host

import (
	"context"
	"strconv"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmstream/wasmstream/abi"
)

// phase says what the host is doing with an instance, so host functions can
// refuse calls that make no sense at that moment.
type phase uint8

const (
	phaseIdle phase = iota
	phaseAlloc
	phaseInit
	phaseProcess
	phaseMigrate
)

// callState is what host functions see of the instance that called them.
// It lives as long as the instance; fields are reset per guest call.
type callState struct {
	inst    *Instance
	phase   phase
	records []Record
	cursor  int // index of the current record; -1 before the first record_next
	emitted int // emits for the current record
	logs    int // log lines in this call
	dropped int // log lines dropped in this call
	procNs  int64
	// lastError is the last error-level log line of record lastErrorRec:
	// the reason the guest gives when it then rejects that record.
	lastError    string
	lastErrorRec int
	fault        error // first misuse or host-side error; aborts the call
}

type ctxKey struct{}

// callContext carries the callState to host functions. Host functions first
// try a type assertion (cheap), then fall back to Value in case wazero ever
// wraps the context.
type callContext struct {
	context.Context
	cs *callState
}

func (c *callContext) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c.cs
	}
	return c.Context.Value(key)
}

func stateOf(ctx context.Context) *callState {
	if c, ok := ctx.(*callContext); ok {
		return c.cs
	}
	cs, _ := ctx.Value(ctxKey{}).(*callState)
	if cs == nil {
		// A host function was reached outside a host-driven call: nothing
		// sane can be done for the guest, so stop it.
		panic(&misuse{code: abi.ErrReentrant, fn: "host", msg: "host function called outside a host-driven call"})
	}
	return cs
}

// abort records the first fault and unwinds the guest call.
func (cs *callState) abort(code abi.Code, fn, msg string) {
	m := &misuse{code: code, fn: fn, msg: msg}
	if cs.fault == nil {
		cs.fault = m
	}
	panic(m)
}

// hostFailure aborts the call because the host itself failed (e.g. storage).
func (cs *callState) hostFailure(err error) {
	if cs.fault == nil {
		cs.fault = err
	}
	panic(err)
}

// requireRecord aborts unless a record is current.
func (cs *callState) requireRecord(fn string) {
	switch {
	case cs.phase == phaseAlloc:
		cs.abort(abi.ErrReentrant, fn, "called from inside "+abi.ExportAlloc)
	case cs.phase != phaseProcess:
		cs.abort(abi.ErrNoRecord, fn, "called outside "+abi.ExportProcess+" (no current record)")
	case cs.cursor < 0:
		cs.abort(abi.ErrNoRecord, fn, "called before the first "+abi.FuncRecordNext)
	case cs.cursor >= len(cs.records):
		cs.abort(abi.ErrNoRecord, fn, "called after "+abi.FuncRecordNext+" reported the end of the batch")
	}
}

// read returns a view of guest memory or aborts with BAD_POINTER.
func (cs *callState) read(mod api.Module, fn string, ptr, length uint64) []byte {
	b, ok := mod.Memory().Read(uint32(ptr), uint32(length))
	if !ok {
		cs.abort(abi.ErrBadPointer, fn, outOfBounds(mod, ptr, length))
	}
	return b
}

func outOfBounds(mod api.Module, ptr, length uint64) string {
	return "pointer " + itoa(int64(uint32(ptr))) + " with length " + itoa(int64(uint32(length))) +
		" is outside guest memory of " + itoa(int64(mod.Memory().Size())) + " bytes"
}

// name reads a state or output name; an empty or over-long name is
// BAD_ARGUMENT, returned to the guest rather than fatal.
func (cs *callState) name(mod api.Module, fn string, ptr, length uint64, max int) ([]byte, abi.Code) {
	if uint32(length) == 0 || uint32(length) > uint32(max) {
		return nil, abi.ErrBadArgument
	}
	return cs.read(mod, fn, ptr, length), abi.OK
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
