package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// echoPkg is the pass-through test guest: per record a note "<n> bytes"
// then the value unchanged, both on "out", and a count per key.
const echoPkg = "./internal/testguests/echo"

// Subjects of the echo pipeline.
const (
	echoSubjectIn      = "echo.in"
	echoSubjectOut     = "echoout.out"
	echoDeadLetterSubj = "wasmstream.dlq.echoes.echo"
)

// serverDefaultMaxPayload is nats-server's default max_payload (1 MiB).
const serverDefaultMaxPayload = 1 << 20

// echoPipeline loads a pipeline reading echoSubjectIn through the echo
// guest into a sink of mode sinkMode on echoSubjectOut; serverExtra goes
// into the server block.
func echoPipeline(t *testing.T, dataDir string, port int, sinkMode, serverExtra string) *config.Pipeline {
	t.Helper()
	module := testutil.GoGuest(t, echoPkg)
	seedCompilationCache(t, dataDir, module)
	src := fmt.Sprintf(`
name     = "echoes"
data_dir = %q
server {
  embedded_port = %d
  %s
}
stream "ECHO" { subjects = ["echo.>"] }
stream "ECHOOUT" {
  subjects         = ["echoout.>"]
  duplicate_window = "10m"
}
source "in" {
  stream  = "ECHO"
  subject = %q
}
operator "echo" {
  module  = %q
  inputs  = ["in"]
  key { json_field = "k" }
  outputs = { out = "echoed" }
}
sink "echoed" {
  subject = %q
  mode    = %q
}
`, dataDir, port, serverExtra, echoSubjectIn, module, echoSubjectOut, sinkMode)
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

// echoRecord is a JSON record of key k padded to exactly size bytes.
func echoRecord(k string, size int) string {
	rec := fmt.Sprintf(`{"k":%q,"pad":""}`, k)
	return rec[:len(rec)-2] + strings.Repeat("x", size-len(rec)) + `"}`
}

// echoCounts decodes the echo guest's counts in checkpoint id.
func echoCounts(t *testing.T, cfg *config.Pipeline, id uint64) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	for _, e := range dumpState(t, cfg, id) {
		if e.Name == "count" && len(e.Value) == 8 {
			got[e.Key] = int64(binary.LittleEndian.Uint64(e.Value))
		}
	}
	return got
}

// An input of max_payload-8 bytes passes through an operator whose
// output, with the output's headers, no longer fits the server's max
// payload. It used to stop the pipeline at publish ("nats: maximum payload
// exceeded"), and every restart stopped the same way. Now the record is
// dead-lettered with the reason, its other output and its state write are
// dropped, the records after it are processed, and a replay from empty
// state makes the same decision without stopping. For a transactional sink
// the same check runs at staging: the staged output would fail the
// checkpoint's atomic batch at every commit.
func TestOutputOverMaxPayloadIsDeadLettered(t *testing.T) {
	for _, mode := range []string{config.ModeIdempotent, config.ModeTransactional} {
		t.Run(mode, func(t *testing.T) {
			cfg := echoPipeline(t, t.TempDir(), testutil.FreePort(t), mode, "")
			big := echoRecord("b", serverDefaultMaxPayload-8)
			stats := runSumsWith(t, cfg, Options{}, func(p *Pipeline) error {
				return publishRaw(p.Reach(), echoSubjectIn, echoRecord("a", 20), big, echoRecord("a", 30))
			})
			if stats.Processed != 2 || stats.DeadLettered != 1 {
				t.Errorf("stats %+v, want 2 processed and 1 dead-lettered", stats)
			}
			checkEchoOutputs(t, cfg, []string{"20 bytes", echoRecord("a", 20), "30 bytes", echoRecord("a", 30)})
			checkOversizeDeadLetter(t, cfg)
			if got := echoCounts(t, cfg, newestCheckpoint(t, cfg).ID); got["a"] != 2 || got["b"] != 0 {
				t.Errorf("counts %v, want a=2 and no count for b (its state write is rolled back)", got)
			}

			// A replay of the same records from empty state makes the same
			// decision and goes on to a new record.
			stats = runSumsWith(t, cfg, Options{Recovery: RecoveryOptions{EmptyState: true}}, func(p *Pipeline) error {
				return publishRaw(p.Reach(), echoSubjectIn, echoRecord("a", 40))
			})
			if stats.Processed != 3 || stats.DeadLettered != 1 {
				t.Errorf("replay stats %+v, want 3 processed and 1 dead-lettered", stats)
			}
			checkEchoOutputs(t, cfg, []string{"20 bytes", echoRecord("a", 20), "30 bytes", echoRecord("a", 30), "40 bytes", echoRecord("a", 40)})
			checkOversizeDeadLetter(t, cfg)
			if got := echoCounts(t, cfg, newestCheckpoint(t, cfg).ID); got["a"] != 3 || got["b"] != 0 {
				t.Errorf("counts after the replay %v, want a=3 and no count for b", got)
			}
		})
	}
}

