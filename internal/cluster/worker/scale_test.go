package worker

import (
	"errors"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

func scaleConfig(sinkMode string) *config.Pipeline {
	return &config.Pipeline{Name: "p",
		Operators: []config.Operator{{Name: "risk", Parallelism: 4, MaxParallelism: 128}, {Name: "other", Parallelism: 2, MaxParallelism: 16}},
		Sinks:     []config.Sink{{Name: "out", Mode: sinkMode}}}
}

func TestCheckScale(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  *config.Pipeline
		req  ScaleRequest
		ok   bool
	}{
		{"ok", scaleConfig(config.ModeIdempotent), ScaleRequest{Operator: "risk", Parallelism: 8}, true},
		{"max parallelism", scaleConfig(config.ModeIdempotent), ScaleRequest{Operator: "risk", Parallelism: 128}, true},
		{"unknown operator", scaleConfig(config.ModeIdempotent), ScaleRequest{Operator: "nope", Parallelism: 2}, false},
		{"zero", scaleConfig(config.ModeIdempotent), ScaleRequest{Operator: "risk", Parallelism: 0}, false},
		{"over max parallelism", scaleConfig(config.ModeIdempotent), ScaleRequest{Operator: "other", Parallelism: 17}, false},
		{"transactional sink", scaleConfig(config.ModeTransactional), ScaleRequest{Operator: "risk", Parallelism: 2}, false},
	} {
		err := checkScale(tc.cfg, tc.req)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrScale) {
			t.Errorf("%s: %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// The next assignment plans every operator at the parallelism in force
// (a rescale outlives the file), changed only by a pending request.
func TestOperatorsKeepTheParallelismInForce(t *testing.T) {
	c := &coordinator{w: &worker{cfg: scaleConfig(config.ModeIdempotent)}}
	prev, _, err := assign.Plan(nil, []assign.Operator{{Name: "risk", MaxParallelism: 128, Parallelism: 6}, {Name: "other", MaxParallelism: 16, Parallelism: 2}},
		[]string{"w1"}, assign.Stamp{Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	par := func(ops []assign.Operator) map[string]int {
		out := map[string]int{}
		for _, o := range ops {
			out[o.Name] = o.Parallelism
		}
		return out
	}
	if got := par(c.operators(nil, ScaleRequest{}, false)); got["risk"] != 4 || got["other"] != 2 {
		t.Errorf("first assignment: %v, want the file's 4 and 2", got)
	}
	if got := par(c.operators(&prev, ScaleRequest{}, false)); got["risk"] != 6 {
		t.Errorf("after a rescale to 6: %v, want 6 kept", got)
	}
	if got := par(c.operators(&prev, ScaleRequest{Operator: "other", Parallelism: 3}, true)); got["risk"] != 6 || got["other"] != 3 {
		t.Errorf("request other=3: %v, want risk 6, other 3", got)
	}
}

// A scale that waits says how long it waited, out of how long, and what
// the assignment in force runs, or why it cannot be read.
func TestScaleWaiting(t *testing.T) {
	a := assign.Assignment{Epoch: 7, Operators: []assign.OperatorTasks{{Name: "risk", Tasks: make([]assign.Task, 4)}}}
	got := scaleWaiting(a, nil, "risk", 10*time.Second+300*time.Millisecond, 2*time.Minute)
	want := "waiting for the coordinator to rescale operator risk (10s of 2m0s): assignment 7 runs it with 4 tasks"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = scaleWaiting(assign.Assignment{}, errors.New("leader read: context deadline exceeded"), "risk", 20*time.Second, time.Minute)
	want = "waiting for the coordinator to rescale operator risk (20s of 1m0s): the assignment cannot be read now: leader read: context deadline exceeded"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
