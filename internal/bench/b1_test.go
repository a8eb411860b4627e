// Package bench holds the throughput benchmarks whose results are recorded
// in BENCHMARKS.md. Run them with scripts/bench.sh.
package bench

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/bench/b1"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The B1 harness lives in package b1 so that nested benchmark modules
// (internal/bench/extism) run the same one; these names keep the callers here short.
const (
	b1Keys      = b1.Keys
	b1ValueLen  = b1.ValueLen
	b1BatchSize = b1.BatchSize
)

func b1Records() []host.Record              { return b1.Records() }
func b1Backend(b *testing.B) *state.Backend { return b1.Backend(b) }

// processor is one implementation of the B1 operator over a batch.
type processor = b1.Processor

func runB1(b *testing.B, recs []host.Record, process processor) { b1.Run(b, recs, process) }

// BenchmarkB1 runs the B1 operator (per record: one state get, one put, one
// emit) over 100k distinct keys with 100-byte records, once as the Go guest
// in wazero and once as the same logic in native Go, through the same state
// backend and batch loop. Compare the records/s metrics of the two.
func BenchmarkB1(b *testing.B) {
	recs := b1Records()
	b.Run("wasm-go", func(b *testing.B) {
		backend := b1Backend(b)
		inst := b1Instance(b, backend)
		runB1(b, recs, func(batch []host.Record) (int, error) {
			outs, err := inst.Process(context.Background(), batch)
			return len(outs), err
		})
	})
	b.Run("native", func(b *testing.B) {
		n := &nativeB1{backend: b1Backend(b)}
		runB1(b, recs, n.process)
	})
}

func b1Instance(b *testing.B, backend *state.Backend) *host.Instance {
	b.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close(ctx) })
	mod, err := rt.Compile(ctx, "b1", testutil.GoGuestBytes(b, "./internal/testguests/bench"))
	if err != nil {
		b.Fatal(err)
	}
	inst, err := mod.Instantiate(ctx, host.InstanceConfig{Operator: "b1", Outputs: []string{"out"}}, backend)
	if err != nil {
		b.Fatal(err)
	}
	return inst
}

// nativeB1 is the B1 operator as a Go function with the host's semantics:
// a batch that fails is rolled back, outputs are copied into an arena.
type nativeB1 struct {
	backend *state.Backend
	arena   []byte
	spans   []int
	scratch [8]byte
}

var countName = []byte("count")

func (n *nativeB1) process(recs []host.Record) (int, error) {
	n.arena, n.spans = n.arena[:0], n.spans[:0]
	n.backend.BeginBatch()
	for i := range recs {
		if err := n.record(&recs[i]); err != nil {
			n.backend.RollbackBatch()
			return 0, err
		}
	}
	n.backend.CommitBatch()
	return len(n.spans), nil
}

func (n *nativeB1) record(r *host.Record) error {
	if err := n.backend.SetCurrentKey(r.Key); err != nil {
		return err
	}
	v, found, err := n.backend.Get(countName)
	if err != nil {
		return err
	}
	var c uint64
	if found && len(v) == 8 {
		c = binary.LittleEndian.Uint64(v)
	}
	binary.LittleEndian.PutUint64(n.scratch[:], c+1)
	if err := n.backend.Put(countName, n.scratch[:]); err != nil {
		return err
	}
	n.arena = append(n.arena, r.Key...)
	n.arena = append(n.arena, r.Value...)
	n.spans = append(n.spans, len(n.arena))
	return nil
}
