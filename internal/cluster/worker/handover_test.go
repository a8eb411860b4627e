package worker

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// A part keeps the tasks the new assignment leaves on this worker at an
// unchanged parallelism, and hands over the others; a parallelism change
// moves every task of the operator (its key groups change).
func TestSplitTasks(t *testing.T) {
	cfgAt := func(par map[string]int) *config.Pipeline {
		c := &config.Pipeline{}
		for _, name := range slices.Sorted(maps.Keys(par)) {
			c.Operators = append(c.Operators, config.Operator{Name: name, Parallelism: par[name], MaxParallelism: 128})
		}
		return c
	}
	pt := &part{cfg: cfgAt(map[string]int{"a": 4, "b": 2}), tasks: map[string][]int{"a": {0, 1}, "b": {1}}}
	for _, c := range []struct {
		name       string
		want       *config.Pipeline
		mine       map[string][]int
		keep, drop map[string][]int
	}{
		{"unchanged", cfgAt(map[string]int{"a": 4, "b": 2}), map[string][]int{"a": {0, 1}, "b": {1}},
			map[string][]int{"a": {0, 1}, "b": {1}}, map[string][]int{}},
		{"one task moves away", cfgAt(map[string]int{"a": 4, "b": 2}), map[string][]int{"a": {0}, "b": {1}, "x": {0}},
			map[string][]int{"a": {0}, "b": {1}}, map[string][]int{"a": {1}}},
		{"a's parallelism changes", cfgAt(map[string]int{"a": 8, "b": 2}), map[string][]int{"a": {0, 1}, "b": {1}},
			map[string][]int{"b": {1}}, map[string][]int{"a": {0, 1}}},
	} {
		keep, drop := splitTasks(pt, c.want, c.mine)
		if !maps.EqualFunc(keep, c.keep, slices.Equal) || !maps.EqualFunc(drop, c.drop, slices.Equal) {
			t.Errorf("%s: keep %v drop %v, want keep %v drop %v", c.name, keep, drop, c.keep, c.drop)
		}
	}
	got := missingTasks(map[string][]int{"a": {0, 1, 2}, "b": {1}}, map[string][]int{"a": {1}, "b": {1}})
	if want := map[string][]int{"a": {0, 2}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("missingTasks = %v, want %v", got, want)
	}
}

// The worker's parts' shares make one ack with every part's tasks and the
// lowest position of each source; once one part fails, no ack is sent,
// and a late share cannot complete the set without the failed part's.
func TestAckGatherCombinesOrFailsTogether(t *testing.T) {
	p1, p2, p3 := &part{}, &part{}, &part{}
	g := newAckGather(&worker{id: "w1"}, trigger{Checkpoint: 4, Generation: 1, Assignment: 2}, []*part{p1, p2})
	g.add(p1, share{sources: []checkpoint.SourcePosition{{Name: "a", LastSequence: 90}},
		operators: []global.OperatorInfo{{Name: "sum"}}, tasks: []global.TaskPart{{Operator: "sum", Index: 0}}})
	if g.add(p3, share{}) {
		t.Fatal("a share of a part the round does not wait for completed it")
	}
	last := g.add(p2, share{sources: []checkpoint.SourcePosition{{Name: "a", LastSequence: 70}, {Name: "b", LastSequence: 5}},
		operators: []global.OperatorInfo{{Name: "sum"}}, tasks: []global.TaskPart{{Operator: "sum", Index: 3}}})
	if !last {
		t.Fatal("the second of two shares did not complete the set")
	}
	if len(g.ack.Tasks) != 2 || len(g.ack.Operators) != 1 || len(g.ack.Sources) != 2 || g.ack.Sources[0].LastSequence != 70 {
		t.Errorf("combined ack %+v: want both tasks, one operator, sources a at 70 and b", g.ack)
	}

	f := newAckGather(&worker{id: "w1"}, trigger{Checkpoint: 5}, []*part{p1, p2})
	f.fail(p1, errors.New("snapshot failed"))
	if f.add(p2, share{}) {
		t.Error("a share after a failure completed the set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := f.contribute(ctx, p2, share{}); !errors.Is(err, errPartFailed) {
		t.Errorf("contribute after a failure: %v, want errPartFailed", err)
	}
}

// A membership change made only of workers that said they leave needs no
// stabilization; one with a worker gone silent or a new one does.
func TestOnlyLeaving(t *testing.T) {
	for _, c := range []struct {
		before, now, leaving []string
		want                 bool
	}{
		{[]string{"a", "b", "c"}, []string{"a", "b"}, []string{"c"}, true},
		{[]string{"a", "b", "c"}, []string{"a", "b"}, nil, false},                // c died
		{[]string{"a", "b"}, []string{"a", "b", "c"}, nil, false},                // c joined
		{[]string{"a", "b", "c"}, []string{"a"}, []string{"c"}, false},           // b died too
		{[]string{"a", "b", "c"}, []string{"a", "d"}, []string{"b", "c"}, false}, // d joined
	} {
		if got := onlyLeaving(c.before, c.now, c.leaving); got != c.want {
			t.Errorf("onlyLeaving(%v, %v, %v) = %v, want %v", c.before, c.now, c.leaving, got, c.want)
		}
	}
}
