package wasmstream

import (
	"runtime"
	"runtime/metrics"
)

// A Go wasip1 module called through exports runs no goroutine between or
// beside the calls, so the runtime's background collector never gets to
// finish a cycle and linear memory grows to the page limit. The SDK
// therefore collects itself, between records, with the pacing of GOGC:
// when the bytes allocated since the last collection exceed a share of the
// heap that survived it.
//
// Reading the allocation counter costs a few microseconds in wasm (more
// than a state get), so the collector does not read it after every record:
// it adapts the number of records between two reads to the allocation rate
// it observed, aiming at an eighth of the budget between reads, between
// 1 and 1024 records. A phase of records that allocate much right after a
// long quiet phase can therefore allocate up to 1024 records' worth before
// the first collection.

// GCPolicy says when the SDK runs runtime.GC between records.
type GCPolicy struct {
	// MinGrowth is the bytes allocated since the last collection below
	// which the SDK never collects. 0 means the default, 4 MiB.
	MinGrowth uint64
	// Percent is the allocation, in percent of the live heap after the last
	// collection, that triggers the next one, as GOGC does. 0 means the
	// default, 100.
	Percent uint64
	// Off turns the SDK's collections off: the operator then has to keep
	// its memory bounded itself.
	Off bool
}

// defaultGCPolicy is the policy in force unless SetGCPolicy changes it.
var defaultGCPolicy = GCPolicy{MinGrowth: 4 << 20, Percent: 100}

// SetGCPolicy replaces the collection policy; zero fields take their
// default. Call it from Init or an init function.
func SetGCPolicy(p GCPolicy) {
	if p.MinGrowth == 0 {
		p.MinGrowth = defaultGCPolicy.MinGrowth
	}
	if p.Percent == 0 {
		p.Percent = defaultGCPolicy.Percent
	}
	p.Percent = min(p.Percent, maxPercent)
	gc.policy = p
	gc.budget = p.MinGrowth
}

// Bounds of the number of records between two reads of the counter.
const (
	minCheckEvery = 1
	maxCheckEvery = 1024
)

// maxPercent bounds GCPolicy.Percent so that live*Percent cannot overflow.
const maxPercent = 1_000_000

// gc is the collector of the module; the wasip1 build enables it.
var gc = newCollector(defaultGCPolicy, collectEnabled)

// heapCounters reads the runtime's cumulative allocated bytes and the live
// heap after the last collection.
type heapCounters func() (allocated, live uint64)

// collector decides when to collect. Reading the counters and collecting
// are functions so that tests can drive it.
type collector struct {
	policy    GCPolicy
	enabled   bool
	every     int    // records between two checks
	records   int    // records since the last check
	lastCheck uint64 // allocated bytes at the last check
	base      uint64 // allocated bytes at the end of the last collection
	budget    uint64 // bytes to allocate past base before collecting
	read      heapCounters
	collect   func()
	collects  uint64 // collections run, for tests and diagnostics
	checks    uint64 // counter reads, for tests and diagnostics
}

func newCollector(p GCPolicy, enabled bool) *collector {
	return &collector{policy: p, enabled: enabled, every: minCheckEvery, budget: p.MinGrowth,
		read: runtimeCounters(), collect: runtime.GC}
}

// recordDone counts a processed record and checks the heap when the
// adaptive interval has passed.
func (c *collector) recordDone() {
	if !c.enabled || c.policy.Off {
		return
	}
	c.records++
	if c.records < c.every {
		return
	}
	c.check()
}

// check collects when the allocation since the last collection is over
// budget, then adapts the interval and, after a collection, the budget.
func (c *collector) check() {
	allocated, _ := c.read()
	c.checks++
	c.adapt(allocated-c.lastCheck, c.records)
	c.records = 0
	c.lastCheck = allocated
	if allocated-c.base < c.budget {
		return
	}
	c.collect()
	c.collects++
	allocated, live := c.read()
	c.base, c.lastCheck = allocated, allocated
	c.budget = max(c.policy.MinGrowth, live*c.policy.Percent/100)
}

// adapt sets the interval so that about an eighth of the budget is
// allocated between two checks at the rate just observed. It shrinks at
// once when the rate rises but at most doubles per check, so that a burst
// after a quiet phase is seen soon.
func (c *collector) adapt(grown uint64, records int) {
	perRecord := grown / uint64(max(records, 1))
	next := uint64(maxCheckEvery)
	if perRecord > 0 {
		next = c.budget / 8 / perRecord
	}
	c.every = int(min(max(next, minCheckEvery), uint64(2*c.every), maxCheckEvery))
}

// runtimeCounters returns a reader of runtime/metrics that reuses its
// sample slice, so a check does not allocate.
func runtimeCounters() heapCounters {
	samples := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	return func() (uint64, uint64) {
		metrics.Read(samples)
		return samples[0].Value.Uint64(), samples[1].Value.Uint64()
	}
}
