package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// subjectOtherA is a subject of stream SUMA that source "a" (filter
// suma.in) does not read: its messages occupy sequences of the stream.
const subjectOtherA = "suma.other"

// inputA returns n records of source "a" only, so that their stream
// sequences follow each other.
func inputA(n, keys, seed int) []sumRecord {
	recs := sumRecords(n, keys, seed)
	for i := range recs {
		recs[i].input = 0
	}
	return recs
}

// withSUMA runs f on a client of the pipeline's store (no pipeline
// running) and the stream SUMA.
func withSUMA(t *testing.T, cfg *config.Pipeline, f func(c *natsio.Conn, st jetstream.Stream)) {
	t.Helper()
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.JS.Stream(context.Background(), "SUMA")
	if err != nil {
		t.Fatal(err)
	}
	f(c, st)
}

// publishOther publishes n messages that source "a" does not read to SUMA.
func publishOther(t *testing.T, c *natsio.Conn, n int) {
	t.Helper()
	for i := range n {
		if _, err := c.JS.Publish(context.Background(), subjectOtherA, fmt.Appendf(nil, `{"k":"other","v":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
}

// Hardening item 8: a purge filtered to the source's subject, while other
// subjects keep the stream's first sequence low, removed records after the
// checkpoint's position. The restart resumed and silently lost them (state
// of 600 records instead of 1100); it must refuse, naming the sequences.
func TestRecoveryRefusesFilteredPurgePastPosition(t *testing.T) {
	s := newSumSetup(t, 1)
	cfg := s.load(t)
	batch1, batch2 := inputA(600, 20, 1), inputA(500, 20, 2)
	withSUMA(t, cfg, func(c *natsio.Conn, _ jetstream.Stream) { publishOther(t, c, 10) }) // sequences 1..10
	runSums(t, cfg, Options{}, batch1)                                                    // 11..610, checkpoint 1 at 610
	publishSumsStored(t, cfg, batch2)                                                     // 611..1110
	withSUMA(t, cfg, func(c *natsio.Conn, st jetstream.Stream) {
		publishOther(t, c, 5) // 1111..1115
		if err := st.Purge(context.Background(), jetstream.WithPurgeSubject(sumSubjectA)); err != nil {
			t.Fatal(err)
		}
		if first := st.CachedInfo().State.FirstSeq; first != 1 {
			t.Fatalf("stream SUMA starts at %d after the filtered purge, want 1 (the other subject's messages)", first)
		}
	})
	before := treeDigest(t, liveDirs(cfg)...)
	err := openRefused(t, cfg, Options{})
	t.Logf("refused: %v", err)
	wantRecoveryError(t, err, 1, `source "a"`, "SUMA", "611..1110", "--accept-gaps")
	sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
	testAcceptGaps(t, cfg, 0, expectedSums(batch1))
}

// Hardening item 9: one message after the checkpoint's position deleted
// (`nats stream rmm`). The restart resumed without
// it; it must refuse, naming the deleted sequence, and resume without it
// only when the run accepts gaps. A message deleted at or before the
// position lost nothing and is no reason to refuse.
func TestRecoveryRefusesDeletedMessageAfterPosition(t *testing.T) {
	skipInRacePass(t)
	batch1, batch2 := inputA(100, 12, 3), inputA(50, 12, 4) // sequences 1..100 (checkpoint), 101..150
	for _, c := range []struct {
		name    string
		deleted uint64
		refused bool
	}{
		{"first after the position", 101, true},
		{"inside the unread records", 120, true},
		{"before the position", 50, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSumSetup(t, 1)
			cfg := s.load(t)
			runSums(t, cfg, Options{}, batch1)
			publishSumsStored(t, cfg, batch2)
			withSUMA(t, cfg, func(_ *natsio.Conn, st jetstream.Stream) {
				if err := st.DeleteMsg(context.Background(), c.deleted); err != nil {
					t.Fatal(err)
				}
			})
			if !c.refused {
				stats := runSums(t, cfg, Options{}, nil)
				if stats.Processed != uint64(len(batch2)) {
					t.Errorf("processed %d records, want batch2's %d", stats.Processed, len(batch2))
				}
				checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(batch1, batch2))
				return
			}
			before := treeDigest(t, liveDirs(cfg)...)
			err := openRefused(t, cfg, Options{})
			t.Logf("refused: %v", err)
			wantRecoveryError(t, err, 1, `source "a"`, "SUMA", fmt.Sprintf("sequences %d, at or after sequence 101", c.deleted), "deleted", "--accept-gaps")
			sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
			kept := append([]sumRecord(nil), batch2...)
			kept = append(kept[:c.deleted-101], kept[c.deleted-100:]...)
			testAcceptGaps(t, cfg, len(kept), expectedSums(batch1, kept))
			// Its checkpoint is past the gap: the next run needs no flag.
			restoresCleanly(t, cfg, Options{}, newestCheckpoint(t, cfg).ID, expectedSums(batch1, kept))
		})
	}
}

// testAcceptGaps checks the explicit choice to resume past the gap
// (--accept-gaps): the run processes the records left, none twice, and its
// checkpoint holds exactly their sums.
func testAcceptGaps(t *testing.T, cfg *config.Pipeline, processed int, want map[string]int64) {
	t.Helper()
	stats := runSums(t, cfg, Options{Recovery: RecoveryOptions{AcceptGaps: true}}, nil)
	if stats.Processed != uint64(processed) {
		t.Errorf("the run accepting gaps processed %d records, want the %d left", stats.Processed, processed)
	}
	m := newestCheckpoint(t, cfg)
	if m.Metrics.Recovery == nil || m.Metrics.Recovery.FromCheckpoint != 1 {
		t.Errorf("checkpoint %d: recovery %+v, want a restore of checkpoint 1", m.ID, m.Metrics.Recovery)
	}
	checkSums(t, cfg, m.ID, want)
}

// Hardening item 10: the source stream deleted and created again while the
// pipeline runs. The source kept reading from its old position, skipped the
// new stream's first records and took a checkpoint with the new position
// and the old stream's creation time. The run must stop with an error
// naming the stream and both creation times, and no checkpoint may record a
// position of the new stream.
func TestRunStopsWhenSourceStreamIsRecreated(t *testing.T) {
	s := newSumSetup(t, 1)
	cfg := s.load(t)
	old, renewed := inputA(40, 8, 5), inputA(60, 8, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := quietOptions(t, Options{StopWhenIdle: 5 * time.Second, Checkpoint: CheckpointOptions{Interval: 100 * time.Millisecond}})
	p, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var created [2]time.Time
	fed := make(chan error, 1)
	go func() { fed <- recreateWhileRunning(p, old, renewed, &created) }()
	runErr := p.Run(ctx)
	if err := <-fed; err != nil {
		t.Fatal(err)
	}
	if runErr == nil {
		t.Fatalf("the run ended cleanly after stream SUMA was recreated under it (processed %d records)", p.Stats().Processed)
	}
	t.Logf("the run stopped: %v", runErr)
	for _, want := range []string{`source "a"`, "SUMA", created[0].Format(time.RFC3339Nano), created[1].Format(time.RFC3339Nano), "--empty-state"} {
		if !strings.Contains(runErr.Error(), want) {
			t.Errorf("run error %q does not say %q", runErr, want)
		}
	}
	ids, err := checkpoint.List(CheckpointRoot(cfg))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		for _, pos := range readManifest(t, cfg, id).Sources {
			if pos.Name == "a" && (!pos.StreamCreated.Equal(created[0]) || pos.LastSequence > uint64(len(old))) {
				t.Errorf("checkpoint %d records source a at sequence %d of the stream created %s; the old stream (created %s) ends at %d",
					id, pos.LastSequence, pos.StreamCreated.Format(time.RFC3339Nano), created[0].Format(time.RFC3339Nano), len(old))
			}
		}
	}
}

// recreateWhileRunning publishes old to SUMA, waits until the pipeline
// processed it, deletes SUMA and creates it again with the same
// configuration, and publishes renewed (more records than old, so that the
// new stream reaches past the old position). created gets both creation
// times.
func recreateWhileRunning(p *Pipeline, old, renewed []sumRecord, created *[2]time.Time) error {
	ctx := context.Background()
	if err := sendSums(p.Reach(), old, 0); err != nil {
		return err
	}
	for deadline := time.Now().Add(time.Minute); p.Stats().Processed < uint64(len(old)); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("processed %d of %d records", p.Stats().Processed, len(old))
		}
	}
	c, err := natsio.Connect(ctx, p.Reach())
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.JS.Stream(ctx, "SUMA")
	if err != nil {
		return err
	}
	info := st.CachedInfo()
	created[0] = info.Created
	if err := c.JS.DeleteStream(ctx, "SUMA"); err != nil {
		return err
	}
	st, err = c.JS.CreateStream(ctx, info.Config)
	if err != nil {
		return err
	}
	created[1] = st.CachedInfo().Created
	return sendSums(p.Reach(), renewed, 0)
}

// A purge of the whole stream past the position is refused as before, now
// naming --accept-gaps too, which resumes at the stream's first sequence.
func TestRecoveryAcceptsPurgePastPositionOnRequest(t *testing.T) {
	skipInRacePass(t)
	s := newSumSetup(t, 1)
	cfg := s.load(t)
	batch1, batch2, batch3 := inputA(40, 8, 7), inputA(30, 8, 8), inputA(20, 8, 9)
	runSums(t, cfg, Options{}, batch1) // 1..40, checkpoint 1 at 40
	publishSumsStored(t, cfg, batch2)  // 41..70
	withSUMA(t, cfg, func(_ *natsio.Conn, st jetstream.Stream) {
		if err := st.Purge(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	publishSumsStored(t, cfg, batch3) // 71..90
	err := openRefused(t, cfg, Options{})
	wantRecoveryError(t, err, 1, `source "a"`, "purged", "now starts at sequence 71", "--accept-gaps to resume at 71")
	testAcceptGaps(t, cfg, len(batch3), expectedSums(batch1, batch3))
	restoresCleanly(t, cfg, Options{}, newestCheckpoint(t, cfg).ID, expectedSums(batch1, batch3))
}
