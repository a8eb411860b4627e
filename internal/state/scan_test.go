package state

import (
	"errors"
	"fmt"
	"testing"
)

// Rescale readiness: state written by 4 tasks is found exactly once by
// scans of the 2 ranges of a 2-task layout, and 2 new backends read it.
func TestRescaleFourTasksToTwo(t *testing.T) {
	s := openStore(t)
	const m, keys = DefaultMaxParallelism, 2000
	want := writeWithTasks(t, s, 4, m, keys)

	seen := map[string]int{}
	for task := range 2 {
		r := RangeForTask(task, 2, m)
		err := s.Scan("op", r, func(kg int, name, key, value []byte) error {
			if !r.Contains(kg) || KeyGroup(key, m) != kg {
				return fmt.Errorf("key %q in key group %d, scan of %s", key, kg, r)
			}
			id := string(name) + "/" + string(key)
			seen[id]++
			if want[id] != string(value) {
				return fmt.Errorf("%s = %q, want %q", id, value, want[id])
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Scan %s: %v", r, err)
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("scans found %d entries, want %d", len(seen), len(want))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s found %d times", id, n)
		}
	}
	readWithTasks(t, s, 2, m, keys, want)
}

// writeWithTasks writes keys entries (two names each) through p backends,
// each receiving only its own keys, and commits one cut.
func writeWithTasks(t *testing.T, s *Store, p, m, keys int) map[string]string {
	t.Helper()
	want := map[string]string{}
	pb := s.NewBatch()
	for task := range p {
		b, err := s.Backend(BackendOptions{Operator: "op", Range: RangeForTask(task, p, m), MaxParallelism: m})
		if err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			key := fmt.Sprint("user-", i)
			if TaskForKeyGroup(KeyGroup([]byte(key), m), p, m) != task {
				continue
			}
			mustKey(t, b, key)
			for _, name := range []string{"count", "m\x00sub"} {
				v := fmt.Sprint(name, i, "@", task)
				mustPut(t, b, name, v)
				want[name+"/"+key] = v
			}
		}
		if _, err := b.FlushTo(pb); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	if err := s.Commit(pb); err != nil {
		t.Fatal(err)
	}
	if len(want) != 2*keys {
		t.Fatalf("tasks wrote %d entries, want %d", len(want), 2*keys)
	}
	return want
}

// readWithTasks checks every entry through p new backends.
func readWithTasks(t *testing.T, s *Store, p, m, keys int, want map[string]string) {
	t.Helper()
	for task := range p {
		b, err := s.Backend(BackendOptions{Operator: "op", Range: RangeForTask(task, p, m), MaxParallelism: m})
		if err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			key := fmt.Sprint("user-", i)
			if TaskForKeyGroup(KeyGroup([]byte(key), m), p, m) != task {
				continue
			}
			mustKey(t, b, key)
			for _, name := range []string{"count", "m\x00sub"} {
				wantGet(t, b, name, ptr(want[name+"/"+key]))
			}
		}
		b.Close()
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	s := openStore(t)
	writeWithTasks(t, s, 1, 128, 10)
	stop := errors.New("stop")
	calls := 0
	err := s.Scan("op", KeyGroupRange{0, 128}, func(int, []byte, []byte, []byte) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Scan = %v after %d calls, want the callback's error after 1", err, calls)
	}
}

func TestScanRejectsBadArguments(t *testing.T) {
	s := openStore(t)
	noop := func(int, []byte, []byte, []byte) error { return nil }
	if err := s.Scan("", KeyGroupRange{0, 1}, noop); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("empty operator: %v", err)
	}
	if err := s.Scan("op", KeyGroupRange{0, MaxMaxParallelism + 1}, noop); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("range past MaxMaxParallelism: %v", err)
	}
}

// A value that does not decode is reported as corrupt, naming where.
func TestScanReportsCorruptValue(t *testing.T) {
	s := openStore(t)
	k := AppendStateKey(nil, "op", 5, []byte("n"), []byte("k"))
	if err := s.DB().Set(k, []byte{0x80}, nil); err != nil {
		t.Fatal(err)
	}
	err := s.Scan("op", KeyGroupRange{0, 128}, func(int, []byte, []byte, []byte) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Scan over a corrupt value: %v, want ErrCorrupt", err)
	}
}

// A backend reading a corrupt value reports it rather than caching garbage.
func TestBackendReportsCorruptValue(t *testing.T) {
	s := openStore(t)
	key := []byte("k")
	k := AppendStateKey(nil, "op", KeyGroup(key, 128), []byte("n"), key)
	if err := s.DB().Set(k, nil, nil); err != nil {
		t.Fatal(err)
	}
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	if _, _, err := b.Get([]byte("n")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get of a corrupt value: %v, want ErrCorrupt", err)
	}
}
