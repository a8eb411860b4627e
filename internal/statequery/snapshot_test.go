package statequery_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/statequery"
)

const maxParallelism = 16

// put is one state value written before a checkpoint.
type put struct {
	name, key, value string
	expiresAt        int64
}

// writeCheckpoint writes puts into a real store and checkpoints it as
// checkpoint id of operator "risk" under root.
func writeCheckpoint(t *testing.T, st *state.Store, root string, id uint64, puts ...put) {
	t.Helper()
	b := st.NewBatch()
	for _, p := range puts {
		k := state.AppendStateKey(nil, "risk", state.KeyGroup([]byte(p.key), maxParallelism), []byte(p.name), []byte(p.key))
		v := state.Value{Data: []byte(p.value), ExpiresAt: p.expiresAt, HasExpiry: p.expiresAt != 0}
		if err := b.Set(k, state.AppendValue(nil, v), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(id) * time.Second)
	m := checkpoint.Manifest{ID: id, Created: created, Completed: created.Add(time.Millisecond),
		Operators: []checkpoint.OperatorEntry{{Name: "risk", ModuleSHA256: strings.Repeat("ab", 32), ABIVersion: 1, StateFormatVersion: 1, MaxParallelism: maxParallelism,
			Tasks: []checkpoint.TaskEntry{{KeyGroupRange: checkpoint.KeyGroupRange{Start: 0, End: maxParallelism}}}}}}
	if _, err := checkpoint.Write(root, st.DB(), m); err != nil {
		t.Fatal(err)
	}
}

// fixture: checkpoint 1 holds acct-1's total 100; checkpoint 2 holds
// acct-1's total 250 and a map entry, and acct-2 with a TTL.
func fixture(t *testing.T) string {
	t.Helper()
	st, err := state.Open(filepath.Join(t.TempDir(), "db"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root := filepath.Join(t.TempDir(), "checkpoints")
	writeCheckpoint(t, st, root, 1, put{"total", "acct-1", "100", 0})
	writeCheckpoint(t, st, root, 2, put{"total", "acct-1", "250", 0}, put{"seen\x00evt-7", "acct-1", "1", 0},
		put{"total", "acct-2", "5", 1_900_000_000_000_000_000}, put{"total", "bcct-3", "9", 0})
	return root
}

func open(t *testing.T, root string, id uint64) *statequery.Snapshot {
	t.Helper()
	s, err := statequery.OpenCheckpoint(root, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestGetReadsNewestOrGivenCheckpoint(t *testing.T) {
	root := fixture(t)
	for _, tc := range []struct {
		id            uint64
		name          string
		wantID        uint64
		wantNames     []string
		wantFirstData string
	}{
		// Names sort by length first (a u16 length prefixes them).
		{id: 0, wantID: 2, wantNames: []string{"total", "seen\x00evt-7"}, wantFirstData: "250"},
		{id: 0, name: "total", wantID: 2, wantNames: []string{"total"}, wantFirstData: "250"},
		{id: 0, name: "seen", wantID: 2, wantNames: []string{"seen\x00evt-7"}, wantFirstData: "1"},
		{id: 1, wantID: 1, wantNames: []string{"total"}, wantFirstData: "100"},
	} {
		s := open(t, root, tc.id)
		got, err := s.Get("risk", []byte("acct-1"), tc.name)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			names = append(names, e.Name)
		}
		if s.ID != tc.wantID || len(got) != len(tc.wantNames) || string(got[0].Value) != tc.wantFirstData {
			t.Errorf("checkpoint %d state %q: read checkpoint %d, %q (first value %q), want checkpoint %d, %q (first %q)",
				tc.id, tc.name, s.ID, names, got[0].Value, tc.wantID, tc.wantNames, tc.wantFirstData)
			continue
		}
		for i := range names {
			if names[i] != tc.wantNames[i] {
				t.Errorf("checkpoint %d state %q: names %q, want %q", tc.id, tc.name, names, tc.wantNames)
			}
		}
	}
}

func TestGetKeepsTheExpiry(t *testing.T) {
	s := open(t, fixture(t), 0)
	got, err := s.Get("risk", []byte("acct-2"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ExpiresAt != 1_900_000_000_000_000_000 {
		t.Errorf("acct-2: %+v, want one entry expiring at 1900000000000000000", got)
	}
}

func TestGetErrorsNameWhatIsMissing(t *testing.T) {
	s := open(t, fixture(t), 0)
	_, err := s.Get("risk", []byte("acct-404"), "")
	if !errors.Is(err, statequery.ErrKeyNotFound) || !contains(err, `"acct-404"`, "checkpoint 2") {
		t.Errorf("missing key: %v, want ErrKeyNotFound naming the key and checkpoint 2", err)
	}
	_, err = s.Get("risk", []byte("acct-2"), "seen")
	if !errors.Is(err, statequery.ErrKeyNotFound) || !contains(err, `no state "seen"`) {
		t.Errorf("missing state: %v, want ErrKeyNotFound naming the state", err)
	}
	_, err = s.Get("limits", []byte("acct-1"), "")
	if !errors.Is(err, statequery.ErrUnknownOperator) || !contains(err, `"limits"`, `"risk"`) {
		t.Errorf("unknown operator: %v, want ErrUnknownOperator naming it and the known ones", err)
	}
}

func TestScanFiltersByPrefixAndLimit(t *testing.T) {
	s := open(t, fixture(t), 0)
	for _, tc := range []struct {
		prefix string
		limit  int
		want   int
	}{{"", 0, 4}, {"acct-", 0, 3}, {"acct-", 2, 2}, {"bcct", 0, 1}, {"zz", 0, 0}} {
		got, err := s.Scan("risk", []byte(tc.prefix), tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("scan prefix %q limit %d: %d entries, want %d", tc.prefix, tc.limit, len(got), tc.want)
		}
	}
}

func TestOpenSkipsACheckpointThatFailsVerification(t *testing.T) {
	root := fixture(t)
	damage(t, checkpoint.StateDir(root, 2))
	s := open(t, root, 0)
	if s.ID != 1 {
		t.Fatalf("read checkpoint %d, want 1 (2 is damaged)", s.ID)
	}
	if _, err := statequery.OpenCheckpoint(root, 2); !errors.Is(err, statequery.ErrNoCheckpoint) || !contains(err, "checkpoint 2") {
		t.Errorf("open damaged checkpoint 2: %v, want ErrNoCheckpoint naming it", err)
	}
}

func TestOpenLeavesTheCheckpointIntact(t *testing.T) {
	root := fixture(t)
	s, err := statequery.OpenCheckpoint(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Scan("risk", nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.Verify(root, 2); err != nil {
		t.Errorf("checkpoint 2 after reading it: %v", err)
	}
}

func TestOpenWithoutCheckpoints(t *testing.T) {
	_, err := statequery.OpenCheckpoint(filepath.Join(t.TempDir(), "checkpoints"), 0)
	if !errors.Is(err, statequery.ErrNoCheckpoint) {
		t.Errorf("empty root: %v, want ErrNoCheckpoint", err)
	}
}

// damage flips a byte of the first table file in dir.
func damage(t *testing.T, dir string) {
	t.Helper()
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(ssts) == 0 {
		t.Fatalf("no table file in %s", dir)
	}
	b, err := os.ReadFile(ssts[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	// The file is hard-linked into older checkpoints too; replace it
	// rather than writing through the link.
	if err := os.Remove(ssts[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ssts[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func contains(err error, parts ...string) bool {
	if err == nil {
		return false
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			return false
		}
	}
	return true
}