func checkEchoOutputs(t *testing.T, cfg *config.Pipeline, want []string) {
	t.Helper()
	var got []string
	for _, m := range readSubject(t, cfg, echoSubjectOut) {
		got = append(got, string(m.Data))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("outputs (%d):\n%.200q\nwant (%d):\n%.200q", len(got), got, len(want), want)
	}
}

// checkOversizeDeadLetter checks the one dead letter of the echo pipeline:
// record 2, with a reason that names the sizes and the fix, and without
// the record's data, which does not fit either.
func checkOversizeDeadLetter(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	dead := readSubject(t, cfg, echoDeadLetterSubj)
	if len(dead) != 1 {
		t.Fatalf("%d dead letters, want 1 (record 2)", len(dead))
	}
	m := dead[0]
	reason := m.Header.Get(HeaderError)
	t.Logf("dead letter: %s: %q; %s: %q", HeaderError, reason, HeaderDataOmitted, m.Header.Get(HeaderDataOmitted))
	if m.Header.Get(HeaderSourceSequence) != "2" {
		t.Errorf("dead letter of sequence %q, want 2", m.Header.Get(HeaderSourceSequence))
	}
	for _, want := range []string{"max_payload", fmt.Sprint(serverDefaultMaxPayload), "bytes", "emit less"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q does not say %q", reason, want)
		}
	}
	if len(m.Data) != 0 || !strings.Contains(m.Header.Get(HeaderDataOmitted), fmt.Sprint(serverDefaultMaxPayload-8)) {
		t.Errorf("dead letter has %d bytes of data and %s %q; want the data left out and its size said",
			len(m.Data), HeaderDataOmitted, m.Header.Get(HeaderDataOmitted))
	}
}

// server.max_payload configures the embedded server, and the run warns at
// start about an operator whose max_value_bytes (here the default, 1 MiB)
// is above it, naming both numbers and the fix; an input that fits the
// smaller limit on its own but not as an output is dead-lettered.
func TestRunWarnsAboutLimitsOverMaxPayload(t *testing.T) {
	const maxPayload = 128 << 10
	cfg := echoPipeline(t, t.TempDir(), testutil.FreePort(t), config.ModeIdempotent, fmt.Sprintf("max_payload = %d", maxPayload))
	var logs syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: &logs})
	stats := runSumsWith(t, cfg, Options{Logger: logger}, func(p *Pipeline) error {
		return publishRaw(p.Reach(), echoSubjectIn, echoRecord("a", 20), echoRecord("b", maxPayload-8), echoRecord("a", 30))
	})
	if stats.Processed != 2 || stats.DeadLettered != 1 {
		t.Errorf("stats %+v, want 2 processed and 1 dead-lettered", stats)
	}
	warned := false
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "max_value_bytes 1048576") {
			warned = true
			for _, want := range []string{`operator "echo"`, fmt.Sprintf("max_payload of %d bytes", maxPayload), "raise server.max_payload", "lower max_value_bytes"} {
				if !strings.Contains(line, want) {
					t.Errorf("warning %q does not say %q", line, want)
				}
			}
		}
	}
	if !warned {
		t.Errorf("no warning about max_value_bytes over max_payload in the logs:\n%s", logs.String())
	}
	reasons := deadLetterReasons(t, readSubject(t, cfg, echoDeadLetterSubj))
	if !strings.Contains(reasons["2"], fmt.Sprintf("over the server's max_payload of %d bytes", maxPayload)) {
		t.Errorf("dead letters %v, want record 2 over max_payload %d", reasons, maxPayload)
	}
}

