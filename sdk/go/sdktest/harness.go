//go:build !wasip1

package sdktest

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// Harness runs one operator against an in-memory host. It is not safe for
// concurrent use.
type Harness struct {
	op       wasmstream.Operator
	opts     Options
	state    *store
	declared declarations
}

// New initialises op with opts.Config as the host would, and returns a
// harness for it. The error wraps ErrInit (with the logged reason),
// ErrTrap or ErrAbort.
func New(op wasmstream.Operator, opts Options) (*Harness, error) {
	h := &Harness{op: op, opts: opts, state: newStore()}
	host := newInitHost(&h.opts, h.state, &h.declared, h.now())
	code, err := h.call(host, func() int32 { return hostcall.InitEntry(op, opts.Config) })
	if err != nil {
		return nil, err
	}
	if code != int32(abi.OK) {
		return nil, fmt.Errorf("%w (%v): %s", ErrInit, abi.Code(code), lastError(host.logs))
	}
	return h, nil
}

// Process sends records to the operator as one batch and returns what it
// emitted and logged. Records whose Process fails become dead letters; the
// others are committed, as on the host. The error wraps ErrInternal,
// ErrTrap or ErrAbort; then no state of the batch is committed.
func (h *Harness) Process(records ...Record) (Result, error) {
	var res Result
	pending := append([]Record(nil), records...)
	for len(pending) > 0 {
		host := newFakeHost(&h.opts, h.state, &h.declared, pending, h.now())
		code, err := h.call(host, func() int32 { return hostcall.ProcessEntry(h.op, encodeBatch(pending)) })
		res.Logs = append(res.Logs, host.logs...)
		if err != nil || code != int32(abi.ErrGuestRecord) {
			return h.finish(res, host, code, err)
		}
		h.state.rollback()
		if !host.inRecord() {
			return res, fmt.Errorf("%w: GUEST_RECORD returned outside a record", ErrInternal)
		}
		res.DeadLetters = append(res.DeadLetters, DeadLetter{Record: pending[host.idx], Reason: lastError(host.logs)})
		pending = append(pending[:host.idx:host.idx], pending[host.idx+1:]...)
	}
	h.state.commit()
	return res, nil
}

// finish commits a successful attempt or rolls back a failed one.
func (h *Harness) finish(res Result, host *fakeHost, code int32, err error) (Result, error) {
	if err == nil && code != int32(abi.OK) {
		err = fmt.Errorf("%w: code %v: %s", ErrInternal, abi.Code(code), lastError(host.logs))
	}
	if err != nil {
		h.state.rollback()
		return res, err
	}
	h.state.commit()
	res.Outputs = host.outputs
	return res, nil
}

// call installs host and runs entry, turning panics into the errors the
// host would report.
func (h *Harness) call(host *fakeHost, entry func() int32) (code int32, err error) {
	release := hostcall.Install(host)
	defer release()
	defer host.finish()
	defer func() {
		switch p := recover().(type) {
		case nil:
		case abort:
			err = &AbortError{Code: p.code, Msg: p.msg}
		default:
			record := -1
			if host.inRecord() {
				record = host.idx
			}
			err = &TrapError{Value: p, Record: record, Stack: debug.Stack()}
		}
	}()
	return entry(), nil
}

func (h *Harness) now() int64 {
	if h.opts.Clock != nil {
		return unixNano(h.opts.Clock())
	}
	return time.Now().UnixNano()
}

// State returns the committed value of state name for key.
func (h *Harness) State(key, name string) ([]byte, bool) {
	v, ok := h.state.committed[stateID{key: key, name: name}]
	return v, ok
}

// MapState returns the committed value under mapKey of map state name for
// key.
func (h *Harness) MapState(key, name, mapKey string) ([]byte, bool) {
	return h.State(key, name+"\x00"+mapKey)
}

// SetState stores value as state name of key, as if a previous batch had
// written it, e.g. to start a test from a restored checkpoint.
func (h *Harness) SetState(key, name string, value []byte) {
	h.state.committed[stateID{key: key, name: name}] = append([]byte{}, value...)
}

// StateLen returns the number of committed state values, all keys and
// names together.
func (h *Harness) StateLen() int { return len(h.state.committed) }

// lastError returns the last error-level line in logs, which is where the
// SDK says why it failed.
func lastError(logs []LogLine) string {
	for i := len(logs) - 1; i >= 0; i-- {
		if logs[i].Level == wasmstream.LevelError {
			return logs[i].Msg
		}
	}
	return "(no error logged)"
}
