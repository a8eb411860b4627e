package wasmstream

import (
	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// In a wasm guest the emits of a batch are collected in an emit list
// (ABI.md §5.3, revision 1.3) and handed to the host with one emit_batch
// call per batch, or when the list is full, instead of one emit call each.
// So that Emit returns at once what the host's emit would have returned,
// output names are resolved with output_index (once per name and instance)
// and the limits of emit_limits are checked here, in emit's order (§6.5).

// Sizes of the list: its first capacity, the size that makes Emit hand it
// over, and the largest capacity kept after a flush. The list is kept
// across batches: a Go guest that re-grew it per batch would allocate ~100
// KiB per batch, and its collections cost more than the host calls saved.
const (
	emitListInitial  = 64 << 10
	emitListFlushAt  = 48 << 10
	emitListRetained = 1 << 20
)

type emitList struct {
	buf       []byte
	record    int // batch index of the current record; -1: emit directly
	emits     int // emits of the current record
	maxEmits  int
	maxValue  int
	outputs   map[string]uint32
	refused   abi.Code // a code the host refused a list of this batch with
	lastName  string   // the output name resolved last, and its index
	lastIndex uint32
}

var emits = emitList{record: -1}

// startInstance reads the instance's limits at the end of a successful ws_init.
func (l *emitList) startInstance() {
	if !hostcall.EmitLists {
		return
	}
	limits := uint64(hostcall.EmitLimits())
	l.maxValue, l.maxEmits = int(uint32(limits)), int(limits>>32)
	l.outputs, l.lastName = map[string]uint32{}, ""
}

func (l *emitList) startBatch() {
	if l.buf == nil && hostcall.EmitLists {
		l.buf = make([]byte, 0, emitListInitial)
	}
	l.buf, l.record, l.refused = l.buf[:0], -1, abi.OK
}

func (l *emitList) startRecord(i int) {
	if hostcall.EmitLists {
		l.record, l.emits = i, 0
	}
}

// discard drops the list of a batch that fails.
func (l *emitList) discard() { l.startBatch() }

// finishBatch hands the rest of the list over; the code the host refused a
// list of the batch with, or OK.
func (l *emitList) finishBatch() abi.Code {
	l.record = -1
	l.flush()
	return l.refused
}

func (l *emitList) flush() {
	if len(l.buf) == 0 {
		return
	}
	if code := abi.Code(hostcall.EmitBatch(l.buf)); code < 0 && l.refused == abi.OK {
		l.refused = code
	}
	l.buf = l.buf[:0]
	if cap(l.buf) > emitListRetained {
		l.buf = nil // one huge emit must not pin its memory; startBatch makes a new list
	}
}

// emit collects one emit; ok is false when none is collected and the emit
// must go to the host directly (no record current, or natively).
func (l *emitList) emit(output string, key, value, headers []byte) (code abi.Code, ok bool) {
	if l.record < 0 {
		return abi.OK, false
	}
	if len(output) == 0 || len(output) > abi.MaxOutputNameLen {
		return abi.ErrBadArgument, true
	}
	index, code := l.outputIndex(output)
	switch {
	case code != abi.OK:
		return code, true
	case len(key) > l.maxValue || len(value) > l.maxValue || len(headers) > l.maxValue:
		return abi.ErrTooLarge, true
	case abi.ValidateHeaders(headers) != nil:
		return abi.ErrBadArgument, true
	case l.emits >= l.maxEmits:
		return abi.ErrQuotaExceeded, true
	}
	l.emits++
	l.buf = abi.AppendEmit(l.buf, &abi.Emit{Record: uint32(l.record), Output: index, Key: key, Value: value, Headers: headers})
	if len(l.buf) >= emitListFlushAt {
		l.flush()
	}
	return abi.OK, true
}

func (l *emitList) outputIndex(output string) (uint32, abi.Code) {
	if output == l.lastName {
		return l.lastIndex, abi.OK
	}
	index, ok := l.outputs[output]
	if !ok {
		c := hostcall.OutputIndex(stringBytes(output))
		if c < 0 {
			return 0, abi.Code(c)
		}
		index = uint32(c)
		l.outputs[output] = index
	}
	l.lastName, l.lastIndex = output, index
	return index, abi.OK
}
