package extism

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/bench/b1"
	"github.com/wasmstream/wasmstream/internal/state"
)

// smallInput is 1,000 records over 37 keys in batches of b1.BatchSize, so
// keys repeat within and across batches and counts reach 28.
func smallInput() (recs []host.Record, want map[string]uint64) {
	want = map[string]uint64{}
	for i := range 1000 {
		key := fmt.Sprintf("key-%02d", i*7%37)
		recs = append(recs, host.Record{Key: []byte(key), Value: []byte(fmt.Sprintf("value-%d", i)), EventTime: int64(i)})
		want[key]++
	}
	return recs, want
}

type output struct{ key, value []byte }

// TestSameWork checks that the benchmark's three counters do equal work on
// a small input: the Extism plug-in and the wasmstream Go guest emit the
// same records (key and value) in the same order and leave the same
// "count" state; the WAT counter emits one output per record and leaves the
// same counts under its state name "n" (its outputs carry the count, not
// the record, so only their number is compared).
func TestSameWork(t *testing.T) {
	recs, want := smallInput()

	extismBackend := b1.Backend(t)
	c := newExtismCounter(t, extismBackend, extismTimeoutMS)
	var extismOuts []output
	c.keep = func(k, v []byte) { extismOuts = append(extismOuts, output{bytes.Clone(k), bytes.Clone(v)}) }
	runSmall(t, recs, c.process)

	goBackend := b1.Backend(t)
	goInst := wasmstreamInstance(t, goBackend, goGuest(t))
	var goOuts []output
	runSmall(t, recs, func(batch []host.Record) (int, error) {
		outs, err := goInst.Process(context.Background(), batch)
		for _, o := range outs {
			goOuts = append(goOuts, output{bytes.Clone(o.Key), bytes.Clone(o.Value)})
		}
		return len(outs), err
	})

	watBackend := b1.Backend(t)
	watInst := wasmstreamInstance(t, watBackend, watGuest(t))
	watOutputs := runSmall(t, recs, processBatches(watInst))

	if len(extismOuts) != len(recs) || len(goOuts) != len(recs) || watOutputs != len(recs) {
		t.Fatalf("outputs: extism %d, wasmstream-go %d, wasmstream-wat %d; want %d each", len(extismOuts), len(goOuts), watOutputs, len(recs))
	}
	for i, r := range recs {
		if e, g := extismOuts[i], goOuts[i]; !bytes.Equal(e.key, r.Key) || !bytes.Equal(e.value, r.Value) || !bytes.Equal(g.key, r.Key) || !bytes.Equal(g.value, r.Value) {
			t.Fatalf("output %d: extism %q=%q, wasmstream-go %q=%q; want %q=%q", i, e.key, e.value, g.key, g.value, r.Key, r.Value)
		}
	}
	for key, n := range want {
		for _, side := range []struct {
			name    string
			backend *state.Backend
			state   string
		}{{"extism", extismBackend, "count"}, {"wasmstream-go", goBackend, "count"}, {"wasmstream-wat", watBackend, "n"}} {
			if got := countOf(t, side.backend, key, side.state); got != n {
				t.Errorf("%s: count of %s = %d, want %d", side.name, key, got, n)
			}
		}
	}
}

// runSmall feeds recs to process in batches of b1.BatchSize and returns the
// number of outputs.
func runSmall(t *testing.T, recs []host.Record, process b1.Processor) int {
	t.Helper()
	total := 0
	for start := 0; start < len(recs); start += b1.BatchSize {
		n, err := process(recs[start:min(start+b1.BatchSize, len(recs))])
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

func countOf(t *testing.T, backend *state.Backend, key, name string) uint64 {
	t.Helper()
	if err := backend.SetCurrentKey([]byte(key)); err != nil {
		t.Fatal(err)
	}
	v, found, err := backend.Get([]byte(name))
	if err != nil || !found || len(v) != 8 {
		t.Fatalf("state %s of %s: %x, found %v, %v", name, key, v, found, err)
	}
	return binary.LittleEndian.Uint64(v)
}
