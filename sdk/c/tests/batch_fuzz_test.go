package tests

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmstream/wasmstream/abi"
)

// refDecode is the reference for the SDK's batch decoder: abi.BatchReader
// plus the header check the Go SDK makes. It returns whether the whole
// batch is well formed and how many records decode before the first
// malformed one.
func refDecode(batch []byte) (ok bool, records int) {
	br, err := abi.NewBatchReader(batch)
	if err != nil {
		return false, 0
	}
	var r abi.Record
	for {
		more, err := br.Next(&r)
		if err != nil || (more && abi.ValidateHeaders(r.Headers) != nil) {
			return false, records
		}
		if !more {
			return true, records
		}
		records++
	}
}

// rawGuest runs a C guest directly in wazero with a stub host whose
// record_next always says yes, so that the SDK's decoder alone decides how
// many records a batch has. The real host never sends a malformed batch;
// this checks that the SDK would still neither trap nor read past it.
type rawGuest struct {
	mod   api.Module
	nexts int
}

func newRawGuest(tb testing.TB, wasm []byte) *rawGuest {
	tb.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	tb.Cleanup(func() { _ = rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	g := &rawGuest{}
	_, err := rt.NewHostModuleBuilder(abi.ImportModule).
		NewFunctionBuilder().WithFunc(func() int32 { g.nexts++; return 1 }).Export(abi.FuncRecordNext).
		NewFunctionBuilder().WithFunc(func(int32, int32, int32) {}).Export(abi.FuncLog).
		// Every module imports state_declare: ws_init sends declarations.
		NewFunctionBuilder().WithFunc(func(int32, int32, int32, int64, int32) int32 { return 0 }).Export(abi.FuncStateDeclare).
		Instantiate(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	g.mod, err = rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize"))
	if err != nil {
		tb.Fatal(err)
	}
	if rc := g.call(tb, abi.ExportInit, 0, 0); rc != 0 {
		tb.Fatalf("ws_init = %d", rc)
	}
	return g
}

func (g *rawGuest) call(tb testing.TB, fn string, params ...uint64) int32 {
	tb.Helper()
	res, err := g.mod.ExportedFunction(fn).Call(context.Background(), params...)
	if err != nil {
		tb.Fatalf("%s trapped: %v", fn, err)
	}
	return int32(res[0])
}

// process writes batch into the ws_alloc buffer and runs ws_process.
func (g *rawGuest) process(tb testing.TB, batch []byte) (rc int32, nexts int) {
	tb.Helper()
	ptr := uint32(g.call(tb, abi.ExportAlloc, uint64(len(batch))))
	if !g.mod.Memory().Write(ptr, batch) {
		tb.Fatalf("ws_alloc(%d) = %d: outside memory", len(batch), ptr)
	}
	g.nexts = 0
	rc = g.call(tb, abi.ExportProcess, uint64(ptr), uint64(len(batch)))
	return rc, g.nexts
}

func seedBatches() [][]byte {
	one := func(hdr []byte) []byte {
		return abi.AppendRecord(abi.AppendBatchHeader(nil, 1), &abi.Record{EventTime: -5, Input: 1, Key: []byte("k"), Value: []byte("v"), Headers: hdr})
	}
	two := abi.AppendRecord(one(headers("a", "1", "a", "")), &abi.Record{Key: []byte("k2")})
	abi.PutBatchCount(two, 2)
	return [][]byte{
		abi.AppendBatchHeader(nil, 0),
		one(nil),
		one(headers("h", "v")),
		two,
		one([]byte{1, 0, 0}),              // truncated header list
		append(one(nil), 0),               // a trailing byte
		one(nil)[:20],                     // truncated record
		abi.AppendBatchHeader(nil, 1<<30), // impossible count
		{1, 0},                            // shorter than a count
	}
}

// The decoder accepts exactly the batches abi.BatchReader accepts, visits
// as many records as it decodes, and fails anything else with
// GUEST_INTERNAL instead of trapping.
func FuzzBatchDecoder(f *testing.F) {
	for _, b := range seedBatches() {
		f.Add(b)
	}
	g := newRawGuest(f, buildGuest(f, "testdata/nop.c"))
	f.Fuzz(func(t *testing.T, batch []byte) {
		if len(batch) == 0 {
			return // the host never sends an empty buffer
		}
		rc, nexts := g.process(t, batch)
		ok, records := refDecode(batch)
		want := int32(abi.OK)
		if !ok {
			want = int32(abi.ErrGuestInternal)
		}
		if rc != want || nexts != records {
			t.Fatalf("batch % x: ws_process = %d after %d records, want %d after %d", batch, rc, nexts, want, records)
		}
	})
}
