package wasmstream

import (
	"strconv"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// The body of the module's exports, shared by the wasip1 exports and the
// native test harness.

// current is the Record handed to Process, reused for every record so the
// hot path does not allocate.
var current Record

// errNoOperator is logged by ws_init when the module never called Register.
const errNoOperator = "wasmstream: no operator registered: call wasmstream.Register(yourOperator) " +
	"from an init function of package main"

// initOperator runs op.Init on a private copy of config (nil when empty),
// because the host reuses the buffer config lives in.
func initOperator(op Operator, config []byte) abi.Code {
	if op == nil {
		Log(LevelError, errNoOperator)
		return abi.ErrGuestInternal
	}
	var cfg []byte
	if len(config) > 0 {
		cfg = append([]byte(nil), config...)
	}
	if err := op.Init(cfg); err != nil {
		Log(LevelError, "wasmstream: operator Init rejected its config: "+err.Error())
		return abi.ErrGuestConfig
	}
	return sendDeclarations()
}

// processBatch decodes batch and runs op.Process on each record, after
// record_next has moved the host to that record. It stops at the first
// record Process fails on, so that the host can isolate it.
func processBatch(op Operator, batch []byte) abi.Code {
	br, err := abi.NewBatchReader(batch)
	if err != nil {
		return internalError("ws_process: malformed batch header")
	}
	var ar abi.Record
	for i := 0; ; i++ {
		more, err := br.Next(&ar)
		if err != nil || (more && abi.ValidateHeaders(ar.Headers) != nil) {
			return internalError("ws_process: malformed record " + strconv.Itoa(i) + " in the batch")
		}
		if !more {
			break
		}
		if hostcall.RecordNext() != 1 {
			return internalError("ws_process: record_next says the host has no record " + strconv.Itoa(i) + " but the batch has it")
		}
		current.set(&ar)
		err = op.Process(&current)
		gc.recordDone()
		if err != nil {
			Log(LevelError, "wasmstream: Process failed, the record goes to dead letters: "+err.Error())
			return abi.ErrGuestRecord
		}
	}
	current = Record{}
	return abi.OK
}

// internalError logs a failure of the SDK or of the host protocol.
func internalError(msg string) abi.Code {
	Log(LevelError, "wasmstream: "+msg)
	return abi.ErrGuestInternal
}
