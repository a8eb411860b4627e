package host

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmstream/wasmstream/abi"
)

// Revision 1.3 (ABI.md §6.11–6.13): a guest may collect its emits in its own
// memory and hand them over once per batch (emit_batch) instead of calling
// emit per output. To give its operator the result emit would have given,
// at the moment of the emit, it learns the output indexes (output_index) and
// the limits (emit_limits) once; the host checks every entry again.

// outputIndex: (name_ptr, name_len) -> index | BAD_ARGUMENT | UNKNOWN_OUTPUT.
func outputIndex(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.refuseInAlloc(abi.FuncOutputIndex)
	name, code := cs.name(mod, abi.FuncOutputIndex, stack[0], stack[1], abi.MaxOutputNameLen)
	if code != abi.OK {
		result(stack, int64(code))
		return
	}
	i, ok := cs.inst.output(name)
	if !ok {
		result(stack, int64(abi.ErrUnknownOutput))
		return
	}
	result(stack, int64(i))
}

// emitLimits: () -> i64 max_emits_per_record << 32 | max_value_bytes.
func emitLimits(ctx context.Context, _ api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.refuseInAlloc(abi.FuncEmitLimits)
	cfg := &cs.inst.cfg
	stack[0] = uint64(cfg.MaxEmitsPerRecord)<<32 | uint64(uint32(cfg.MaxValueLen))
}

// emitBatch: (list_ptr, list_len) -> OK | BAD_ARGUMENT | UNKNOWN_OUTPUT |
// TOO_LARGE | QUOTA_EXCEEDED. All of the list's emits are kept, or none.
func emitBatch(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.requireBatch(abi.FuncEmitBatch)
	list := cs.read(mod, abi.FuncEmitBatch, stack[0], stack[1])
	result(stack, int64(cs.emitList(list)))
}

// refuseInAlloc aborts a call made from inside ws_alloc.
func (cs *callState) refuseInAlloc(fn string) {
	if cs.phase == phaseAlloc {
		cs.abort(abi.ErrReentrant, fn, "called from inside "+abi.ExportAlloc)
	}
}

// requireBatch aborts unless ws_process runs and has reached its first
// record; unlike requireRecord it allows the end of the batch.
func (cs *callState) requireBatch(fn string) {
	cs.refuseInAlloc(fn)
	switch {
	case cs.phase != phaseProcess:
		cs.abort(abi.ErrNoRecord, fn, "called outside "+abi.ExportProcess)
	case cs.cursor < 0:
		cs.abort(abi.ErrNoRecord, fn, "called before the first "+abi.FuncRecordNext)
	}
}

// emitList adds the emits of an emit list, entries for records up to the
// current one (the last one after the end of the batch).
func (cs *callState) emitList(list []byte) abi.Code {
	cfg := &cs.inst.cfg
	out := &cs.inst.outputs
	mark := out.mark()
	lim := emitListLimits{maxRecord: min(cs.cursor, len(cs.records)-1), outputs: len(cfg.Outputs),
		maxLen: cfg.MaxValueLen, maxEmits: cfg.MaxEmitsPerRecord}
	if code := out.addList(list, lim); code != abi.OK {
		out.truncate(mark)
		return code
	}
	cs.emitted = out.emitsOf(cs.cursor) // emit's quota counts these too
	return abi.OK
}

// emitListLimits are what the entries of an emit list are checked against.
type emitListLimits struct {
	maxRecord int // the latest record an entry may name
	outputs   int // number of outputs
	maxLen    int // limits.max_value_bytes
	maxEmits  int // limits.max_emits_per_record
}

// addList adds the entries of list in order and returns OK, or the code of
// the first entry that is refused (the caller then truncates to its mark):
// an entry naming a record before the previous emit's or after
// lim.maxRecord, a truncated list or a malformed header list is
// BAD_ARGUMENT; then UNKNOWN_OUTPUT, TOO_LARGE and QUOTA_EXCEEDED as emit.
func (b *outputBuffer) addList(list []byte, lim emitListLimits) abi.Code {
	er := abi.NewEmitReader(list)
	var e abi.Emit
	for {
		more, err := er.Next(&e)
		if err != nil {
			return abi.ErrBadArgument
		}
		if !more {
			return abi.OK
		}
		if code := b.checkEmit(&e, lim); code != abi.OK {
			return code
		}
		b.add(int(e.Output), int(e.Record), e.Key, e.Value, e.Headers)
	}
}

func (b *outputBuffer) checkEmit(e *abi.Emit, lim emitListLimits) abi.Code {
	switch rec := int64(e.Record); {
	case rec > int64(lim.maxRecord) || rec < int64(b.lastRecord()):
		return abi.ErrBadArgument
	case int64(e.Output) >= int64(lim.outputs):
		return abi.ErrUnknownOutput
	case len(e.Key) > lim.maxLen || len(e.Value) > lim.maxLen || len(e.Headers) > lim.maxLen:
		return abi.ErrTooLarge
	case abi.ValidateHeaders(e.Headers) != nil:
		return abi.ErrBadArgument
	case b.emitsOf(int(rec)) >= lim.maxEmits:
		return abi.ErrQuotaExceeded
	}
	return abi.OK
}
