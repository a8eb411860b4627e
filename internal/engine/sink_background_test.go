package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// coveredInputs is how many inputs checkpoint id covers: the sum of its
// source positions (the sum pipeline has one output per input).
func coveredInputs(t *testing.T, cfg *config.Pipeline, id uint64) uint64 {
	t.Helper()
	m, err := checkpoint.Read(CheckpointRoot(cfg), id)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, s := range m.Sources {
		n += s.LastSequence
	}
	return n
}

// TestTransactionalAwaitedCheckpointWithBackgroundPublication: periodic
// checkpoints publish behind themselves while records flow; a trigger that
// waits is answered only once every output its checkpoint covers is
// visible, and nothing beyond it is. The stop publishes the rest: every
// output once, the crash-free sums.
func TestTransactionalAwaitedCheckpointWithBackgroundPublication(t *testing.T) {
	s := newSumSetup(t, 2)
	s.sinkMode = config.ModeTransactional
	cfg := s.load(t)
	first, second := sumRecords(3000, 11, 1), sumRecords(3000, 11, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, Options{StopWhenIdle: -1, Checkpoint: CheckpointOptions{Interval: 20 * time.Millisecond, Retain: 1000}}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	publishSums(t, p.Reach(), first)
	go func() { _ = sendSums(p.Reach(), second, 0) }() // records keep flowing during the trigger
	waitProcessed(t, p, uint64(len(first)))
	res, err := p.Trigger(ctx)
	if err != nil || res.Error != "" {
		t.Fatalf("trigger: %v %s", err, res.Error)
	}
	if n, want := outputCount(t, p), coveredInputs(t, cfg, res.ID); n != want {
		t.Fatalf("%d outputs visible when the trigger of checkpoint %d was answered, want exactly the %d it covers", n, res.ID, want)
	}
	waitProcessed(t, p, uint64(len(first)+len(second)))
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.Close()
	all := len(first) + len(second)
	if got := len(readSubject(t, cfg, sumSubjectOut)); got != all {
		t.Fatalf("%d outputs stored in the end, want %d", got, all)
	}
	diffSums(t, "last outputs", lastOutputSums(t, cfg), expectedSums(first, second))
}

// TestTransactionalPublicationFailureStopsThePipeline: a background
// publication that fails for good (the output stream stopped accepting
// atomic batches) stops the pipeline with that error, it is not dropped;
// the outputs stay staged in the completed checkpoint, and the restart
// (once the stream accepts atomic batches again) publishes them: every
// output exactly once.
func TestTransactionalPublicationFailureStopsThePipeline(t *testing.T) {
	s := newSumSetup(t, 1)
	s.sinkMode = config.ModeTransactional
	cfg := s.load(t)
	first, second := sumRecords(400, 7, 1), sumRecords(400, 7, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ck := CheckpointOptions{Interval: 20 * time.Millisecond, Retain: 1}
	p, err := Open(ctx, cfg, quietOptions(t, Options{StopWhenIdle: -1, Checkpoint: ck}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	publishSums(t, p.Reach(), first)
	waitOutputs(t, p, uint64(len(first)), done)
	setAtomic(t, p, false)
	publishSums(t, p.Reach(), second)
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the pipeline kept running after its publication failed")
	}
	if !errors.Is(err, natsio.ErrAtomicPublishDisabled) || !strings.Contains(err.Error(), "publishing the transactional outputs") {
		t.Fatalf("the run ended with %v, want the failed publication (ErrAtomicPublishDisabled)", err)
	}
	if n := outputCount(t, p); n != uint64(len(first)) {
		t.Fatalf("%d outputs visible after the failure, want the first %d only", n, len(first))
	}
	setAtomic(t, p, true)
	p.Close()
	runSums(t, cfg, Options{Checkpoint: ck}, nil)
	all := len(first) + len(second)
	if got := len(readSubject(t, cfg, sumSubjectOut)); got != all {
		t.Fatalf("%d outputs stored after the restart, want %d", got, all)
	}
	diffSums(t, "last outputs", lastOutputSums(t, cfg), expectedSums(first, second))
}

// waitOutputs waits until n outputs are visible; it fails the test if the
// run ends first.
func waitOutputs(t *testing.T, p *Pipeline, n uint64, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for outputCount(t, p) < n {
		select {
		case err := <-done:
			t.Fatalf("the run ended before %d outputs were visible: %v", n, err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d outputs visible after a minute", outputCount(t, p), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// setAtomic turns atomic publish of the sum pipeline's output stream on or
// off, on its own connection.
func setAtomic(t *testing.T, p *Pipeline, on bool) {
	t.Helper()
	withSumOut(t, p, func(ctx context.Context, c *natsio.Conn, info *jetstream.StreamInfo) {
		scfg := info.Config
		scfg.AllowAtomicPublish = on
		if _, err := c.JS.UpdateStream(ctx, scfg); err != nil {
			t.Fatalf("setting allow_atomic to %v on SUMOUT: %v", on, err)
		}
	})
}
