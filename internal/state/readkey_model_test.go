package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// ReadKey answers from the store by seeking per name and from the cache by
// probing per name. Against a model of every write, over keys that are
// prefixes of each other ("k1", "k10"), names of different lengths and
// map entries (name, 0 byte, map key) of states whose names are prefixes
// of other states' names, with a cache small enough to evict into the
// spill, random flushes and deletes, it must always return exactly the
// key's live entries of the state asked for.
func TestReadKeyMatchesAModel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"few names", []string{"a", "ab", "b", "total", "seen"}},
		{"map entries", []string{"a", "a\x00x", "a\x00xy", "ab", "ab\x00", "ab\x00z", "b", "seen\x00evt-1", "seen\x00evt-22", "total"}},
		{"more names than tracked", manyNames(maxCachedNames + 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(4) {
				checkReadKeyAgainstModel(t, tc.names, rand.New(rand.NewPCG(seed, uint64(len(tc.names)))))
			}
		})
	}
}

func manyNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("n%d", i)
	}
	return out
}

func checkReadKeyAgainstModel(t *testing.T, names []string, rng *rand.Rand) {
	s := openStore(t)
	b := fullBackend(t, s, "risk", 8)
	model := map[string]map[string]string{}
	keys := []string{"k1", "k10", "k100", "k2", "k", "acct-47"}
	wantStates := []string{"", "a", "ab", "b", "seen", "total", "a\x00x", "n1", "missing"}
	for step := range 3000 {
		key := keys[rng.IntN(len(keys))]
		name := names[rng.IntN(len(names))]
		mustKey(t, b, key)
		if model[key] == nil {
			model[key] = map[string]string{}
		}
		switch r := rng.IntN(10); {
		case r < 6:
			v := fmt.Sprintf("v%d", step)
			mustPut(t, b, name, v)
			model[key][name] = v
		case r < 8:
			mustDelete(t, b, name)
			delete(model[key], name)
		case r < 9:
			flushCommit(t, s, b)
		default:
			b.ClearCurrentKey()
		}
		probe := keys[rng.IntN(len(keys))]
		want := wantStates[rng.IntN(len(wantStates))]
		if got, exp := readKeyState(t, b, probe, want), modelState(model[probe], want); !maps.Equal(got, exp) {
			t.Fatalf("step %d: ReadKey(%q, %q) = %q, want %q", step, probe, want, got, exp)
		}
	}
	if !b.names.overflow && len(names) > maxCachedNames {
		t.Fatal("the name set did not overflow: the walk was not exercised")
	}
}

// modelState is what ReadKey(key, want) must return for a key whose live
// entries are entries.
func modelState(entries map[string]string, want string) map[string]string {
	out := map[string]string{}
	for name, v := range entries {
		if NameMatches([]byte(name), want) {
			out[name] = v
		}
	}
	return out
}

// With the cache empty (a new backend over a flushed store) every entry
// comes from the seeks: each state's value and map entries, whatever
// names of other lengths and other keys lie between them.
func TestReadKeySeeksEveryMatchingName(t *testing.T) {
	s := openStore(t)
	names := []string{"a", "aa\x00q", "ab", "ab\x00", "ab\x00z", "ab\x00zz", "abc", "b", "b\x00", "total", "total\x00x"}
	keys := []string{"k", "k1", "k10"}
	b := fullBackend(t, s, "risk", 0)
	for _, k := range keys {
		mustKey(t, b, k)
		for _, n := range names {
			mustPut(t, b, n, k+"/"+n)
		}
	}
	flushCommit(t, s, b)
	b.Close()
	fresh := fullBackend(t, s, "risk", 0)
	for _, k := range keys {
		all := map[string]string{}
		for _, n := range names {
			all[n] = k + "/" + n
		}
		for _, want := range []string{"", "a", "aa", "ab", "abc", "b", "total", "ab\x00z", "none"} {
			if got, exp := readKeyState(t, fresh, k, want), modelState(all, want); !maps.Equal(got, exp) {
				t.Errorf("ReadKey(%q, %q) = %q, want %q", k, want, got, exp)
			}
		}
	}
}
