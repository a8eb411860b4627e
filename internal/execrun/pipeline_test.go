package execrun_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/execrun"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// The payment-risk example (its pipeline file and events.jsonl, plus a
// record without a key and one the guest rejects) run by exec and by a
// pipeline on embedded JetStream: the same outputs (data, key, headers,
// message ids), the same dead letters with the same reasons, the same
// final state.
func TestExecMatchesPipelineRun(t *testing.T) {
	events, err := os.ReadFile(example(t, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	input := writeLines(t, string(bytes.TrimSpace(events)),
		`{"event":"evt-50","cents":1}`,
		`{"account":"acct-9","event":"evt-9","cents":-4}`)

	res := run(t, riskOptions(t, input))
	pipe := runPipeline(t, input)

	if len(res.Outputs) != 2 || len(res.DeadLetters) != 2 {
		t.Fatalf("exec: %d outputs and %d dead letters, want 2 and 2", len(res.Outputs), len(res.DeadLetters))
	}
	compareOutputs(t, res.Outputs, pipe.outputs)
	compareDeadLetters(t, res.DeadLetters, pipe.deadLetters)
	compareState(t, res.State, pipe.state)
	total, ok := stateOf(res, "acct-47", "total", "")
	if !ok || len(total) != 8 || binary.LittleEndian.Uint64(total) != 2100 {
		t.Errorf("exec: acct-47's total is %x (found %t), want 2100 as 8 bytes little-endian", total, ok)
	}
}

func compareOutputs(t *testing.T, got []execrun.Output, want []natsio.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("exec: %d outputs, pipeline: %d", len(got), len(want))
	}
	for i, o := range got {
		w := want[i]
		switch {
		case !bytes.Equal(o.Value, w.Data):
			t.Errorf("output %d: exec %s, pipeline %s", i, o.Value, w.Data)
		case o.Subject != w.Subject:
			t.Errorf("output %d: exec subject %s, pipeline %s", i, o.Subject, w.Subject)
		case o.MsgID != w.Header.Get("Nats-Msg-Id"):
			t.Errorf("output %d: exec msg id %q, pipeline %q", i, o.MsgID, w.Header.Get("Nats-Msg-Id"))
		case string(o.Key) != w.Header.Get(engine.HeaderKey):
			t.Errorf("output %d: exec key %q, pipeline %q", i, o.Key, w.Header.Get(engine.HeaderKey))
		case o.Headers.Get("event-id") != w.Header.Get("event-id") || o.Headers.Get("event-id") == "":
			t.Errorf("output %d: exec event-id header %q, pipeline %q", i, o.Headers.Get("event-id"), w.Header.Get("event-id"))
		}
	}
}

func compareDeadLetters(t *testing.T, got []execrun.DeadLetter, want []natsio.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("exec: %d dead letters, pipeline: %d", len(got), len(want))
	}
	for i, d := range got {
		w := want[i]
		if d.Reason != w.Header.Get(engine.HeaderError) || d.Subject != w.Subject || !bytes.Equal(d.Value, w.Data) {
			t.Errorf("dead letter %d:\n exec     %s %q %s\n pipeline %s %q %s", i, d.Subject, d.Reason, d.Value, w.Subject, w.Header.Get(engine.HeaderError), w.Data)
		}
	}
}

func compareState(t *testing.T, got []execrun.StateValue, want []engine.StateEntry) {
	t.Helper()
	type entry struct{ key, name, value string }
	var g, w []entry
	for _, s := range got {
		name := s.State
		if s.IsMap {
			name += "\x00" + string(s.MapKey)
		}
		g = append(g, entry{string(s.Key), name, string(s.Value)})
	}
	for _, s := range want {
		w = append(w, entry{s.Key, s.Name, string(s.Value)})
	}
	if !slices.Equal(g, w) {
		t.Errorf("final state:\n exec     %q\n pipeline %q", g, w)
	}
	if len(g) == 0 {
		t.Error("final state is empty")
	}
}

// pipelineRun is what a pipeline stored.
type pipelineRun struct {
	outputs, deadLetters []natsio.Message
	state                []engine.StateEntry
}

// runPipeline runs examples/payment-risk/pipeline.hcl on the records of
// input, published to its source subject, until idle, and reads back its
// outputs, dead letters and the state of its final checkpoint.
func runPipeline(t *testing.T, input string) pipelineRun {
	t.Helper()
	cfg, _, err := config.Load(example(t, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Operators[0].Module = testutil.GoGuest(t, paymentRiskPkg)
	cfg.DataDir = testutil.PrivateTempDir(t)
	cfg.Server.EmbeddedPort = testutil.FreePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := engine.Open(ctx, cfg, engine.Options{StopWhenIdle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	publishFile(t, p.Reach(), input, cfg.Sources[0].Subject)
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	return pipelineRun{
		outputs:     readStored(t, cfg, "risk.totals"),
		deadLetters: readStored(t, cfg, cfg.Operators[0].DeadLetterSubject),
		state:       finalState(t, cfg),
	}
}

func publishFile(t *testing.T, reach natsio.ServerOptions, path, subject string) {
	t.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := natsio.PublishJSONLines(ctx, c, f, subject, "", nil); err != nil {
		t.Fatal(err)
	}
}

// readStored reads every message stored for subject, through a temporary
// embedded server on the stopped pipeline's store.
func readStored(t *testing.T, cfg *config.Pipeline, subject string) []natsio.Message {
	t.Helper()
	ctx := context.Background()
	c, err := engine.ConnectClient(ctx, cfg, hclog.NewNullLogger(), engine.AsControl)
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

// finalState is the state of the newest checkpoint (the one a graceful
// stop takes).
func finalState(t *testing.T, cfg *config.Pipeline) []engine.StateEntry {
	t.Helper()
	root := engine.CheckpointRoot(cfg)
	ids, err := checkpoint.List(root)
	if err != nil || len(ids) == 0 {
		t.Fatalf("checkpoints of the pipeline run: %v %v", ids, err)
	}
	entries, err := engine.DumpCheckpointState(root, slices.Max(ids))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}
