package wasmstream

import "testing"

// fakeHeap simulates the runtime's counters for the collector.
type fakeHeap struct {
	allocated, live uint64
	liveAfterGC     uint64
	collects        int
}

func (h *fakeHeap) counters() (uint64, uint64) { return h.allocated, h.live }

func (h *fakeHeap) collect() {
	h.collects++
	h.live = h.liveAfterGC
}

func newTestCollector(p GCPolicy, h *fakeHeap) *collector {
	c := newCollector(p, true)
	c.read = h.counters
	c.collect = h.collect
	return c
}

// run processes records that each allocate perRecord bytes.
func (h *fakeHeap) run(c *collector, records int, perRecord uint64) {
	for range records {
		h.allocated += perRecord
		c.recordDone()
	}
}

func TestCollectorKeepsAllocationBetweenCollectionsBounded(t *testing.T) {
	for _, perRecord := range []uint64{10, 1000, 100_000, 10 << 20} {
		h := &fakeHeap{}
		c := newTestCollector(GCPolicy{MinGrowth: 1 << 20, Percent: 100}, h)
		var worst, last uint64
		lastCollects := 0
		for range 20000 {
			h.run(c, 1, perRecord)
			if h.collects != lastCollects {
				lastCollects, last = h.collects, h.allocated
			}
			worst = max(worst, h.allocated-last)
		}
		// Budget, plus an eighth of it between checks, plus one record.
		if bound := uint64(1<<20) + (1<<20)/8 + perRecord; worst > bound+perRecord {
			t.Errorf("%d B/record: %d bytes allocated without a collection, want at most %d", perRecord, worst, bound)
		}
		if perRecord*20000 > 2<<20 && h.collects == 0 {
			t.Errorf("%d B/record: never collected", perRecord)
		}
	}
}

func TestCollectorBudgetFollowsLiveHeap(t *testing.T) {
	h := &fakeHeap{liveAfterGC: 10 << 20}
	c := newTestCollector(GCPolicy{MinGrowth: 1 << 20, Percent: 50}, h)
	var at []uint64 // allocated bytes at each collection
	c.collect = func() {
		h.collect()
		at = append(at, h.allocated)
	}
	h.run(c, 20000, 1000) // 20 MB
	if len(at) < 2 {
		t.Fatalf("%d collections after 20 MB, want at least 2", len(at))
	}
	if want := uint64(5 << 20); c.budget != want {
		t.Fatalf("budget = %d after a collection leaving 10 MiB live at Percent 50, want %d", c.budget, want)
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i] - at[i-1]; gap < 5<<20 {
			t.Fatalf("collection %d came %d bytes after the previous one, under the 5 MiB budget", i, gap)
		}
	}
}

func TestCollectorChecksRarelyWhenNothingIsAllocated(t *testing.T) {
	h := &fakeHeap{}
	c := newTestCollector(defaultGCPolicy, h)
	h.run(c, 1_000_000, 0)
	// The interval doubles up to maxCheckEvery: a few hundred reads for a
	// million records, not a million.
	if c.checks > 1_000_000/maxCheckEvery+20 {
		t.Fatalf("%d counter reads for a million records that allocate nothing", c.checks)
	}
	if c.every != maxCheckEvery {
		t.Fatalf("interval %d, want %d", c.every, maxCheckEvery)
	}
}

func TestCollectorChecksOftenWhenRecordsAllocateMuch(t *testing.T) {
	h := &fakeHeap{}
	c := newTestCollector(GCPolicy{MinGrowth: 1 << 20, Percent: 100}, h)
	h.run(c, 1000, 1<<20)
	if c.every != minCheckEvery {
		t.Fatalf("interval %d with 1 MiB per record, want %d", c.every, minCheckEvery)
	}
}

func TestCollectorOff(t *testing.T) {
	for _, tt := range []struct {
		name    string
		policy  GCPolicy
		enabled bool
	}{
		{"policy off", GCPolicy{MinGrowth: 1, Percent: 100, Off: true}, true},
		{"not wasip1", GCPolicy{MinGrowth: 1, Percent: 100}, false},
	} {
		h := &fakeHeap{}
		c := newTestCollector(tt.policy, h)
		c.enabled = tt.enabled
		h.run(c, 1000, 1<<20)
		if h.collects != 0 || c.checks != 0 {
			t.Errorf("%s: %d collections, %d checks", tt.name, h.collects, c.checks)
		}
	}
}

func TestSetGCPolicyDefaults(t *testing.T) {
	defer func(saved GCPolicy) { SetGCPolicy(saved) }(gc.policy)
	SetGCPolicy(GCPolicy{Percent: 50})
	want := GCPolicy{MinGrowth: defaultGCPolicy.MinGrowth, Percent: 50}
	if gc.policy != want {
		t.Fatalf("policy = %+v, want %+v", gc.policy, want)
	}
}

func TestRuntimeCountersDoNotAllocate(t *testing.T) {
	read := runtimeCounters()
	if a := testing.AllocsPerRun(100, func() { read() }); a != 0 {
		t.Fatalf("reading the heap counters allocates %v times", a)
	}
}