// validate's check: the embedded server's max payload comes from the
// config (no server is started); a server at url is asked, and one that
// cannot be reached is an error, not silence.
func TestPayloadWarnings(t *testing.T) {
	const big = 16 << 20
	cfg := echoPipeline(t, t.TempDir(), testutil.FreePort(t), config.ModeIdempotent, "")
	cfg.Operators[0].Limits.MaxValueBytes = big
	check := func(what string, want string) {
		t.Helper()
		ws, err := PayloadWarnings(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var got []string
		for _, w := range ws {
			got = append(got, w.String())
		}
		if want == "" && len(got) > 0 || want != "" && (len(got) != 1 || !strings.Contains(got[0], want)) {
			t.Errorf("%s: warnings %q, want one containing %q", what, got, want)
		}
	}
	check("embedded, default max_payload", "max_value_bytes 16777216 is above the server's max_payload of 1048576 bytes")
	cfg.Server.MaxPayload = big
	check("embedded, max_payload raised", "")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := natsio.Connect(ctx, natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort, MaxPayload: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	cfg.Server = config.Server{URL: server.ClientURL()}
	check("server at url", "max_payload of 262144 bytes: ") // the server's, not the config's
	cfg.Server = config.Server{URL: fmt.Sprintf("nats://127.0.0.1:%d", testutil.FreePort(t))}
	if _, err := PayloadWarnings(context.Background(), cfg); err == nil {
		t.Error("no server at url: no error; want the check reported as not made")
	}
}

// A dead letter that does not fit the server's max payload loses, in this
// order, the record's data, the record's headers, the end of the reason;
// one that fits is left as it is.
func TestFitDeadLetter(t *testing.T) {
	m := &natsio.Message{Stream: "IN", Sequence: 7, Data: []byte(strings.Repeat("d", 1000))}
	engineHeaders := nats.Header{HeaderError: {strings.Repeat("r", 100)}, HeaderSourceSequence: {"7"}}
	letter := func(recordHeader string) natsio.OutMessage {
		h := nats.Header{"Trace": {recordHeader}}
		maps.Copy(h, engineHeaders)
		return natsio.OutMessage{Subject: "dlq", MsgID: "dlq.p.o.in.7.0", Data: m.Data, Header: h}
	}
	full := natsio.WireSize(letter("t"))
	tests := []struct {
		name         string
		recordHeader string
		limit        int64
		data, trace  bool // kept
		reasonLen    int
	}{
		{"fits", "t", int64(full), true, true, 100},
		{"no limit known", "t", 0, true, true, 100},
		{"data left out", "t", int64(full - 1), false, true, 100},
		{"record headers left out", strings.Repeat("t", 400), 400, false, false, 100},
		{"reason cut", "t", 320, false, false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fitDeadLetter(letter(tt.recordHeader), m, engineHeaders, tt.limit)
			if size := natsio.WireSize(got); tt.limit > 0 && int64(size) > tt.limit {
				t.Errorf("%d bytes, over the limit %d", size, tt.limit)
			}
			if (len(got.Data) > 0) != tt.data || (got.Header.Get("Trace") != "") != tt.trace {
				t.Errorf("data kept %v, record header kept %v; want %v, %v", len(got.Data) > 0, got.Header.Get("Trace") != "", tt.data, tt.trace)
			}
			omitted := got.Header.Get(HeaderDataOmitted)
			if tt.data == (omitted != "") || !tt.data && !strings.Contains(omitted, "1000 bytes") {
				t.Errorf("%s: %q", HeaderDataOmitted, omitted)
			}
			reason := got.Header.Get(HeaderError)
			if tt.reasonLen >= 0 && len(reason) != tt.reasonLen || tt.reasonLen < 0 && (len(reason) >= 100 || !strings.HasSuffix(reason, "...")) {
				t.Errorf("reason of %d bytes %q", len(reason), reason)
			}
			if got.Header.Get(HeaderSourceSequence) != "7" {
				t.Errorf("engine headers lost: %v", got.Header)
			}
		})
	}
}
