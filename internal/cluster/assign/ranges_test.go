package assign

import (
	"math/rand/v2"
	"testing"

	"github.com/wasmstream/wasmstream/internal/state"
)

// The coordinator's ranges must be the ranges the engine routes records
// by, or a worker would own key groups whose records go to another task.
// rangeForTask restates state.RangeForTask (package state imports
// Pebble); this test keeps the two copies equal.
func TestRangeForTaskAgreesWithState(t *testing.T) {
	if MaxMaxParallelism != state.MaxMaxParallelism {
		t.Fatalf("MaxMaxParallelism %d, state's %d", MaxMaxParallelism, state.MaxMaxParallelism)
	}
	agree := func(i, p, m int) {
		got, want := rangeForTask(i, p, m), state.RangeForTask(i, p, m)
		if got.Start != want.Start || got.End != want.End {
			t.Fatalf("rangeForTask(%d, %d, %d) = %s, state.RangeForTask = %s", i, p, m, got, want)
		}
	}
	for m := 1; m <= 160; m++ {
		for p := 1; p <= m; p++ {
			for i := range p {
				agree(i, p, m)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		m := 1 + r.IntN(MaxMaxParallelism)
		p := 1 + r.IntN(m)
		agree(r.IntN(p), p, m)
		agree(p-1, p, m)
	}
}

// validOperator accepts exactly the parallelisms state accepts.
func TestValidOperatorAgreesWithState(t *testing.T) {
	for _, m := range []int{-1, 0, 1, 2, 128, MaxMaxParallelism, MaxMaxParallelism + 1} {
		for _, p := range []int{-1, 0, 1, 2, 127, 128, 129, MaxMaxParallelism, MaxMaxParallelism + 1} {
			got := validOperator(Operator{Name: "op", MaxParallelism: m, Parallelism: p}) == nil
			if want := state.ValidateParallelism(p, m) == nil; got != want {
				t.Errorf("m %d p %d: valid %v, state says %v", m, p, got, want)
			}
		}
	}
}
