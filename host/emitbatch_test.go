package host

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
)

func emitBatchInstance(t testing.TB, m *Module, mode byte, st KeyedState, maxValueLen int) (*Instance, error) {
	return m.Instantiate(context.Background(), InstanceConfig{
		Operator:     "hostile",
		Config:       []byte{mode},
		Outputs:      []string{"other", "out"},
		BatchTimeout: 300 * time.Millisecond,
		MaxValueLen:  maxValueLen,
	}, st)
}

// Emits collected by the guest and handed over with emit_batch give the
// outputs, attribution and state that emit per record gives.
func TestEmitBatchMatchesEmit(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			rt := newTestRuntime(t, engine, 64)
			recs := records("a", "b", "a", "c", "a")
			perRecord, stDirect := processFixture(t, rt, "hostile.wasm", recs)
			batched, stBatched := processFixture(t, rt, "emitbatch.wasm", recs)
			if len(perRecord) != len(batched) {
				t.Fatalf("%d outputs with emit, %d with emit_batch", len(perRecord), len(batched))
			}
			for i := range perRecord {
				p, b := perRecord[i], batched[i]
				if p.Record != b.Record || p.Seq != b.Seq || string(p.Value) != string(b.Value) ||
					p.Output != 1 || b.Output != 1 || len(b.Key) != 0 || len(b.Headers) != 0 {
					t.Errorf("output %d: emit %+v, emit_batch %+v", i, p, b)
				}
			}
			if len(stDirect.data) != len(stBatched.data) || counter(t, stBatched, "a") != 3 {
				t.Errorf("state: emit %v, emit_batch %v", stDirect.data, stBatched.data)
			}
		})
	}
}

// processFixture runs recs through mode 0 of a fixture, with the output
// "out" second in the list so that output indexes are tested.
func processFixture(t *testing.T, rt *Runtime, fixture string, recs []Record) ([]Output, *memState) {
	t.Helper()
	st := newMemState()
	inst, err := emitBatchInstance(t, compileFixture(t, rt, fixture), 0, st, 0)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := inst.Process(context.Background(), recs)
	if err != nil {
		t.Fatal(err)
	}
	return append([]Output(nil), outs...), st
}

// A record's direct emits and its entries in an emit list share one
// sequence and one quota.
func TestEmitBatchAndEmitShareSequence(t *testing.T) {
	m := compileFixture(t, newTestRuntime(t, EngineCompiler, 64), "emitbatch.wasm")
	inst, err := emitBatchInstance(t, m, 12, newMemState(), 0)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := inst.Process(context.Background(), records("a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 6 {
		t.Fatalf("%d outputs, want 6", len(outs))
	}
	for i, o := range outs {
		if o.Record != i/3 || o.Seq != i%3 {
			t.Errorf("output %d: record %d seq %d, want %d %d", i, o.Record, o.Seq, i/3, i%3)
		}
	}
}

func TestEmitLimitsReportsTheInstanceLimits(t *testing.T) {
	m := compileFixture(t, newTestRuntime(t, EngineCompiler, 64), "emitbatch.wasm")
	inst, err := emitBatchInstance(t, m, 11, newMemState(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := inst.Process(context.Background(), records("a"))
	if err != nil {
		t.Fatal(err)
	}
	got := binary.LittleEndian.Uint64(outs[0].Value)
	if want := uint64(DefaultMaxEmitsPerRecord)<<32 | 1000; got != want {
		t.Fatalf("emit_limits = %#x, want %#x", got, want)
	}
}

// Misuse of the revision 1.3 functions ends in typed errors; a refused
// emit list adds nothing, and a failed batch leaves no state writes.
func TestEmitBatchMisuse(t *testing.T) {
	const last = 2 // records("a", "b", "c"): a code returned after the batch names its last record
	cases := []misuseCase{
		{"bad list pointer", 1, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncEmitBatch, -1},
		{"emit_batch during init", 2, true, ErrABIMisuse, abi.ErrNoRecord, abi.FuncEmitBatch, -1},
		{"emit_batch before record_next", 8, false, ErrABIMisuse, abi.ErrNoRecord, abi.FuncEmitBatch, -1},
		{"emit_batch inside ws_alloc", 13, false, ErrABIMisuse, abi.ErrReentrant, abi.FuncEmitBatch, -1},
		{"entry for a record not reached", 3, false, ErrTrap, abi.ErrBadArgument, abi.ExportProcess, last},
		{"entries out of record order", 10, false, ErrTrap, abi.ErrBadArgument, abi.ExportProcess, last},
		{"unknown output index", 4, false, ErrTrap, abi.ErrUnknownOutput, abi.ExportProcess, last},
		{"truncated list", 5, false, ErrTrap, abi.ErrBadArgument, abi.ExportProcess, last},
		{"over the emit quota", 6, false, ErrTrap, abi.ErrQuotaExceeded, abi.ExportProcess, last},
		{"value over max_value_bytes", 7, false, ErrTrap, abi.ErrTooLarge, abi.ExportProcess, last},
		{"malformed header list", 9, false, ErrTrap, abi.ErrBadArgument, abi.ExportProcess, last},
	}
	runMisuseCases(t, "emitbatch.wasm", cases, func(t *testing.T, m *Module, mode byte, st KeyedState) (*Instance, error) {
		return emitBatchInstance(t, m, mode, st, 8)
	})
}

// A refused list leaves the outputs as they were before the call.
func TestRefusedEmitListAddsNothing(t *testing.T) {
	var b outputBuffer
	b.add(0, 0, nil, []byte("kept"), nil)
	list := abi.AppendEmit(nil, &abi.Emit{Record: 1, Output: 0, Value: []byte("x")})
	list = abi.AppendEmit(list, &abi.Emit{Record: 1, Output: 5})
	m := b.mark()
	if code := b.addList(list, emitListLimits{maxRecord: 1, outputs: 1, maxLen: 8, maxEmits: 4}); code != abi.ErrUnknownOutput {
		t.Fatalf("code %v, want UNKNOWN_OUTPUT", code)
	}
	b.truncate(m)
	if outs := b.appendTo(nil); len(outs) != 1 || string(outs[0].Value) != "kept" {
		t.Fatalf("outputs after a refused list: %+v", outs)
	}
}

// FuzzEmitList: whatever bytes a guest hands emit_batch, the host never
// panics, keeps outputs in record order within the limits, and adds
// nothing when it refuses the list.
func FuzzEmitList(f *testing.F) {
	f.Add(abi.AppendEmit(nil, &abi.Emit{Record: 1, Output: 0, Key: []byte("k"), Value: []byte("v"), Headers: abi.AppendHeader(nil, "h", "x")}))
	f.Add([]byte{1, 0, 0, 0, 9, 0, 0, 0})
	f.Fuzz(func(t *testing.T, list []byte) {
		var b outputBuffer
		b.add(0, 1, nil, []byte("first"), nil)
		lim := emitListLimits{maxRecord: 3, outputs: 2, maxLen: 16, maxEmits: 3}
		m := b.mark()
		if code := b.addList(list, lim); code != abi.OK {
			b.truncate(m)
			if len(b.spans) != 1 {
				t.Fatalf("refused list (%v) left %d outputs", code, len(b.spans))
			}
			return
		}
		last := -1
		for _, o := range b.appendTo(nil) {
			if o.Record < last || o.Record > lim.maxRecord || o.Output >= lim.outputs || o.Seq >= lim.maxEmits ||
				len(o.Value) > lim.maxLen || abi.ValidateHeaders(o.Headers) != nil {
				t.Fatalf("accepted an output outside the limits: %+v", o)
			}
			last = o.Record
		}
	})
}
