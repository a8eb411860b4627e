package clusterckpt_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Before the first worker ran, the buckets do not exist; opening them
// neither creates them nor fails without saying what to do.
func TestOpenBeforeAnyWorker(t *testing.T) {
	f := newFixture(t)
	_, err := clusterckpt.Open(testCtx(t), f.cfg, nil)
	testutil.WantErr(t, err, clusterckpt.ErrNoCheckpoint, `pipeline "orders"`, "(KV wasmstream-orders) does not exist", "start the workers (wasmstream worker")
	if _, err := f.conn.JS.KeyValue(testCtx(t), "wasmstream-orders"); err == nil {
		t.Fatal("Open created the control bucket")
	}
}

// The buckets exist, no checkpoint completed yet: an empty list, and the
// latest is ErrNoCheckpoint with the fix.
func TestNoCheckpointCompletedYet(t *testing.T) {
	s := newFixture(t).withCluster(t).open(t)
	if list, err := s.List(testCtx(t)); err != nil || len(list) != 0 {
		t.Fatalf("List = %v, %v; want nothing", list, err)
	}
	_, err := s.Get(testCtx(t), 0)
	testutil.WantErr(t, err, clusterckpt.ErrNoCheckpoint, "bucket wasmstream-orders", "holds no completion record", "wait for one")
	_, err = s.Get(testCtx(t), 3)
	testutil.WantErr(t, err, clusterckpt.ErrNotFound, "cluster checkpoint 3", "none completed yet")
}

func TestListAndGet(t *testing.T) {
	f := newFixture(t).withCluster(t)
	m1, _ := f.commit(t, 10, 100)
	m2, _ := f.commit(t, 5, 150)
	s := f.open(t)
	list, err := s.List(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID() != 2 || list[1].ID() != 1 || !list[0].Latest || list[1].Latest {
		t.Fatalf("List = %+v; want 2 (latest) then 1", list)
	}
	if list[0].Err != nil || list[1].Err != nil || !sameManifest(t, list[0].Manifest, m2) || !sameManifest(t, list[1].Manifest, m1) {
		t.Fatalf("List returned other manifests than were committed: %v %v", list[0].Err, list[1].Err)
	}
	latest, err := s.Get(testCtx(t), 0)
	if err != nil || latest.ID() != 2 || !latest.Latest {
		t.Fatalf("Get(0) = %+v, %v; want checkpoint 2", latest.Record, err)
	}
	one, err := s.Get(testCtx(t), 1)
	if err != nil || one.Latest || !sameManifest(t, one.Manifest, m1) {
		t.Fatalf("Get(1) = %+v, %v", one.Record, err)
	}
	_, err = s.Get(testCtx(t), 7)
	testutil.WantErr(t, err, clusterckpt.ErrNotFound, "cluster checkpoint 7", "completed: 2, 1")
	if ids, err := s.IDs(testCtx(t)); err != nil || !reflect.DeepEqual(ids, []uint64{2, 1}) {
		t.Fatalf("IDs = %v, %v", ids, err)
	}
	if n := clusterckpt.TaskCheckpoints(m2); n != testTasks {
		t.Fatalf("TaskCheckpoints = %d, want %d", n, testTasks)
	}
	for i, task := range clusterckpt.Tasks(m2, testOp) {
		if want := []string{"w1", "w2"}[i%2]; task.Worker != want || task.Index != i {
			t.Errorf("task %d: worker %q, want %q", task.Index, task.Worker, want)
		}
	}
}

// A damaged manifest does not hide the other checkpoints from the list:
// it is listed with its error.
func TestListShowsAnUnreadableManifest(t *testing.T) {
	f := newFixture(t).withCluster(t)
	f.commit(t, 4, 10)
	m2, rec2 := f.commit(t, 4, 20)
	f.cluster.FlipByte(t, rec2.Manifest)
	list, err := f.open(t).List(testCtx(t))
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if list[0].ID() != m2.ID() || list[0].Err == nil || list[1].Err != nil {
		t.Fatalf("want checkpoint 2 listed with an error and 1 readable; got %v, %v", list[0].Err, list[1].Err)
	}
	testutil.WantErr(t, list[0].Err, ship.ErrDamaged, rec2.Manifest, "cluster checkpoint 2")
}

// sameManifest compares manifests by their encoding: one read back has
// the checksum filled in and UTC times.
func sameManifest(t *testing.T, a, b global.Manifest) bool {
	t.Helper()
	ea, err := global.EncodeManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := global.EncodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ea, eb)
}

// Retention deletes the objects of all but the checkpoint.retain newest
// checkpoints and keeps their records: such a checkpoint is listed as
// collected, not as damaged; a newer one with its manifest gone is damage.
func TestListTellsCollectedFromMissing(t *testing.T) {
	f := newFixture(t).withCluster(t) // checkpoint.retain is 3 by default
	var recs []ctlrec.Completed
	for i := range 5 {
		_, rec := f.commit(t, 2, uint64(10*(i+1)))
		recs = append(recs, rec)
	}
	for _, i := range []int{0, 3} {
		if err := f.cluster.Objects.Delete(testCtx(t), recs[i].Manifest); err != nil {
			t.Fatal(err)
		}
	}
	list, err := f.open(t).List(testCtx(t))
	if err != nil || len(list) != 5 {
		t.Fatalf("List = %v, %v", list, err)
	}
	for _, c := range list {
		wantErr, wantCollected := c.ID() == 1 || c.ID() == 4, c.ID() == 1
		if (c.Err != nil) != wantErr || c.Collected != wantCollected {
			t.Errorf("checkpoint %d: err %v, collected %t; want an error %t, collected %t", c.ID(), c.Err, c.Collected, wantErr, wantCollected)
		}
	}
}
