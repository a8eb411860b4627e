package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// outputCount is the number of messages stored on the sum pipeline's
// output subject, read on its own connection to the running pipeline.
func outputCount(t *testing.T, p *Pipeline) uint64 {
	t.Helper()
	var n uint64
	withSumOut(t, p, func(_ context.Context, _ *natsio.Conn, info *jetstream.StreamInfo) { n = info.State.Msgs })
	return n
}

// withSumOut calls f with the info of the sum pipeline's output stream,
// read on a connection of its own to the running pipeline, which f may use.
func withSumOut(t *testing.T, p *Pipeline, f func(ctx context.Context, c *natsio.Conn, info *jetstream.StreamInfo)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := natsio.Connect(ctx, p.Reach())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.JS.Stream(ctx, "SUMOUT")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f(ctx, c, info)
}

// waitProcessed waits until the pipeline's guests processed n records.
func waitProcessed(t *testing.T, p *Pipeline, n uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for p.Stats().Processed < n {
		if time.Now().After(deadline) {
			t.Fatalf("processed %d of %d records after a minute", p.Stats().Processed, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTransactionalOutputsAppearOnlyAfterTheirCheckpoint: with checkpoints
// on demand only, every record is processed and nothing is visible; the
// checkpoint makes all the outputs visible at once; the final state and
// outputs equal the crash-free sums.
func TestTransactionalOutputsAppearOnlyAfterTheirCheckpoint(t *testing.T) {
	s := newSumSetup(t, 2)
	s.sinkMode = config.ModeTransactional
	cfg := s.load(t)
	recs := sumRecords(300, 7, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, Options{StopWhenIdle: -1}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	publishSums(t, p.Reach(), recs)
	waitProcessed(t, p, uint64(len(recs)))
	if n := outputCount(t, p); n != 0 {
		t.Fatalf("%d outputs visible before any checkpoint completed, want 0", n)
	}
	res, err := p.Trigger(ctx)
	if err != nil || res.Error != "" {
		t.Fatalf("trigger: %v %s", err, res.Error)
	}
	if n := outputCount(t, p); n != uint64(len(recs)) {
		t.Fatalf("%d outputs visible after checkpoint %d, want %d", n, res.ID, len(recs))
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.Close()
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(recs))
	diffSums(t, "last outputs", lastOutputSums(t, cfg), expectedSums(recs))
	if got := len(readSubject(t, cfg, sumSubjectOut)); got != len(recs) {
		t.Fatalf("%d outputs stored in the end, want %d", got, len(recs))
	}
}

// TestSinkModeMessageIDs: idempotent outputs carry an id from the event_id
// when the source declares one (and from the stream sequence otherwise);
// at_least_once outputs carry none.
func TestSinkModeMessageIDs(t *testing.T) {
	skipInRacePass(t)
	for _, tc := range []struct {
		mode, eventID string
		want          func(id string) bool
	}{
		{config.ModeIdempotent, "k", func(id string) bool {
			return strings.HasPrefix(id, "sums.sum.a.id:key-") && strings.HasSuffix(id, ".0")
		}},
		{config.ModeIdempotent, "", func(id string) bool { return strings.HasPrefix(id, "sums.sum.a.") && !strings.Contains(id, "id:") }},
		{config.ModeAtLeastOnce, "k", func(id string) bool { return id == "" }},
	} {
		t.Run(tc.mode+"/"+tc.eventID, func(t *testing.T) {
			s := newSumSetup(t, 1)
			s.sinkMode, s.eventIDField = tc.mode, tc.eventID
			cfg := s.load(t)
			recs := []sumRecord{{input: 0, key: "key-1", v: 5}}
			runSums(t, cfg, Options{}, recs)
			msgs := readSubject(t, cfg, sumSubjectOut)
			if len(msgs) != 1 {
				t.Fatalf("%d outputs, want 1", len(msgs))
			}
			if id := msgs[0].Header.Get(jetstream.MsgIDHeader); !tc.want(id) {
				t.Fatalf("Nats-Msg-Id %q", id)
			}
		})
	}
}

// streamMsgs is the number of messages a stream holds now.
func streamMsgs(t *testing.T, cfg *config.Pipeline, stream string) uint64 {
	t.Helper()
	ctx := context.Background()
	c, err := ConnectClient(ctx, cfg, testLogger(t), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.JS.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestWorkQueueSourceAcknowledgesThroughCheckpoints: a WorkQueue stream's
// messages are removed only once a completed checkpoint covers them; a
// second run over new messages continues exactly where the first stopped.
func TestWorkQueueSourceAcknowledgesThroughCheckpoints(t *testing.T) {
	s := newSumSetup(t, 1)
	s.retentionA = "workqueue"
	cfg := s.load(t)
	first := sumRecords(200, 5, 1)
	for i := range first {
		first[i].input = 0
	}
	publishSumsStored(t, cfg, first)
	if n := streamMsgs(t, cfg, "SUMA"); n != 200 {
		t.Fatalf("work queue holds %d before the run, want 200", n)
	}
	runSums(t, cfg, Options{}, nil)
	if n := streamMsgs(t, cfg, "SUMA"); n != 0 {
		t.Fatalf("work queue holds %d after the final checkpoint, want 0 (all acknowledged)", n)
	}
	second := sumRecords(100, 5, 2)
	for i := range second {
		second[i].input = 0
	}
	runSums(t, cfg, Options{}, second)
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(first, second))
	if n := streamMsgs(t, cfg, "SUMA"); n != 0 {
		t.Fatalf("work queue holds %d after the second run, want 0", n)
	}
}

// TestSinkWarnings: a declared output stream whose duplicate window (10m
// for SUMOUT) is shorter than the checkpoint interval plus the outage
// budget (30s) plus the recovery margin is warned about for idempotent and transactional sinks, never for
// at_least_once; a short enough interval gives no warning.
func TestSinkWarnings(t *testing.T) {
	skipInRacePass(t)
	s := newSumSetup(t, 1)
	for _, interval := range []string{"10m", "5m"} {
		s.checkpoint = fmt.Sprintf("interval = %q", interval)
		for mode, warns := range map[string]bool{config.ModeIdempotent: true, config.ModeTransactional: true, config.ModeAtLeastOnce: false} {
			s.sinkMode = mode
			got := SinkWarnings(s.load(t))
			want := warns && interval == "10m"
			if (len(got) == 1) != want || len(got) > 1 {
				t.Errorf("interval %s, mode %s: warnings %q, want one: %v", interval, mode, got, want)
			}
			if want && !strings.Contains(got[0], "stream SUMOUT remembers message ids for 10m0s but a replay can come 11m30s after the first publish") {
				t.Errorf("warning %q", got[0])
			}
		}
	}
}
