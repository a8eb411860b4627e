package recovery

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// A second lock on a data dir is refused, naming the lock file and the fix.
func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	f, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Lock(dir); !errors.Is(err, ErrDataDirInUse) || !strings.Contains(err.Error(), filepath.Join(dir, "LOCK")) {
		t.Fatalf("second lock: %v, want ErrDataDirInUse naming the lock", err)
	}
}

// The clean-stop marker is read once; the outbox mark survives and a
// damaged one is an error that says what to do.
func TestMarkers(t *testing.T) {
	dir := t.TempDir()
	if _, ok := TakeCleanStop(dir); ok {
		t.Fatal("a clean stop without a marker")
	}
	if err := WriteCleanStop(dir, 7); err != nil {
		t.Fatal(err)
	}
	if id, ok := TakeCleanStop(dir); !ok || id != 7 {
		t.Fatalf("clean stop %d %v, want 7", id, ok)
	}
	if _, ok := TakeCleanStop(dir); ok {
		t.Fatal("the clean-stop marker must be taken once")
	}
	if id, err := PublishedThrough(dir); err != nil || id != 0 {
		t.Fatalf("no mark: %d, %v", id, err)
	}
	if err := MarkPublished(dir, 12); err != nil {
		t.Fatal(err)
	}
	if id, err := PublishedThrough(dir); err != nil || id != 12 {
		t.Fatalf("mark: %d, %v", id, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "OUTBOX-PUBLISHED"), []byte("twelve"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := PublishedThrough(dir); err == nil || !strings.Contains(err.Error(), "not a checkpoint id") {
		t.Fatalf("damaged mark: %v", err)
	}
}

// Without checkpoints a run starts empty; asking for one that does not
// exist is refused.
func TestChooseWithoutCheckpoints(t *testing.T) {
	root := filepath.Join(t.TempDir(), "checkpoints")
	plan, newest, err := Choose(root, Options{}, hclog.NewNullLogger(), nil)
	if plan != nil || newest != 0 || err != nil {
		t.Fatalf("empty dir: %v %d %v", plan, newest, err)
	}
	if _, _, err := Choose(root, Options{FromCheckpoint: 3}, hclog.NewNullLogger(), nil); !errors.Is(err, ErrRecovery) {
		t.Fatalf("--from-checkpoint 3 without checkpoints: %v, want ErrRecovery", err)
	}
}
