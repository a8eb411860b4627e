package host

import (
	"context"
	"strconv"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A Go guest never gets its background GC scheduled between export calls;
// the SDK must collect by itself. Two million records that each leave 1 KiB
// of garbage (2 GB in all) must run within a 32 MiB page limit, and memory
// must stop growing: the second million may not grow it.
func TestGoGuestMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long: two million records")
	}
	ctx := context.Background()
	rt := newTestRuntime(t, EngineCompiler, 512)
	m, err := rt.Compile(ctx, "behave", testutil.GoGuestBytes(t, "./internal/testguests/behave"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := m.Instantiate(ctx, InstanceConfig{Operator: "behave", Outputs: []string{"out"}}, newMemState())
	if err != nil {
		t.Fatal(err)
	}
	const total, batch = 2_000_000, 1000
	recs := make([]Record, batch)
	for i := range recs {
		recs[i] = Record{Key: []byte("k" + strconv.Itoa(i%100)), Value: []byte("garbage")}
	}
	var pagesAtHalf uint32
	for done := 0; done < total; done += batch {
		if _, err := inst.Process(ctx, recs); err != nil {
			t.Fatalf("after %d records (memory %d pages): %v", done, inst.MemoryPages(), err)
		}
		if pagesAtHalf == 0 && done+batch >= total/2 {
			pagesAtHalf = inst.MemoryPages()
		}
	}
	end := inst.MemoryPages()
	t.Logf("memory: %d pages after %d records, %d pages after %d", pagesAtHalf, total/2, end, total)
	if end > pagesAtHalf {
		t.Fatalf("memory still growing: %d pages at half, %d at the end", pagesAtHalf, end)
	}
}
