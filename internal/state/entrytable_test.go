package state

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The table must answer as a map would, through growth, wrap-around probe
// runs and removals that shift entries back.
func TestEntryTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tab := newEntryTable()
	model := map[string]*entry{}
	keys := make([]string, 5000)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	for step := 0; step < 200_000; step++ {
		k := keys[rng.IntN(len(keys))]
		switch e := model[k]; {
		case e == nil && rng.IntN(3) > 0:
			e = &entry{key: k}
			tab.add(e)
			model[k] = e
		case e != nil && rng.IntN(2) == 0:
			tab.remove(e)
			delete(model, k)
		}
		if got := tab.get([]byte(k)); got != model[k] {
			t.Fatalf("step %d: get(%q) = %p, want %p", step, k, got, model[k])
		}
		if tab.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, tab.len(), len(model))
		}
	}
	seen := 0
	tab.each(rng.Int(), func(e *entry) bool {
		if model[e.key] != e {
			t.Fatalf("each gave %q, not in the model", e.key)
		}
		seen++
		return true
	})
	if seen != len(model) {
		t.Fatalf("each visited %d entries, want %d", seen, len(model))
	}
	for k, e := range model {
		if tab.get([]byte(k)) != e {
			t.Fatalf("final get(%q) lost its entry", k)
		}
	}
}

// Removing an entry that is not indexed, or from an empty table, is a no-op.
func TestEntryTableRemoveAbsent(t *testing.T) {
	tab := newEntryTable()
	tab.remove(&entry{key: "x"})
	a := &entry{key: "a"}
	tab.add(a)
	tab.remove(&entry{key: "a"}) // same key, other entry
	if tab.get([]byte("a")) != a || tab.len() != 1 {
		t.Fatal("removing another entry with the same key changed the table")
	}
	_ = tab.warm([]uint64{tab.hash([]byte("a")), tab.hash([]byte("zz"))})
}
