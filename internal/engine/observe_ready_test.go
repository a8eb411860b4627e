package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/host"
)

// TestCheckpointsLate: the checkpoint part of readiness, step by step on a
// fixed clock: on time up to 3 intervals after the start or the last
// completion, late past it, and never late with on-demand checkpoints.
func TestCheckpointsLate(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const interval = time.Second
	for _, tc := range []struct {
		name      string
		interval  time.Duration
		completed bool
		now       time.Duration // after start
		want      string        // "" ready, else part of the reason
	}{
		{"none yet, within 3 intervals", interval, false, 3 * interval, ""},
		{"none yet, past 3 intervals", interval, false, 3*interval + time.Millisecond, "no checkpoint completed in the 3.001s since the start"},
		{"last one within 3 intervals", interval, true, 10*interval + 3*interval, ""},
		{"last one past 3 intervals", interval, true, 10*interval + 4*interval, "the last completed checkpoint (7) is 4s old, more than 3 checkpoint intervals (1s)"},
		{"on demand only", -1, false, time.Hour, ""},
	} {
		p := &Pipeline{opts: Options{Checkpoint: CheckpointOptions{Interval: tc.interval}}}
		p.metrics.attached = start
		if tc.completed {
			p.metrics.checkpointCompleted(checkpoint.Manifest{ID: 7})
			p.metrics.checkpoints.lastAt = start.Add(10 * interval)
		}
		got := p.checkpointsLate(start.Add(tc.now))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestGuestReason: every kind of guest failure that isolates a record has
// its own reason label; a kind without one is "other", never a free text
// (a label value per message would grow the metric without bound).
func TestGuestReason(t *testing.T) {
	for kind, want := range map[error]string{
		host.ErrRecordFailed: "rejected", host.ErrTrap: "trap", host.ErrTimeout: "timeout", host.ErrMemoryLimit: "memory_limit",
		host.ErrABIMisuse: "abi_misuse", host.ErrOutputRefused: "output_refused", host.ErrInit: "other",
		fmt.Errorf("wrapped: %w", host.ErrTrap): "trap", errors.New("new kind"): "other",
	} {
		if got := guestReason(&host.GuestError{Kind: kind}); got != want {
			t.Errorf("%v: reason %q, want %q", kind, got, want)
		}
	}
	for _, r := range []string{reasonKey, reasonRejected, reasonOther} {
		if !strings.Contains(strings.Join(deadLetterReasonLabels, " "), r) {
			t.Errorf("reason %q is not among the labels shown", r)
		}
	}
}

// TestStartObserver: no endpoint without an observe block, and a taken
// port is an error that names the pipeline, observe.listen and the fix.
func TestStartObserver(t *testing.T) {
	cfg := observedSums(t, newSumSetup(t, 1), "")
	cfg.Observe.Listen = ""
	if obs, err := StartObserver(cfg, nil); obs != nil || err != nil {
		t.Fatalf("without an endpoint: %v, %v; want nil, nil", obs, err)
	}
	var none *Observer
	none.Close()
	if none.URL() != "" {
		t.Error("a nil Observer has a URL")
	}
	cfg.Observe.Listen = "127.0.0.1:0"
	first, err := StartObserver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	cfg.Observe.Listen = strings.TrimPrefix(first.URL(), "http://")
	second, err := StartObserver(cfg, nil)
	if err == nil {
		second.Close()
		t.Fatal("a second endpoint started on a taken port")
	}
	for _, want := range []string{`pipeline "sums"`, `observe.listen "` + cfg.Observe.Listen + `"`, "choose another observe.listen"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestEpochLag: the lag counts the persisted checkpoints whose outputs
// are not published, from the run's first (earlier ones were published
// before it), and a failed persist or publish changes nothing.
func TestEpochLag(t *testing.T) {
	var m pipelineMetrics
	failed := errors.New("NATS unreachable")
	steps := []struct {
		persist bool
		id      uint64
		err     error
		want    uint64
	}{
		{true, 41, nil, 1}, {false, 41, nil, 0}, // restored 40: the first persist is 41
		{true, 42, nil, 1}, {false, 42, failed, 1}, {true, 43, nil, 2}, {true, 44, failed, 2},
		{false, 43, nil, 0},
	}
	for i, s := range steps {
		var err error
		if s.persist {
			err = m.epochPersisted(s.id, s.err)
		} else {
			err = m.epochPublished(s.id, s.err)
		}
		if err != s.err || m.epochLag() != s.want {
			t.Errorf("step %d (%+v): err %v, lag %d, want %d", i, s, err, m.epochLag(), s.want)
		}
	}
}
