package natsio

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The embedded server's store holds every message of the pipeline's
// streams: the store directory is created 0700 (its missing parents too)
// before the server starts, and what nats-server writes inside is 0700 and
// 0600 as well, so no other local user can read a message.
func TestEmbeddedStoreIsPrivate(t *testing.T) {
	testutil.NeedLooseUmask(t)
	data := filepath.Join(t.TempDir(), "data")
	store := filepath.Join(data, "jetstream")
	c := embeddedAt(t, store, RandomPort)
	ensureStream(t, c, "PAYMENTS", "payments.>")
	publishMany(t, c, "payments.card", 50)
	c.Close()

	for _, dir := range []string{data, store} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != storeDirMode {
			t.Errorf("%s: mode %04o, want %04o", dir, got, storeDirMode)
		}
	}
	files := 0
	err := filepath.WalkDir(store, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			files++
		}
		if mode := fi.Mode().Perm(); mode&0o077 != 0 {
			t.Errorf("nats-server made %s mode %04o; the 0700 store keeps it private, but the data dir docs say the store's files are 0600", path, mode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no file under %s: the stream was not stored on disk", store)
	}
}

// A store directory that already exists keeps the mode its owner gave it.
func TestEmbeddedStoreKeepsExistingMode(t *testing.T) {
	store := filepath.Join(t.TempDir(), "jetstream")
	if err := os.Mkdir(store, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store, 0o750); err != nil {
		t.Fatal(err)
	}
	embeddedAt(t, store, RandomPort).Close()
	fi, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o750 {
		t.Fatalf("existing store: mode %04o, want it left at 0750", got)
	}
}
