package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// A cluster part runs only its tasks: its sources read every record and
// keep those of its key groups (filter-on-read), its checkpoints take the
// cluster coordinator's ids, its Persist sees only its tasks' entries, and
// a stop takes no final checkpoint.
func TestClusterPartRunsOnlyItsTasks(t *testing.T) {
	s := newSumSetup(t, 4)
	cfg := s.load(t)
	mine := []int{1, 3}
	var (
		mu        sync.Mutex
		persisted []checkpoint.Manifest
	)
	persist := func(_ context.Context, m checkpoint.Manifest, db *pebble.DB) error {
		mu.Lock()
		defer mu.Unlock()
		persisted = append(persisted, m)
		return nil
	}
	opts := quietOptions(t, Options{Cluster: &ClusterPart{Tasks: map[string][]int{"sum": mine}, Persist: persist, Worker: "w7"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	recs := sumRecords(3000, 40, 1)
	var ours []sumRecord
	for _, r := range recs {
		task := state.TaskForKeyGroup(state.KeyGroup([]byte(r.key), cfg.Operators[0].MaxParallelism), 4, cfg.Operators[0].MaxParallelism)
		if slices.Contains(mine, task) {
			ours = append(ours, r)
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	publishSums(t, p.Reach(), recs)
	waitUntil(t, "the part to process its records", func() bool { return p.Stats().Processed == uint64(len(ours)) })

	r, err := p.TriggerID(ctx, 7, 1, false)
	if err != nil || r.Error != "" || r.ID != 7 {
		t.Fatalf("TriggerID(7) = %+v, %v; want checkpoint 7", r, err)
	}
	if r, _ := p.TriggerID(ctx, 5, 1, false); !strings.Contains(r.Error, "stale") {
		t.Errorf("TriggerID(5) after 7 = %+v; want a stale-id error", r)
	}
	stop()
	if err := <-ran; err != nil {
		t.Fatalf("Run after the stop: %v", err)
	}
	if p.Stats().Processed != uint64(len(ours)) {
		t.Errorf("processed %d records, want the %d of tasks %v", p.Stats().Processed, len(ours), mine)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(persisted) != 1 || persisted[0].ID != 7 {
		t.Fatalf("persisted %d checkpoints %v; want only 7 (no final checkpoint at the stop)", len(persisted), ids(persisted))
	}
	m := persisted[0]
	var starts []int
	for _, e := range m.Operators[0].Tasks {
		starts = append(starts, e.Start)
		if e.Inputs["a"] == 0 && e.Inputs["b"] == 0 {
			t.Errorf("task entry %+v holds no position", e)
		}
	}
	maxPar := cfg.Operators[0].MaxParallelism
	want := []int{state.RangeForTask(1, 4, maxPar).Start, state.RangeForTask(3, 4, maxPar).Start}
	if !slices.Equal(starts, want) {
		t.Errorf("manifest task entries start at %v, want those of tasks %v: %v", starts, mine, want)
	}
	diffSums(t, "last outputs", lastOutputSums(t, cfg), expectedSums(ours))
	for _, m := range readSubject(t, cfg, sumSubjectOut) {
		if got := m.Header.Get(HeaderWorker); got != "w7" {
			t.Fatalf("output %q has %s %q, want the part's worker w7", m.Data, HeaderWorker, got)
		}
	}
}

func ids(ms []checkpoint.Manifest) []uint64 {
	var out []uint64
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// On a cluster a dead worker's outputs replay only after the worker
// timeout, or at worst the membership lease: the duplicate window must
// cover both too.
func TestClusterReplayHorizon(t *testing.T) {
	cfg := &config.Pipeline{Server: config.Server{OutageBudget: 30 * time.Second}}
	single := pipelineHorizon(cfg, 5*time.Second)
	if single != 5*time.Second+30*time.Second+recoveryMargin {
		t.Fatalf("single-process horizon %s", single)
	}
	cfg.Cluster = config.Cluster{WorkerTimeout: 5 * time.Second, LeaseTTL: 15 * time.Second, Range: hcl.Range{Filename: "p.hcl", Start: hcl.Pos{Line: 3}}}
	if got := pipelineHorizon(cfg, 5*time.Second); got != single+20*time.Second {
		t.Errorf("cluster horizon %s, want %s", got, single+20*time.Second)
	}
}

// TestClusterPartStopAbandonsHeldWork: a cluster part stops without a
// final checkpoint, so its stop must not wait for what its tasks hold. A
// part whose outputs cannot go out (a gate that never opens, as a NATS
// outage keeps a sink's acks away) stops at once, and its sources, which
// had more records for the held tasks, stop routing. A worker's part once
// kept its worker past SIGTERM this way.
func TestClusterPartStopAbandonsHeldWork(t *testing.T) {
	s := newSumSetup(t, 2)
	cfg := s.load(t)
	gated := make(chan struct{}, 1)
	gate := func(ctx context.Context) error {
		select {
		case gated <- struct{}{}:
		default:
		}
		<-ctx.Done() // never opens
		return ctx.Err()
	}
	persist := func(context.Context, checkpoint.Manifest, *pebble.DB) error { return nil }
	opts := quietOptions(t, Options{Cluster: &ClusterPart{Tasks: map[string][]int{"sum": {0, 1}}, Persist: persist, Gate: gate}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	const total = 20000
	publishSums(t, p.Reach(), sumRecords(total, 40, 1))
	select {
	case <-gated:
	case <-ctx.Done():
		t.Fatal("no task reached the gate")
	}
	// The tasks' queues fill up behind the closed gate and the source then
	// blocks routing to them: its count stops growing short of the total.
	last := uint64(0)
	waitUntil(t, "the source to block routing to the held tasks", func() bool {
		time.Sleep(200 * time.Millisecond)
		read := p.Stats().Read
		blocked := read == last && read > 0 && read < total
		last = read
		return blocked
	})
	stop()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run after the stop: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return within a minute of the stop: the stop waits for work it should abandon")
	}
}

// A cluster part opens only the sources its tasks read: a part running
// tasks of the second stage of a graph reads the exchange stream and not
// the declared source, which only the first stage reads; a part running
// tasks of both stages reads both. Of the exchange stream it reads only
// the subjects of its tasks' key groups (s2 has 3 tasks over 32 key
// groups: 11, 11 and 10), all of them (the stream's subject) when it runs
// every task.
func TestClusterPartReadsOnlyWhatItsTasksNeed(t *testing.T) {
	s := newChainSetup(t, 2)
	for _, tc := range []struct {
		tasks   map[string][]int
		want    []string
		filters int // subjects of the exchange reader; 0: the whole stream
	}{
		{map[string][]int{"s2": {0, 2}}, []string{"s1.out"}, 21},
		{map[string][]int{"s1": {1}}, []string{"a"}, 0},
		{map[string][]int{"s1": {0}, "s2": {1}}, []string{"a", "s1.out"}, 11},
		{map[string][]int{"s2": {0, 1, 2}}, []string{"s1.out"}, 0},
	} {
		persist := func(context.Context, checkpoint.Manifest, *pebble.DB) error { return nil }
		opts := quietOptions(t, Options{Cluster: &ClusterPart{Tasks: tc.tasks, Persist: persist}})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		p, err := Open(ctx, s.load(t), opts)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		var got []string
		for _, src := range p.sources {
			got = append(got, src.cfg.Name)
		}
		filters := p.exchangeFilters(p.exchanges[0])
		p.Close()
		cancel()
		if !slices.Equal(got, tc.want) {
			t.Errorf("a part running tasks %v reads %v, want %v", tc.tasks, got, tc.want)
		}
		if len(filters) != tc.filters {
			t.Errorf("a part running tasks %v reads exchange subjects %v, want %d of them", tc.tasks, filters, tc.filters)
		}
	}
}
