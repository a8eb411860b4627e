package gc_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt/clusterckpttest"
	"github.com/wasmstream/wasmstream/internal/cluster/gc"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

const (
	testOp     = "risk"
	testMaxPar = 16
	testTasks  = 2
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fixture is a pipeline's cluster checkpoint assets on a real embedded
// JetStream server, and the workers' state the checkpoints are cut from.
type fixture struct {
	cluster *clusterckpttest.Cluster
	store   gc.Store
	src     *state.Store
	n       int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	conn, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	c := clusterckpttest.New(t, conn.JS, "gc")
	sh, err := ship.New(testCtx(t), c.Objects, ship.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &fixture{cluster: c, store: gc.Store{Bucket: c.Bucket, Objects: c.Objects, Shipper: sh}, src: st}
}

// commit changes every task's state and commits a cluster checkpoint of
// it stamped created.
func (f *fixture) commit(t *testing.T, created time.Time) global.Manifest {
	t.Helper()
	f.n++
	op := checkpoint.OperatorEntry{Name: testOp, ModuleSHA256: fmt.Sprintf("%064d", 1), ABIVersion: 1,
		StateFormatVersion: state.FormatVersion, MaxParallelism: testMaxPar}
	for i := range testTasks {
		r := state.RangeForTask(i, testTasks, testMaxPar)
		f.write(t, r, 200)
		op.Tasks = append(op.Tasks, checkpoint.TaskEntry{KeyGroupRange: checkpoint.KeyGroupRange{Start: r.Start, End: r.End},
			Inputs: map[string]uint64{"in": uint64(f.n)}})
	}
	m, _ := f.cluster.Commit(t, clusterckpttest.Cut{DB: f.src.DB(), Workers: []string{"w1"}, Config: "pipeline\n", Created: created,
		Sources:   []checkpoint.SourcePosition{{Name: "in", Stream: "IN", StreamCreated: created, LastSequence: uint64(f.n)}},
		Operators: []checkpoint.OperatorEntry{op}})
	return m
}

// write puts n values that depend on the commit into range r, and
// flushes the memtable, so that each commit makes new table files.
func (f *fixture) write(t *testing.T, r state.KeyGroupRange, n int) {
	t.Helper()
	be, err := f.src.Backend(state.BackendOptions{Operator: testOp, Range: r, MaxParallelism: testMaxPar})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for k, written := 0, 0; written < n; k++ {
		key := fmt.Appendf(nil, "key-%d", k)
		if !r.Contains(state.KeyGroup(key, testMaxPar)) {
			continue
		}
		if err := be.SetCurrentKey(key); err != nil {
			t.Fatal(err)
		}
		if err := be.Put([]byte("total"), fmt.Appendf(nil, "%d-%d", k, f.n)); err != nil {
			t.Fatal(err)
		}
		written++
	}
	b := f.src.NewBatch()
	if _, err := be.FlushTo(b); err != nil {
		t.Fatal(err)
	}
	if err := f.src.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := f.src.DB().Flush(); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) objects(t *testing.T) []string {
	t.Helper()
	infos, err := f.store.Objects.List(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range infos {
		names = append(names, i.Name)
	}
	slices.Sort(names)
	return names
}

// A collection keeps every object the retained checkpoints reference and
// deletes exactly the others that are older than the oldest retained one
// (less the clock margin); the retained checkpoints still verify.
func TestCollectDeletesExactlyWhatNoRetainedCheckpointNeeds(t *testing.T) {
	f := newFixture(t)
	old1 := f.commit(t, time.Now())
	f.commit(t, time.Now())
	kept := f.commit(t, time.Now())
	before := f.objects(t)
	need := f.cluster.ObjectsOf(t, kept)

	// A margin of minus a minute puts the cut-off after every upload
	// here, as a retention period later the objects above are older than
	// the oldest retained checkpoint.
	res, err := gc.Collect(testCtx(t), f.store, kept.ID(), 1, -time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	after := f.objects(t)
	for _, o := range need {
		if !slices.Contains(after, o) {
			t.Errorf("object %s of the retained checkpoint %d was deleted", o, kept.ID())
		}
	}
	var want []string
	for _, o := range before {
		if !slices.Contains(need, o) {
			want = append(want, o)
		}
	}
	slices.Sort(res.Deleted)
	if !slices.Equal(res.Deleted, want) || len(after) != len(need) {
		t.Errorf("deleted %d objects %v, want the %d not referenced by checkpoint %d: %v (left: %d, needed: %d)",
			len(res.Deleted), res.Deleted, len(want), kept.ID(), want, len(after), len(need))
	}
	if len(want) == 0 || len(res.Tables) == 0 {
		t.Fatalf("nothing to collect (%d objects before, %d needed): the fixture makes no garbage", len(before), len(need))
	}
	if o := global.ManifestObject(old1.ID(), old1.Generation); slices.Contains(after, o) {
		t.Errorf("the global manifest %s of checkpoint %d survived", o, old1.ID())
	}
	if res.Kept != 1 {
		t.Errorf("kept %d checkpoints, want 1", res.Kept)
	}
	for _, p := range kept.Tasks {
		if _, err := f.store.Shipper.FetchManifest(testCtx(t), p.Object, p.SHA256); err != nil {
			t.Errorf("task manifest of the retained checkpoint: %v", err)
		}
	}
}

// Objects younger than the oldest retained checkpoint (less the margin)
// stay even when nothing references them: they may belong to a checkpoint
// still being uploaded.
func TestCollectKeepsYoungObjects(t *testing.T) {
	f := newFixture(t)
	f.commit(t, time.Now())
	kept := f.commit(t, time.Now())
	before := f.objects(t)
	res, err := gc.Collect(testCtx(t), f.store, kept.ID(), 1, gc.ClockMargin)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 0 || !slices.Equal(f.objects(t), before) {
		t.Errorf("deleted %v: objects younger than the cut-off must stay", res.Deleted)
	}
}

// With retain 2 the second newest checkpoint's objects stay too.
func TestCollectRetainsTheNewestN(t *testing.T) {
	f := newFixture(t)
	oldest := f.commit(t, time.Now())
	second := f.commit(t, time.Now())
	newest := f.commit(t, time.Now())
	res, err := gc.Collect(testCtx(t), f.store, newest.ID(), 2, -time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) == 0 || res.Kept != 2 {
		t.Errorf("deleted %d objects keeping %d checkpoints: want checkpoint %d's own objects gone, 2 kept", len(res.Deleted), res.Kept, oldest.ID())
	}
	if len(res.Retained) != 2 || res.Retained[0].ID != newest.ID() || res.Retained[1].ID != second.ID() {
		t.Errorf("retained checkpoints %v, want %d and %d: the exchange streams would be trimmed below the wrong ones", res.Retained, newest.ID(), second.ID())
	}
	after := f.objects(t)
	for _, m := range []global.Manifest{second, newest} {
		for _, o := range f.cluster.ObjectsOf(t, m) {
			if !slices.Contains(after, o) {
				t.Errorf("object %s of retained checkpoint %d was deleted", o, m.ID())
			}
		}
	}
}
