package engine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// dedupPkg is the TTL test guest: it drops a record whose id its key has
// seen, remembering ids in map state "seen"; with config {"ttl_ms":N} the
// module itself declares the TTL (SDK Dedup helper).
const dedupPkg = "./internal/testguests/dedupttl"

// dedupSetup is a dedupttl pipeline: source "in" (subject dedup.in) feeds
// operator "dedup", keyed by "k", whose outputs go to dedupout.out.
type dedupSetup struct {
	dataDir, module string
	port            int
	configTTL       string // ttl of the config's state "seen" block; "": no block
	stateName       string // that block's name instead of "seen" (a typo)
	moduleTTLMillis int64  // the guest declares this TTL; 0: it declares none
	maxDupDelay     string // the source's max_duplicate_delay; "": none
}

func newDedupSetup(t *testing.T) dedupSetup {
	t.Helper()
	s := dedupSetup{dataDir: t.TempDir(), port: testutil.FreePort(t), module: testutil.GoGuest(t, dedupPkg)}
	seedCompilationCache(t, s.dataDir, s.module)
	return s
}

func (s dedupSetup) load(t *testing.T) *config.Pipeline {
	t.Helper()
	var block, guestCfg, delay string
	if s.configTTL != "" {
		block = fmt.Sprintf("  state %q { ttl = %q }\n", cmp.Or(s.stateName, "seen"), s.configTTL)
	}
	if s.moduleTTLMillis > 0 {
		guestCfg = fmt.Sprintf("  config = %q\n", fmt.Sprintf(`{"ttl_ms":%d}`, s.moduleTTLMillis))
	}
	if s.maxDupDelay != "" {
		delay = fmt.Sprintf("  max_duplicate_delay = %q\n", s.maxDupDelay)
	}
	src := fmt.Sprintf(`
name     = "dedup"
data_dir = %q
server { embedded_port = %d }
stream "IN" { subjects = ["dedup.>"] }
stream "OUT" { subjects = ["dedupout.>"] }
source "in" {
  stream  = "IN"
  subject = "dedup.in"
%s}
operator "dedup" {
  module = %q
  inputs = ["in"]
  key { json_field = "k" }
%s%s  outputs = { out = "out" }
}
sink "out" { subject = "dedupout.out" }
`, s.dataDir, s.port, delay, s.module, block, guestCfg)
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testClock is a settable processing clock shared with the pipeline's goroutines.
type testClock struct{ ns atomic.Int64 }

func newTestClock() *testClock {
	c := &testClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *testClock) now() time.Time            { return time.Unix(0, c.ns.Load()) }
func (c *testClock) advance(d time.Duration)   { c.ns.Add(int64(d)) }
func (c *testClock) options(o Options) Options { o.Clock = c.now; return o }

// dedupRecord is the JSON of one input record.
func dedupRecord(key, id string) []byte { return fmt.Appendf(nil, `{"k":%q,"id":%q}`, key, id) }

// runDedup runs the pipeline (restoring its newest checkpoint) over records
// published while it runs, until idle; the final checkpoint covers them.
func runDedup(t *testing.T, cfg *config.Pipeline, opts Options, records ...[]byte) Stats {
	t.Helper()
	return runSumsWith(t, cfg, opts, func(p *Pipeline) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := natsio.Connect(ctx, p.Reach())
		if err != nil {
			return err
		}
		defer c.Close()
		sink := c.NewSink(64)
		defer sink.Close()
		for _, r := range records {
			if err := sink.Publish(ctx, natsio.OutMessage{Subject: "dedup.in", Data: r}); err != nil {
				return err
			}
		}
		return sink.Flush(ctx)
	})
}

