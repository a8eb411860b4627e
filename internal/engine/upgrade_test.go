package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// riskRelease builds release n of the payment-risk operator
// (examples/payment-risk/operator/release.go): 1 stores totals as 8 bytes,
// 2 as {"cents":N} with a migration from 1, 3 declares v3 with a migration
// that refuses every value.
func riskRelease(t *testing.T, n int) string {
	return testutil.GoGuestWithFlags(t, paymentRiskPkg, fmt.Sprintf("-X main.release=%d", n))
}

// syncLog is a log sink the test can search while the pipeline writes.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.buf.String(), s)
}

// waitLog waits until the log has s.
func (l *syncLog) waitLog(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !l.contains(s) {
		if time.Now().After(deadline) {
			l.mu.Lock()
			t.Fatalf("log never said %q:\n%s", s, l.buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// served runs Serve in the background with a log the test reads.
type served struct {
	cfg  *config.Pipeline
	log  *syncLog
	stop context.CancelFunc
	done chan error
}

func serve(t *testing.T, cfg *config.Pipeline) *served {
	t.Helper()
	s := &served{cfg: cfg, log: &syncLog{}, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: s.log})
	go func() {
		s.done <- Serve(ctx, cfg, Options{Logger: logger, Checkpoint: CheckpointOptions{Interval: -1}})
	}()
	s.log.waitLog(t, "pipeline running")
	return s
}

func (s *served) finish(t *testing.T) {
	t.Helper()
	s.stop()
	if err := <-s.done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// publishEvents publishes payment events to the running pipeline.
func (s *served) publishEvents(t *testing.T, events ...string) {
	t.Helper()
	ctx := context.Background()
	c, err := connectRunning(ctx, s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sink := c.NewSink(16)
	defer sink.Close()
	for _, e := range events {
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "payments.in", Data: []byte(e)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitOutputs waits until the output stream RISK holds n messages.
func (s *served) waitOutputs(t *testing.T, n uint64) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := connectRunning(ctx, s.cfg)
		if err == nil {
			st, err := c.JS.Stream(ctx, "RISK")
			if err == nil && st.CachedInfo().State.Msgs >= n {
				c.Close()
				return
			}
			c.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the output stream never held %d messages", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func event(account, id string, cents int) string {
	return fmt.Sprintf(`{"account":%q,"event":%q,"cents":%d}`, account, id, cents)
}

// TestUpgradeMigratesState: release 1 runs, a checkpoint exists, the
// upgrade to release 2 is accepted, the pipeline restarts with it and the
// stored totals are migrated to {"cents":N}; processing continues on the
// migrated totals, and the manifest records the module and state version.
// The upgrade to release 3, whose migration fails on the newest checkpoint,
// is refused and release 2 keeps running.
func TestUpgradeMigratesState(t *testing.T) {
	v1, v2, v3 := riskRelease(t, 1), riskRelease(t, 2), riskRelease(t, 3)
	cfg := testPipeline(t, v1, testutil.PrivateTempDir(t), testutil.FreePort(t), "")
	s := serve(t, cfg)
	s.publishEvents(t, event("a", "e1", 100), event("b", "e2", 50), event("a", "e3", 25))
	waitCheckpoint(t, cfg)
	r, err := RequestUpgrade(context.Background(), cfg, UpgradeRequest{Operator: "risk", Module: v2}, time.Minute)
	if err != nil || !r.Accepted || r.States != `"total" v1 → v2` {
		t.Fatalf("upgrade to release 2: %+v %v", r, err)
	}
	s.log.waitLog(t, "upgrade completed")
	s.log.waitLog(t, "state migrated")
	s.publishEvents(t, event("a", "e4", 1))
	waitCheckpoint(t, cfg)
	r, err = RequestUpgrade(context.Background(), cfg, UpgradeRequest{Operator: "risk", Module: v3}, time.Minute)
	if err != nil || r.Accepted || !strings.Contains(r.Error, "not written yet") {
		t.Fatalf("upgrade to release 3: %+v %v; want refused by its failing migration", r, err)
	}
	s.publishEvents(t, event("b", "e5", 2))
	s.waitOutputs(t, 5)
	s.finish(t)

	m := newestCheckpoint(t, cfg)
	if m.Operators[0].StateVersions["total"] != 2 {
		t.Fatalf("manifest state versions %v, want total v2", m.Operators[0].StateVersions)
	}
	totals := map[string]string{}
	for _, e := range dumpState(t, cfg, m.ID) {
		if e.Name == "total" {
			totals[e.Key] = string(e.Value)
		}
	}
	if totals["a"] != `{"cents":126}` || totals["b"] != `{"cents":52}` {
		t.Fatalf("totals %v, want a {\"cents\":126}, b {\"cents\":52}", totals)
	}
	last := map[string]int64{}
	for _, r := range results(t, readSubject(t, cfg, "risk.totals")) {
		last[r.Account] = r.Total
	}
	if last["a"] != 126 || last["b"] != 52 {
		t.Fatalf("last outputs %v", last)
	}
}

// TestUpgradeRollsBackWhenTheRestartMigrationFails: with no checkpoint to
// try the migration on, the upgrade to release 3 is accepted; its migration
// fails during the restart, and the pipeline restores the same checkpoint
// with release 2 again and goes on.
func TestUpgradeRollsBackWhenTheRestartMigrationFails(t *testing.T) {
	skipInRacePass(t)
	v2, v3 := riskRelease(t, 2), riskRelease(t, 3)
	cfg := testPipeline(t, v2, testutil.PrivateTempDir(t), testutil.FreePort(t), "")
	s := serve(t, cfg)
	s.publishEvents(t, event("a", "e1", 7))
	r, err := RequestUpgrade(context.Background(), cfg, UpgradeRequest{Operator: "risk", Module: v3}, time.Minute)
	if err != nil || !r.Accepted {
		t.Fatalf("upgrade to release 3 without a checkpoint to try: %+v %v; want accepted", r, err)
	}
	s.log.waitLog(t, "upgrade rolled back")
	s.log.waitLog(t, "not written yet")
	s.publishEvents(t, event("a", "e2", 3))
	s.waitOutputs(t, 2)
	s.finish(t)
	last := map[string]int64{}
	for _, r := range results(t, readSubject(t, cfg, "risk.totals")) {
		last[r.Account] = r.Total
	}
	if last["a"] != 10 {
		t.Fatalf("after the rollback account a totals %d, want 10", last["a"])
	}
}

// TestRestoreRefusesAnOlderStateVersion: a checkpoint written by release 2
// (total v2) is refused by release 1, which declares no migration; nothing
// changes.
func TestRestoreRefusesAnOlderStateVersion(t *testing.T) {
	skipInRacePass(t)
	v1, v2 := riskRelease(t, 1), riskRelease(t, 2)
	dataDir, port := t.TempDir(), testutil.FreePort(t)
	cfg := testPipeline(t, v2, dataDir, port, "")
	runUntilIdle(t, cfg, event("a", "e1", 7)+"\n")
	err := openRefused(t, testPipeline(t, v1, dataDir, port, ""), Options{})
	if err == nil || !strings.Contains(err.Error(), `"total" v2 → v1 without declaring a migration`) {
		t.Fatalf("restore with release 1: %v", err)
	}
}

// waitCheckpoint triggers a checkpoint on the running pipeline.
func waitCheckpoint(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	if _, err := TriggerCheckpoint(context.Background(), cfg, hclog.NewNullLogger(), time.Minute); err != nil {
		t.Fatal(err)
	}
}
