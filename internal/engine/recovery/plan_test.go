package recovery

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// A refused restore suggests only a checkpoint that verifies: older ones
// that fail (a table file hard-linked into several checkpoints damages
// them all) are skipped and named with the reason; when none verifies the
// hint says so and suggests only --empty-state.
func TestChooseHintsOnlyACheckpointThatVerifies(t *testing.T) {
	cases := []struct {
		name    string
		from    uint64 // FromCheckpoint
		damage  func(t *testing.T, root string, table string)
		refused uint64
		want    []string // TABLE stands for the damaged table file
		notWant []string
	}{
		{
			name:    "the next older verifies",
			damage:  func(t *testing.T, root, table string) { corrupt(t, root, 3, table) },
			refused: 3,
			want:    []string{"--from-checkpoint 2 (retained: 2, 1)"},
			notWant: []string{"fails verification too"},
		},
		{
			name: "a table file of the two newest",
			damage: func(t *testing.T, root, table string) {
				corrupt(t, root, 3, table)
				corrupt(t, root, 2, table)
			},
			refused: 3,
			want:    []string{"--from-checkpoint 1 (retained: 2, 1; 2 fails verification too: corrupt file TABLE)"},
			notWant: []string{"--from-checkpoint 2"},
		},
		{
			name: "from a damaged older one",
			from: 2,
			damage: func(t *testing.T, root, table string) {
				corrupt(t, root, 2, table)
			},
			refused: 2,
			want:    []string{"--from-checkpoint 1 (retained: 1)"},
		},
		{
			name: "none verifies",
			damage: func(t *testing.T, root, table string) {
				corrupt(t, root, 3, table)
				corrupt(t, root, 2, table)
				if err := os.Remove(filepath.Join(checkpoint.Dir(root, 1), "MANIFEST.json")); err != nil {
					t.Fatal(err)
				}
			},
			refused: 3,
			want:    []string{"No older checkpoint verifies (2: corrupt file TABLE; 1: corrupt manifest)", "--empty-state"},
			notWant: []string{"--from-checkpoint"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, table := threeCheckpoints(t)
			c.damage(t, root, table)
			fits := func(checkpoint.Manifest) error { return nil }
			_, _, err := Choose(root, Options{FromCheckpoint: c.from}, hclog.NewNullLogger(), fits)
			if err == nil {
				t.Fatal("a damaged checkpoint was restored")
			}
			if want := fmt.Sprintf("%s %d:", ErrRecovery, c.refused); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name checkpoint %d", err, c.refused)
			}
			for _, w := range c.want {
				if w = strings.ReplaceAll(w, "TABLE", table); !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q says %q", err, w)
				}
			}
		})
	}
}

// threeCheckpoints writes checkpoints 1, 2 and 3 of a Pebble DB and returns
// the root and the path of a table file the three hold.
func threeCheckpoints(t *testing.T) (root, table string) {
	t.Helper()
	db, err := pebble.Open(filepath.Join(t.TempDir(), "db"), &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	root = filepath.Join(t.TempDir(), "checkpoints")
	for id := uint64(1); id <= 3; id++ {
		if err := db.Set(fmt.Appendf(nil, "key-%d", id), []byte("value"), pebble.Sync); err != nil {
			t.Fatal(err)
		}
		m, err := checkpoint.Write(root, db, testManifest(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Files {
			if table == "" && strings.HasSuffix(f.Path, ".sst") {
				table = f.Path
			}
		}
	}
	if table == "" {
		t.Fatal("checkpoint 1 holds no table file")
	}
	return root, table
}

// testManifest is a valid caller-side manifest for checkpoint.Write.
func testManifest(id uint64) checkpoint.Manifest {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return checkpoint.Manifest{
		ID:      id,
		Created: created,
		Sources: []checkpoint.SourcePosition{{Name: "payments", Stream: "PAYMENTS", StreamCreated: created.Add(-time.Hour), LastSequence: id * 10}},
		Operators: []checkpoint.OperatorEntry{{Name: "risk", ModuleSHA256: strings.Repeat("ab", 32), ABIVersion: 1, StateFormatVersion: 1,
			MaxParallelism: 128, Tasks: []checkpoint.TaskEntry{{KeyGroupRange: checkpoint.KeyGroupRange{Start: 0, End: 128}}}}},
	}
}

// corrupt rewrites checkpoint id's file path with one byte changed.
func corrupt(t *testing.T, root string, id uint64, path string) {
	t.Helper()
	p := filepath.Join(checkpoint.Dir(root, id), filepath.FromSlash(path))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.Remove(p); err != nil { // a new inode: the links of other checkpoints stay intact
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// quietLogger keeps Pebble's informational lines out of test output.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)              {}
func (quietLogger) Errorf(format string, args ...any) {}
func (quietLogger) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