// TestTTLTracedCaseAcrossRestore is the traced case through the engine,
// with a checkpoint and a restore in between: id 42 is processed at t=0
// and the pipeline stops (final checkpoint); it restarts at t=65 s and id
// 42 arrives again. With a 60 s TTL the redelivery is processed a second
// time, with 120 s it is caught: the expiry travelled in the checkpoint
// and processing-time TTL counts the downtime. Run with the TTL from the
// config and from the module's own declaration (SDK Dedup helper), which
// overrides a config TTL.
func TestTTLTracedCaseAcrossRestore(t *testing.T) {
	for _, tc := range []struct {
		name      string
		configTTL string
		moduleTTL int64
		processed uint64 // outputs for id 42 over both runs
	}{
		{"config 60s", "60s", 0, 2},
		{"config 120s", "120s", 0, 1},
		{"module 60s", "", 60_000, 2},
		{"module 120s overrides config 60s", "60s", 120_000, 1},
		{"module 60s overrides config 120s", "120s", 60_000, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newDedupSetup(t)
			s.configTTL, s.moduleTTLMillis = tc.configTTL, tc.moduleTTL
			cfg, clock := s.load(t), newTestClock()
			first := runDedup(t, cfg, clock.options(Options{}), dedupRecord("acct", "42"))
			ck := newestCheckpoint(t, cfg)
			entries := dumpState(t, cfg, ck.ID)
			if len(entries) != 1 || entries[0].ExpiresAt == 0 {
				t.Fatalf("checkpoint %d holds %+v; want the entry of id 42 with its expiry", ck.ID, entries)
			}
			clock.advance(65 * time.Second)
			second := runDedup(t, cfg, clock.options(Options{}), dedupRecord("acct", "42"))
			if got := first.Emitted + second.Emitted; got != tc.processed {
				t.Fatalf("id 42 processed %d times, want %d", got, tc.processed)
			}
		})
	}
}

// TestTTLChangeRestoresCleanly: a checkpoint written under one TTL restores
// under another TTL or none, as documented (internal/state/FORMAT.md §3.1): the run
// is not refused, and a stored expiry is honoured until the entry is
// written again.
func TestTTLChangeRestoresCleanly(t *testing.T) {
	skipInRacePass(t)
	s := newDedupSetup(t)
	s.configTTL = "120s"
	clock := newTestClock()
	runDedup(t, s.load(t), clock.options(Options{}), dedupRecord("acct", "42"), dedupRecord("acct", "7"))

	s.configTTL = "" // TTL removed: entries keep their expiry (t=120 s)
	clock.advance(65 * time.Second)
	st := runDedup(t, s.load(t), clock.options(Options{}), dedupRecord("acct", "42"), dedupRecord("acct", "8"))
	if st.Emitted != 1 {
		t.Fatalf("at t=65 s without TTL: %d outputs, want 1 (42 caught by its stored expiry, 8 new)", st.Emitted)
	}
	entries := dumpState(t, s.load(t), newestCheckpoint(t, s.load(t)).ID)
	for _, e := range entries {
		if wantExpiry := e.Key != "acct" || !strings.HasSuffix(e.Name, "8"); (e.ExpiresAt != 0) != wantExpiry {
			t.Errorf("entry %q: expiry %d; written before the TTL was removed: %v", e.Name, e.ExpiresAt, wantExpiry)
		}
	}

	s.configTTL = "10s"             // TTL added back, shorter
	clock.advance(60 * time.Second) // t=125 s: 42's stored expiry (120 s) passed
	st = runDedup(t, s.load(t), clock.options(Options{}), dedupRecord("acct", "42"), dedupRecord("acct", "8"))
	if st.Emitted != 1 {
		t.Fatalf("at t=125 s with a 10s TTL: %d outputs, want 1 (42 expired, 8 adopted the TTL when read and still live)", st.Emitted)
	}
}

