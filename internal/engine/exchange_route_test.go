package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// routedSubjectHCL is a routed source whose operator keys records by their subject: the router
// must carry each record's subject through the exchange stream.
const routedSubjectHCL = `
name     = "routed"
data_dir = %q
server { embedded_port = %d }
stream "SUMA" { subjects = ["suma.>"] }
stream "OUT" {
  subjects         = ["routed.>"]
  duplicate_window = "10m"
}
source "a" {
  stream  = "SUMA"
  subject = "suma.>"
  route   = true
}
operator "s1" {
  module      = %q
  inputs      = ["a"]
  parallelism = 2
  key { subject_token = 2 }
  outputs = { out = "final" }
}
sink "final" { subject = "routed.final" }
`

// A routed source's records reach its operator as the source stored them: keyed by their
// subject (restored from the exchange's Wasmstream-Exchange-Subject), every record once. The
// router drops what would change its publish into the exchange or forge a barrier: a record
// carrying Nats-Expected-Stream (JetStream would refuse the exchange publish) and one carrying
// Wasmstream-Exchange-Marker (its consumer would read it as a marker) are routed like the others.
func TestRoutedSourceKeepsSubjectsAndDropsControlHeaders(t *testing.T) {
	dir := testutil.PrivateTempDir(t)
	module := testutil.GoGuest(t, sum2Pkg)
	seedCompilationCache(t, dir, module)
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, fmt.Appendf(nil, routedSubjectHCL, dir, testutil.FreePort(t), module), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := chainRecords(600, 25, 3)
	stats := runSumsWith(t, cfg, Options{Checkpoint: CheckpointOptions{Interval: 100 * time.Millisecond}}, func(p *Pipeline) error {
		return publishBySubject(p.Reach(), recs)
	})
	if stats.DeadLettered != 0 || stats.Processed != uint64(len(recs)) {
		t.Errorf("stats %+v: want every record processed once, none dead-lettered", stats)
	}
	sums := stageSums(t, dumpState(t, cfg, newestCheckpoint(t, cfg).ID))
	diffSums(t, "operator s1 keyed by the records' subjects", sums["s1"], expectedSums(recs))
}

// publishBySubject publishes recs on suma.<key>, the first with Nats-Expected-Stream and the
// second with a forged marker header.
func publishBySubject(reach natsio.ServerOptions, recs []sumRecord) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		return err
	}
	defer c.Close()
	sink := c.NewSink(1024)
	defer sink.Close()
	for i, r := range recs {
		h := nats.Header{}
		switch i {
		case 0:
			h.Set("Nats-Expected-Stream", "SUMA")
		case 1:
			h.Set(exchange.HeaderMarker, "1")
		}
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "suma." + r.key, Data: r.json(), Header: h}); err != nil {
			return err
		}
	}
	return sink.Flush(ctx)
}

// routedHeader keeps the record's own headers but for the exchange's reserved names and
// JetStream's publish headers, and adds the record's subject and event time.
func TestRoutedHeader(t *testing.T) {
	at := time.Unix(1700000000, 5)
	m := &natsio.Message{Subject: "pay.eu.1", Time: at, Header: nats.Header{
		"Tenant":                      {"a", "b"},
		"Nats-Msg-Id":                 {"x"},
		"nats-expected-last-sequence": {"9"},
		"Wasmstream-Exchange-Marker":  {"1"},
		"wasmstream-exchange-subject": {"forged"},
		"Wasmstream-Key":              {"k"},
		exchange.HeaderEventTime:      {"1"},
	}}
	h := routedHeader(m)
	want := nats.Header{
		"Tenant":                 {"a", "b"},
		"Wasmstream-Key":         {"k"},
		exchange.HeaderSubject:   {"pay.eu.1"},
		exchange.HeaderEventTime: {exchange.EncodeEventTime(at)},
	}
	if fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("routedHeader = %v, want %v", h, want)
	}
}

