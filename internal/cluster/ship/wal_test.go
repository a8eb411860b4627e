package ship

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// A checkpoint of a DB whose WAL files were recycled is cut to its
// records, and every write in the WAL (unflushed, unsynced) survives the
// cut.
func TestTrimWALKeepsRecords(t *testing.T) {
	db, err := pebble.Open(t.TempDir(), &pebble.Options{Logger: quietLogger{}, MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	value := make([]byte, 1024)
	for i := range 4000 { // several memtables: the later WALs are recycled files
		if err := db.Set(fmt.Appendf(nil, "old-%05d", i), value, pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := db.Set(fmt.Appendf(nil, "new-%d", i), []byte("v"), pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := db.Checkpoint(dir, pebble.WithFlushedWAL()); err != nil {
		t.Fatal(err)
	}
	before := walBytes(t, dir)
	if err := trimWALs(dir); err != nil {
		t.Fatal(err)
	}
	after := walBytes(t, dir)
	t.Logf("WAL bytes of the checkpoint: %d before the cut, %d after", before, after)
	if after >= before || after > 64<<10 {
		t.Fatalf("WAL cut from %d to %d bytes; want a few records' worth", before, after)
	}
	ro, err := openReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n := len(keysIn(t, ro, keySpan{start: []byte("new-"), end: []byte("new.")})); n != 10 {
		t.Fatalf("%d of the 10 unflushed writes survive the cut", n)
	}
}

func walBytes(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".log") {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
	}
	return n
}
