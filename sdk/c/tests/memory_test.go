package tests

import (
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/host"
)

// runPages runs batches from next until total records and returns the
// guest's memory pages after the first tenth and at the end.
func runPages(t *testing.T, g *guest, total, batch int, next func(n int) host.Record) (warm, end uint32) {
	t.Helper()
	recs := make([]host.Record, batch)
	for done := 0; done < total; done += batch {
		for i := range recs {
			recs[i] = next(done + i)
		}
		if _, err := g.process(recs...); err != nil {
			t.Fatalf("after %d records (memory %d pages): %v", done, g.inst.MemoryPages(), err)
		}
		if done < total/10 {
			warm = g.inst.MemoryPages()
		}
	}
	return warm, g.inst.MemoryPages()
}

// The payment-risk operator allocates nothing per record: memory after
// 300,000 records is what it was after the first 30,000.
func TestRiskMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 300,000 records")
	}
	g := newGuest(t, riskWasm(t), host.InstanceConfig{}).mustStart()
	warm, end := runPages(t, g, 300_000, 512, func(n int) host.Record {
		acct := fmt.Sprintf("acct-%d", n%64)
		return rec(acct, fmt.Sprintf(`{"account":%q,"event":"e%d","cents":1}`, acct, n%1000))
	})
	t.Logf("memory: %d pages after 30,000 records, %d after 300,000", warm, end)
	if end != warm {
		t.Fatalf("memory grew from %d to %d pages", warm, end)
	}
}

// Large state values and headers make the SDK grow its buffers; it gives
// them back after the record, so memory does not creep up.
func TestLargeValuesMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	g := startProbe(t, "")
	cmds := []string{"put big 300000", "get big", "big-header 200000", "put mid 5000", "get mid", "add n 1"}
	warm, end := runPages(t, g, 1_200, 6, func(n int) host.Record {
		return rec(fmt.Sprintf("k%d", n%7), cmds[n%len(cmds)])
	})
	t.Logf("memory: %d pages after 120 records, %d after 1,200", warm, end)
	if end != warm {
		t.Fatalf("memory grew from %d to %d pages", warm, end)
	}
}