// TestTTLDormantKeyReturns: a key whose state expired while it was dormant
// sees it absent when it returns, whether or not the sweep removed it, and
// a key that stayed active keeps its own entries.
func TestTTLDormantKeyReturns(t *testing.T) {
	skipInRacePass(t)
	s := newDedupSetup(t)
	s.configTTL = "60s"
	cfg, clock := s.load(t), newTestClock()
	runDedup(t, cfg, clock.options(Options{}), dedupRecord("dormant", "1"), dedupRecord("active", "1"))
	clock.advance(50 * time.Second)
	runDedup(t, cfg, clock.options(Options{}), dedupRecord("active", "2"))
	clock.advance(20 * time.Second) // t=70 s: dormant/1 and active/1 expired, active/2 live
	st := runDedup(t, cfg, clock.options(Options{}),
		dedupRecord("dormant", "1"), dedupRecord("active", "1"), dedupRecord("active", "2"))
	if st.Emitted != 2 {
		t.Fatalf("%d outputs, want 2: the expired ids of both keys are new again, active/2 is still a duplicate", st.Emitted)
	}
}

// TestTTLCleanupKeepsExpiredOutOfCheckpoints: ids that expired are removed
// by the sweep (an idle task sweeps on its own) and are not in the next
// checkpoint; the metrics count them.
func TestTTLCleanupKeepsExpiredOutOfCheckpoints(t *testing.T) {
	s := newDedupSetup(t)
	s.configTTL = "60s"
	cfg, clock := s.load(t), newTestClock()
	var old [][]byte
	for i := range 500 {
		old = append(old, dedupRecord(fmt.Sprintf("k%d", i%20), fmt.Sprint(i)))
	}
	runDedup(t, cfg, clock.options(Options{}), old...)
	if n := len(dumpState(t, cfg, newestCheckpoint(t, cfg).ID)); n != 500 {
		t.Fatalf("first checkpoint holds %d entries, want 500", n)
	}
	clock.advance(2 * time.Minute)
	opts := clock.options(Options{StopWhenIdle: 2500 * time.Millisecond}) // long enough for an idle sweep
	st := runDedup(t, cfg, opts, dedupRecord("k0", "new"))
	entries := dumpState(t, cfg, newestCheckpoint(t, cfg).ID)
	if len(entries) != 1 || entries[0].Name != "seen\x00new" {
		t.Fatalf("checkpoint after expiry holds %d entries (%+v), want only the new id", len(entries), entries[:min(3, len(entries))])
	}
	if st.StateExpired != 500 || st.SweepPasses == 0 {
		t.Fatalf("metrics: expired %d, sweep passes %d; want 500 and > 0", st.StateExpired, st.SweepPasses)
	}
}

// TestTTLWarnings: a TTL shorter than a source's max_duplicate_delay is
// warned about by validate and at run start; a long enough one is not.
func TestTTLWarnings(t *testing.T) {
	skipInRacePass(t)
	s := newDedupSetup(t)
	s.configTTL, s.maxDupDelay = "1m", "5m"
	reports, err := Validate(context.Background(), s.load(t))
	if err != nil {
		t.Fatal(err)
	}
	r := reports[0]
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].String(), `state "seen": ttl 1m0s is shorter than source "in"'s max_duplicate_delay 5m0s`) {
		t.Fatalf("validate warnings %v", r.Warnings)
	}
	if len(r.TTLs) != 1 || !strings.Contains(r.TTLs[0], "seen: ttl 1m0s, on_create_and_write, never_return_expired, processing_time (from config)") {
		t.Fatalf("validate TTLs %q", r.TTLs)
	}
	s.moduleTTLMillis = 600_000 // the module's 10 m overrides: no warning
	reports, err = Validate(context.Background(), s.load(t))
	if err != nil || len(reports[0].Warnings) != 0 || !strings.Contains(reports[0].TTLs[0], "from module (overrides config ttl 1m0s)") {
		t.Fatalf("with the module's TTL: %v %v %q", err, reports[0].Warnings, reports[0].TTLs)
	}

	var logged strings.Builder
	s.moduleTTLMillis = 0
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: &logged})
	runDedup(t, s.load(t), Options{Logger: logger}, dedupRecord("a", "1"))
	if !strings.Contains(logged.String(), "is shorter than source") || !strings.Contains(logged.String(), "state ttl") {
		t.Fatalf("run log lacks the TTL line or the warning:\n%s", logged.String())
	}
}
