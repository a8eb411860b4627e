package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
	"github.com/wasmstream/wasmstream/internal/faultfs"
	"github.com/wasmstream/wasmstream/internal/state"
)

// openStoreOn opens the live state store on fs, the way the engine would.
func openStoreOn(t *testing.T, fs vfs.FS, dir string) *pebble.DB {
	t.Helper()
	store, err := state.Open(dir, state.Options{FS: fs, CacheSizeBytes: 1 << 20, Logger: checkpointtest.QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store.DB()
}

// callerManifest is what the engine hands Write for checkpoint id.
func callerManifest(id uint64) Manifest {
	m := validManifest(id)
	m.Files, m.Metrics.BytesTotal, m.Metrics.BytesNew = nil, 0, 0
	m.FormatVersion = 0
	return m
}

// A fault in the manifest write or in the Pebble checkpoint fails Write
// with an error naming the checkpoint and the step, leaves nothing a List
// or a restore would pick up, and the next Write on a healthy FS succeeds.
func TestWriteFaults(t *testing.T) {
	tests := []struct {
		name  string
		match func(errorfs.Op) bool
		err   error
		step  string // in the error, after the checkpoint's name
	}{
		{
			name:  "manifest write, disk full",
			match: func(op errorfs.Op) bool { return op.Kind == errorfs.OpFileWrite && IsManifestTemp(op.Path) },
			err:   syscall.ENOSPC,
			step:  manifestFile + ": write: ",
		},
		{
			name:  "manifest fsync",
			match: func(op errorfs.Op) bool { return op.Kind == errorfs.OpFileSync && IsManifestTemp(op.Path) },
			err:   syscall.EIO,
			step:  manifestFile + ": fsync: ",
		},
		{
			name:  "manifest rename",
			match: func(op errorfs.Op) bool { return op.Kind == errorfs.OpRename && IsManifestTemp(op.Path) },
			err:   syscall.EIO,
			step:  manifestFile + ": rename: ",
		},
		{
			name: "pebble checkpoint, disk full",
			match: func(op errorfs.Op) bool {
				return op.Kind == errorfs.OpCreate && InProgress(op.Path) && !IsManifestTemp(op.Path)
			},
			err:  syscall.ENOSPC,
			step: "pebble checkpoint: ",
		},
		{
			name: "pebble checkpoint fsync",
			match: func(op errorfs.Op) bool {
				return op.Kind == errorfs.OpFileSync && InProgress(op.Path) && !IsManifestTemp(op.Path)
			},
			err:  syscall.EIO,
			step: "pebble checkpoint: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inj := &faultfs.Injector{Match: tt.match, Err: tt.err}
			fs := inj.Wrap(vfs.Default)
			db := openStoreOn(t, fs, filepath.Join(t.TempDir(), "db"))
			root := filepath.Join(t.TempDir(), "checkpoints")
			w := Writer{FS: fs}
			checkpointtest.PutKeys(t, db, 0, 100)
			if _, err := w.Write(root, db, callerManifest(1)); err != nil {
				t.Fatal(err)
			}
			checkpointtest.PutKeys(t, db, 100, 200)

			inj.Arm(true)
			_, err := w.Write(root, db, callerManifest(2))
			inj.Arm(false)
			if inj.Hits() == 0 {
				t.Fatal("the fault was never injected")
			}
			name := "checkpoint 2 (" + Dir(root, 2) + "): "
			if err == nil || !strings.HasPrefix(err.Error(), name) || !strings.Contains(err.Error(), tt.step) {
				t.Fatalf("got %v, want %q...%q", err, name, tt.step)
			}
			if !strings.Contains(err.Error(), tt.err.Error()) {
				t.Errorf("error %v does not say %q", err, tt.err)
			}
			assertOnlyCheckpoints(t, root, 1)
			if _, err := Read(root, 2); !errors.Is(err, ErrCheckpointNotFound) {
				t.Fatalf("Read of the failed checkpoint: %v, want ErrCheckpointNotFound", err)
			}

			if _, err := Write(root, db, callerManifest(2)); err != nil {
				t.Fatalf("Write after the fault: %v", err)
			}
			if err := Verify(root, 2); err != nil {
				t.Fatal(err)
			}
			assertOnlyCheckpoints(t, root, 2, 1)
		})
	}
}

// assertOnlyCheckpoints checks that List gives ids (newest first) and that
// root holds their directories and nothing else: no temporary directory a
// restore or a cleanup would have to judge.
func assertOnlyCheckpoints(t *testing.T, root string, ids ...uint64) {
	t.Helper()
	listed, err := List(root)
	if err != nil || !slices.Equal(listed, ids) {
		t.Fatalf("List = %v, %v; want %v", listed, err, ids)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names, want []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, id := range ids {
		want = append(want, filepath.Base(Dir(root, id)))
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("root holds %v, want %v", names, want)
	}
}

// A Writer keeps every file operation on its FS: on a MemFS, with the store
// on the same MemFS, checkpoints are written, listed and read there and
// nothing reaches the disk. The hook sees every Step in order.
func TestWriterOnMemFS(t *testing.T) {
	fs := vfs.NewMem()
	db := openStoreOn(t, fs, "/data/state")
	root := filepath.Join(t.TempDir(), "checkpoints") // a real path, which must stay absent
	var steps []Step
	w := Writer{FS: fs, Hook: func(s Step) { steps = append(steps, s) }}
	for id := uint64(1); id <= 2; id++ {
		checkpointtest.PutKeys(t, db, int(id)*100, int(id)*100+100)
		m, err := w.Write(root, db, callerManifest(id))
		if err != nil {
			t.Fatal(err)
		}
		read, err := read(fs, root, id)
		if err != nil || len(read.Files) == 0 || read.Metrics.BytesTotal != m.Metrics.BytesTotal {
			t.Fatalf("read checkpoint %d on the MemFS: %+v, %v", id, read, err)
		}
	}
	if ids, err := list(fs, root); err != nil || !slices.Equal(ids, []uint64{2, 1}) {
		t.Fatalf("list on the MemFS = %v, %v", ids, err)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the checkpoints reached the disk: %v", err)
	}
	if want := append(slices.Clone(Steps), Steps...); !slices.Equal(steps, want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	if _, err := w.Write(root, db, callerManifest(2)); !errors.Is(err, ErrCheckpointExists) {
		t.Fatalf("rewrite of checkpoint 2: %v, want ErrCheckpointExists", err)
	}
}