// Changing a source's route setting is refused on a checkpoint that a crash left (records may
// sit between the router and its readers) and accepted on the final checkpoint of a graceful
// stop, after which the state and the outputs stay exact: none lost, none twice.
func TestChangingRouteNeedsAGracefulStop(t *testing.T) {
	skipInRacePass(t)
	s := newChainSetup(t, 2)
	s.interval, s.route = 50*time.Millisecond, true
	routed := s.load(t)
	batch1, batch2, batch3 := chainRecords(800, 20, 7), chainRecords(800, 20, 8), chainRecords(400, 20, 9)
	crashMidInput(t, routed, s.options(), batch1, batch2)

	s.route = false
	direct := s.load(t)
	err := openRefused(t, direct, Options{})
	if !errors.Is(err, ErrRecovery) || !strings.Contains(err.Error(), "route = true") {
		t.Fatalf("opening the crashed routed pipeline without route: %v, want ErrRecovery naming route = true", err)
	}
	st := runSums(t, routed, Options{}, nil) // the old setting, to a graceful stop
	t.Logf("routed to a graceful stop: %+v", st)
	st = runSums(t, direct, Options{}, batch3)
	t.Logf("direct: %+v", st)
	checkChain(t, s, direct, slices.Concat(batch1, batch2, batch3))
}

// A run with --empty-state (here after a crash, the source stream created again with other
// records) deletes the exchange streams of the earlier run: otherwise their
// duplicate windows would drop the new records, whose ids repeat the old ones', and the next
// stage would read the old records again.
func TestEmptyStateDeletesTheExchangesOfAnEarlierRun(t *testing.T) {
	skipInRacePass(t)
	s := newChainSetup(t, 2)
	s.interval = 50 * time.Millisecond
	cfg := s.load(t)
	fresh := chainRecords(500, 20, 12)
	crashMidInput(t, cfg, s.options(), chainRecords(500, 20, 10), chainRecords(500, 20, 11)) // records left in the exchange

	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.JS.DeleteStream(context.Background(), "SUMA"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	runSums(t, cfg, Options{Recovery: RecoveryOptions{EmptyState: true}}, fresh)
	sums := stageSums(t, dumpState(t, cfg, newestCheckpoint(t, cfg).ID))
	want := chainWant(fresh)
	diffSums(t, "operator s1", sums["s1"], want["s1"])
	diffSums(t, "operator s2", sums["s2"], want["s2"])
}

// The local-edge shortcut delivers what a read of the exchange stream would: with the feed at
// its size, most records come from it; with a feed of 16 records (a consumer always behind it)
// and without the shortcut, they come from the stream; in every case each stage's state and
// each sink's outputs equal the reference, through a crash and its recovery.
func TestExchangeShortcutKeepsTheStreamsSemantics(t *testing.T) {
	skipInRacePass(t)
	for _, tc := range []struct {
		name     string
		capacity int
		off      bool
	}{{"feed", 8192, false}, {"small feed", 16, false}, {"no shortcut", 8192, true}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(c int) { feedCapacity = c }(feedCapacity)
			feedCapacity = tc.capacity
			s := newChainSetup(t, 3)
			s.interval = 50 * time.Millisecond
			cfg := s.load(t)
			opts := s.options()
			opts.NoExchangeShortcut = tc.off
			batch1, batch2, batch3 := chainRecords(1500, 30, 31), chainRecords(1500, 30, 32), chainRecords(500, 30, 33)
			crashMidInput(t, cfg, opts, batch1, batch2)
			var feed, stream uint64
			runSumsWith(t, cfg, Options{NoExchangeShortcut: tc.off}, func(p *Pipeline) error {
				err := sendSums(p.Reach(), batch3, 0)
				time.Sleep(300 * time.Millisecond) // let batch3 through the stages before counting
				for _, src := range p.sources {
					if r, ok := src.src.(*shortcutReader); ok {
						feed, stream = feed+r.viaFeed.Load(), stream+r.viaStream.Load()
					}
				}
				return err
			})
			checkChain(t, s, cfg, slices.Concat(batch1, batch2, batch3))
			t.Logf("after the restore: %d messages from the feeds, %d from the streams", feed, stream)
			switch {
			case tc.off && feed+stream > 0:
				t.Errorf("without the shortcut %d messages went through readers with a feed", feed+stream)
			case !tc.off && tc.capacity > 16 && feed == 0:
				t.Error("with the shortcut no message came from a feed")
			case !tc.off && stream == 0:
				t.Error("the restored run read nothing from the streams: it must catch up with what the crashed run left there")
			}
		})
	}
}
