// Package bench holds the throughput benchmarks whose results are recorded
// in BENCHMARKS.md. Run them with scripts/bench.sh.
package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

const (
	b1Keys      = 100_000
	b1ValueLen  = 100
	b1BatchSize = 512
)

// b1Records makes the B1 input: 100k distinct keys, 100-byte values.
func b1Records() []host.Record {
	recs := make([]host.Record, b1Keys)
	for i := range recs {
		v := make([]byte, b1ValueLen)
		for j := range v {
			v[j] = byte('a' + (i+j)%26)
		}
		recs[i] = host.Record{Key: []byte(fmt.Sprintf("key-%06d", i)), Value: v, EventTime: int64(i)}
	}
	return recs
}

func b1Backend(b *testing.B) *state.Backend {
	b.Helper()
	store, err := state.Open(b.TempDir(), state.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	backend, err := store.Backend(state.BackendOptions{Operator: "b1", Range: state.RangeForTask(0, 1, state.DefaultMaxParallelism), MaxParallelism: state.DefaultMaxParallelism})
	if err != nil {
		b.Fatal(err)
	}
	return backend
}

// processor is one implementation of the B1 operator over a batch.
type processor func(recs []host.Record) (outputs int, err error)

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

// runB1 warms every key into the state cache, then processes b.N records in
// batches, cycling over the keys.
func runB1(b *testing.B, recs []host.Record, process processor) {
	for start := 0; start < len(recs); start += b1BatchSize {
		if _, err := process(recs[start:min(start+b1BatchSize, len(recs))]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	outputs, pos := 0, 0
	for done := 0; done < b.N; {
		n := min(b1BatchSize, b.N-done, len(recs)-pos)
		got, err := process(recs[pos : pos+n])
		if err != nil {
			b.Fatal(err)
		}
		outputs += got
		done += n
		pos = (pos + n) % len(recs)
	}
	b.StopTimer()
	if outputs != b.N {
		b.Fatalf("%d outputs for %d records", outputs, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
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
