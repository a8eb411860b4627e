package clusterckpt_test

import (
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestVerifyDetectsAFlippedByteInAnyObject is phase 1 acceptance 5 (design
// §7): one flipped byte in any object of a cluster checkpoint (its global
// manifest, a task manifest, a state file) fails verification with an
// error naming that object and the checkpoint; with the byte back, it
// passes again.
func TestVerifyDetectsAFlippedByteInAnyObject(t *testing.T) {
	f := newFixture(t).withCluster(t)
	f.commit(t, 20, 100)
	m, rec := f.commit(t, 10, 150) // the second shares the first's unchanged objects
	s := f.open(t)
	if _, err := s.Verify(testCtx(t), rec); err != nil {
		t.Fatal(err)
	}
	objects := f.cluster.ObjectsOf(t, m)
	if len(objects) < 1+testTasks+testTasks {
		t.Fatalf("the checkpoint has %d objects; want its manifest, %d task manifests and their files", len(objects), testTasks)
	}
	for _, object := range objects {
		restore := f.cluster.FlipByte(t, object)
		_, err := s.Verify(testCtx(t), rec)
		testutil.WantErr(t, err, ship.ErrDamaged, object, "cluster checkpoint 2")
		restore()
	}
	if _, err := s.Verify(testCtx(t), rec); err != nil {
		t.Fatalf("after restoring every object: %v", err)
	}
	t.Logf("a flipped byte in each of the %d objects of cluster checkpoint 2 was detected", len(objects))
}

// A missing object is reported as missing, naming it.
func TestVerifyReportsAMissingObject(t *testing.T) {
	f := newFixture(t).withCluster(t)
	m, rec := f.commit(t, 8, 40)
	object := f.cluster.ObjectsOf(t, m)[2] // a state file of the first task
	if err := f.cluster.Objects.Delete(testCtx(t), object); err != nil {
		t.Fatal(err)
	}
	_, err := f.open(t).Verify(testCtx(t), rec)
	testutil.WantErr(t, err, ship.ErrMissingObject, object, "cluster checkpoint 1", "1 of 4 task checkpoints bad")
}
