package ship_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
)

// A second checkpoint of unchanged state uploads less than 5 % of the
// first one's bytes (design §7 phase 1, acceptance 4); after a few keys
// changed, exactly the files no earlier checkpoint had are uploaded, and
// the restore sees the new values.
func TestIncrementalUpload(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 16000, 1024, 2)
	settle(t, src.DB())
	s := shipper(t, obs)

	_, first := snapshotUpload(t, s, src, 1, "ckpt/1/risk-32.json")
	_, second := snapshotUpload(t, s, src, 1, "ckpt/2/risk-32.json")
	t.Logf("first: %d of %d bytes uploaded (%d files); second, unchanged: %d of %d bytes (%d of %d files), %.3f %% of the first",
		first.BytesUploaded, first.BytesTotal, first.FilesUploaded, second.BytesUploaded, second.BytesTotal,
		second.FilesUploaded, second.FilesTotal, 100*float64(second.BytesUploaded)/float64(first.BytesUploaded))
	t.Logf("the live DB uses %d bytes on disk for 4 tasks of 2 operators", src.DB().Metrics().DiskSpaceUsage())
	if first.BytesUploaded != first.BytesTotal || second.BytesUploaded*20 >= first.BytesUploaded {
		t.Fatalf("second checkpoint uploaded %d bytes, the first %d of %d: want < 5 %%", second.BytesUploaded, first.BytesUploaded, first.BytesTotal)
	}

	changeKeys(t, src, 1, 5)
	settle(t, src.DB())
	_, third := snapshotUpload(t, s, src, 1, "ckpt/3/risk-32.json")
	files, bytes := newFiles(third.Manifest, first.Manifest, second.Manifest)
	t.Logf("third, 5 keys changed: %d of %d bytes uploaded (%d files; %d files were new)", third.BytesUploaded, third.BytesTotal, third.FilesUploaded, files)
	if third.FilesUploaded != files || third.BytesUploaded != bytes {
		t.Fatalf("third checkpoint uploaded %d files, %d bytes; the new ones are %d files, %d bytes", third.FilesUploaded, third.BytesUploaded, files, bytes)
	}
	dst, _, err := restoreInto(t, shipper(t, obs), []ship.TaskManifest{third.Manifest}, task(1).Range)
	if err != nil {
		t.Fatal(err)
	}
	if err := equalMaps(stateOf(t, dst.DB(), testOp, task(1).Range), stateOf(t, src.DB(), testOp, task(1).Range)); err != nil {
		t.Fatalf("restore of the third checkpoint: %v", err)
	}
}

// A worker without an index (restarted elsewhere, index lost) finds the
// objects with GetInfo and uploads nothing it already stored.
func TestUploadWithoutIndexFindsObjects(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 2000, 256, 3)
	settle(t, src.DB())
	_, first := snapshotUpload(t, shipper(t, obs), src, 2, "ckpt/1/risk-64.json")
	_, again := snapshotUpload(t, shipper(t, obs), src, 2, "ckpt/2/risk-64.json")
	if _, bytes := newFiles(again.Manifest, first.Manifest); again.BytesUploaded != bytes {
		t.Fatalf("uploaded %d bytes, want only the %d of files the first checkpoint lacked", again.BytesUploaded, bytes)
	}
}

// changeKeys gives n keys of task i new values.
func changeKeys(t *testing.T, st *state.Store, i, n int) {
	t.Helper()
	be, err := st.Backend(state.BackendOptions{Operator: testOp, Range: task(i).Range, MaxParallelism: testMaxPar})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	changed := 0
	for k := 0; changed < n; k++ {
		key := fmt.Appendf(nil, "key-%d", k)
		if task(i).Range.Contains(state.KeyGroup(key, testMaxPar)) {
			put(t, be, key, "count", []byte("changed"))
			changed++
		}
	}
	b := st.NewBatch()
	if _, err := be.FlushTo(b); err != nil {
		t.Fatal(err)
	}
	commit(t, st, b)
}

// newFiles counts the distinct files of m whose content no earlier
// manifest had, and their bytes.
func newFiles(m ship.TaskManifest, earlier ...ship.TaskManifest) (int, int64) {
	old := map[string]bool{}
	for _, e := range earlier {
		for _, f := range e.Files {
			old[f.SHA256] = true
		}
	}
	var n int
	var bytes int64
	for _, f := range m.Files {
		if !old[f.SHA256] {
			old[f.SHA256] = true
			n++
			bytes += f.Size
		}
	}
	return n, bytes
}

// Snapshots of a DB nobody wrote to since the last one flush nothing: a
// flush rotates the WAL and appends to the MANIFEST, so each unchanged
// task checkpoint would carry a new MANIFEST (and a growing one). The
// empty log record a checkpoint writes to sync the WAL is not a write.
// Found by the cluster acceptance test of unchanged checkpoints.
func TestUnchangedSnapshotsKeepTheManifest(t *testing.T) {
	_, obs := objectStore(t)
	s := shipper(t, obs)
	st := openStore(t)
	fill(t, st, 100, 10, 1)
	manifests := map[string]bool{}
	for i := 0; i < 3; i++ {
		snap, err := s.Snapshot(st.DB(), filepath.Join(t.TempDir(), "snap"), task(0))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range snap.Manifest.Files {
			if strings.HasPrefix(f.Path, "MANIFEST-") {
				manifests[f.Path+" "+f.SHA256] = true
			}
		}
	}
	if len(manifests) != 1 {
		t.Fatalf("three snapshots of unchanged state carry %d different MANIFESTs: %v", len(manifests), manifests)
	}
}
