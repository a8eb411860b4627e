// Package b1 is the B1 harness shared by the benchmarks in internal/bench and
// the nested benchmark modules under it (internal/bench/extism): the input
// records, a state backend over a real Pebble store, and the batch loop that
// times b.N records. One copy, so every B1 figure measures the same work.
package b1

import (
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
)

const (
	// Keys is the number of distinct keys in the input.
	Keys = 100_000
	// ValueLen is the length of every record's value.
	ValueLen = 100
	// BatchSize is the number of records handed to the operator at a time.
	BatchSize = 512
)

// Records makes the B1 input: Keys distinct keys, ValueLen-byte values.
func Records() []host.Record {
	recs := make([]host.Record, Keys)
	for i := range recs {
		v := make([]byte, ValueLen)
		for j := range v {
			v[j] = byte('a' + (i+j)%26)
		}
		recs[i] = host.Record{Key: []byte(fmt.Sprintf("key-%06d", i)), Value: v, EventTime: int64(i)}
	}
	return recs
}

// Backend opens a Pebble store in a temporary directory and returns the
// state backend of operator "b1" over all key groups of task 0 of 1.
func Backend(tb testing.TB) *state.Backend {
	tb.Helper()
	store, err := state.Open(tb.TempDir(), state.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	backend, err := store.Backend(state.BackendOptions{Operator: "b1", Range: state.RangeForTask(0, 1, state.DefaultMaxParallelism), MaxParallelism: state.DefaultMaxParallelism})
	if err != nil {
		tb.Fatal(err)
	}
	return backend
}

// Processor is one implementation of the B1 operator over a batch; it
// returns the number of outputs the batch produced.
type Processor func(recs []host.Record) (outputs int, err error)

// Run warms every key into the state cache, then processes b.N records in
// batches of BatchSize, cycling over the keys, and reports records/s. It
// fails the benchmark unless every record produced one output.
func Run(b *testing.B, recs []host.Record, process Processor) {
	for start := 0; start < len(recs); start += BatchSize {
		if _, err := process(recs[start:min(start+BatchSize, len(recs))]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	outputs, pos := 0, 0
	for done := 0; done < b.N; {
		n := min(BatchSize, b.N-done, len(recs)-pos)
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
