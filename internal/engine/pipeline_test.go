package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

const paymentRiskPkg = "./examples/payment-risk/operator"

// testPipeline writes a payment-risk pipeline file into a temp dir, with the
// built guest, a free embedded port and the given operator settings.
func testPipeline(t *testing.T, wasm string, dataDir string, port int, operatorExtra string) *config.Pipeline {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(`
name     = "payment-risk"
data_dir = %q
server { embedded_port = %d }
stream "PAYMENTS" { subjects = ["payments.>"] }
stream "RISK" { subjects = ["risk.>"] }
source "payments" {
  stream  = "PAYMENTS"
  subject = "payments.in"
}
operator "risk" {
  module  = %q
  inputs  = ["payments"]
  key { json_field = "account" }
  outputs = { out = "risk-totals" }
  %s
}
sink "risk-totals" { subject = "risk.totals" }
`, dataDir, port, wasm, operatorExtra)
	path := filepath.Join(dir, "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func testLogger(t *testing.T) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: testWriter{t}})
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// runUntilIdle opens the pipeline, publishes lines while it runs, and runs
// it until it has been idle for a moment.
func runUntilIdle(t *testing.T, cfg *config.Pipeline, lines string) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, Options{Logger: testLogger(t), StopWhenIdle: 1500 * time.Millisecond, Checkpoint: CheckpointOptions{Interval: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	publishLines(t, p.Reach(), lines)
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return p.Stats()
}

func publishLines(t *testing.T, reach natsio.ServerOptions, lines string) {
	t.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := natsio.PublishJSONLines(ctx, c, strings.NewReader(lines), "payments.in", "", nil); err != nil {
		t.Fatal(err)
	}
}

type riskResult struct {
	Account string `json:"account"`
	Event   string `json:"event"`
	Cents   int64  `json:"cents"`
	Total   int64  `json:"total"`
}

// readSubject reads everything stored for subject through a temporary
// embedded server on the pipeline's store (the pipeline is stopped).
func readSubject(t *testing.T, cfg *config.Pipeline, subject string) []natsio.Message {
	t.Helper()
	return readSubjectAs(t, cfg, subject, AsControl)
}

// readSubjectAs reads every stored message of subject, connecting as role.
func readSubjectAs(t *testing.T, cfg *config.Pipeline, subject string, role auth.Role) []natsio.Message {
	t.Helper()
	ctx := context.Background()
	c, err := ConnectClient(ctx, cfg, hclog.NewNullLogger(), role)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var msgs []natsio.Message
	err = natsio.ReadStored(ctx, c, natsio.ReadSpec{Subject: subject, IdleWait: 300 * time.Millisecond}, func(m natsio.Message) error {
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func results(t *testing.T, msgs []natsio.Message) []riskResult {
	t.Helper()
	var rs []riskResult
	for _, m := range msgs {
		var r riskResult
		if err := json.Unmarshal(m.Data, &r); err != nil {
			t.Fatalf("output %q: %v", m.Data, err)
		}
		rs = append(rs, r)
	}
	return rs
}

const pinnedEvents = `{"account":"acct-47","event":"evt-47","cents":1200}
{"account":"acct-47","event":"evt-48","cents":900}
{"account":"acct-47","event":"evt-48","cents":900}
`

// The pinned payment-risk case end to end on embedded JetStream, Pebble and
// the real Go guest; then a restart that must resume after the committed
// position with the state intact.
func TestPaymentRiskEndToEnd(t *testing.T) {
	wasm := testutil.GoGuest(t, paymentRiskPkg)
	cfg := testPipeline(t, wasm, testutil.PrivateTempDir(t), testutil.FreePort(t), "")

	stats := runUntilIdle(t, cfg, pinnedEvents)
	if stats.Processed != 3 || stats.Emitted != 2 || stats.DeadLettered != 0 {
		t.Fatalf("first run stats %+v, want 3 processed, 2 emitted", stats)
	}
	got := results(t, readSubject(t, cfg, "risk.totals"))
	want := []riskResult{{"acct-47", "evt-47", 1200, 1200}, {"acct-47", "evt-48", 900, 2100}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outputs %+v, want %+v", got, want)
	}

	// Second run: evt-48 redelivered once more and a new event. The old
	// records are not replayed (position committed) and the state survived.
	stats = runUntilIdle(t, cfg, `{"account":"acct-47","event":"evt-48","cents":900}
{"account":"acct-47","event":"evt-49","cents":5}
`)
	if stats.Processed != 2 || stats.Emitted != 1 {
		t.Fatalf("second run stats %+v, want 2 processed, 1 emitted", stats)
	}
	got = results(t, readSubject(t, cfg, "risk.totals"))
	if len(got) != 3 || got[2] != (riskResult{"acct-47", "evt-49", 5, 2105}) {
		t.Fatalf("outputs after restart %+v", got)
	}
}

// A record the guest rejects goes to the dead-letter subject with the reason,
// and the records around it are processed.
func TestBadRecordIsDeadLettered(t *testing.T) {
	skipInRacePass(t)
	wasm := testutil.GoGuest(t, paymentRiskPkg)
	cfg := testPipeline(t, wasm, testutil.PrivateTempDir(t), testutil.FreePort(t), `config = jsonencode({ max_cents = 1000 })`)
	stats := runUntilIdle(t, cfg, `{"account":"a","event":"e1","cents":10}
{"account":"a","event":"e2","cents":5000}
{"account":"a","event":"e3","cents":-1}
{"event":"e4","cents":1}
{"account":"a","event":"e5","cents":20}
`)
	if stats.Emitted != 2 {
		t.Fatalf("stats %+v, want 2 emitted", stats)
	}
	got := results(t, readSubject(t, cfg, "risk.totals"))
	if len(got) != 2 || got[1].Total != 30 {
		t.Fatalf("outputs %+v, want totals 10 then 30", got)
	}
	dead := readSubject(t, cfg, "wasmstream.dlq.>")
	if len(dead) != 3 {
		t.Fatalf("dead letters: %d, want 3 (over max, negative, no key)", len(dead))
	}
	reasons := map[string]string{}
	for _, m := range dead {
		if m.Header.Get(HeaderError) == "" || m.Header.Get(HeaderSourceSequence) == "" {
			t.Errorf("dead letter lacks reason headers: %v", m.Header)
		}
		reasons[m.Header.Get(HeaderSourceSequence)] = m.Header.Get(HeaderError)
	}
	if !strings.Contains(reasons["4"], "key") || !strings.Contains(reasons["2"], "1000") {
		t.Errorf("dead-letter reasons: %v", reasons)
	}
}
