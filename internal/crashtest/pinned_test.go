package crashtest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine"
)

// pinnedEvents are evt-1..evt-47 over eight accounts; acct-47 gets evt-7,
// evt-15, ..., evt-47 at 200 cents each: 1200.
func pinnedEvents() []input {
	var events []input
	for i := 1; i <= 47; i++ {
		ev, account, cents := fmt.Sprintf("evt-%d", i), fmt.Sprintf("acct-%d", i%8), int64(10*i)
		if i%8 == 7 {
			account, cents = "acct-47", 200
		}
		events = append(events, riskEvent(ev, account, ev, cents))
	}
	return events
}

// TestPinnedLog: checkpoint N covers evt-47 (acct-47 at 1200); evt-48 (900
// cents) is processed and its output stored, then the process is killed.
// The restart restores N, replays evt-48 and ignores its redelivery:
// acct-47 ends at 2100 with exactly one stored output for evt-48.
func TestPinnedLog(t *testing.T) {
	w := newWorld(t, "pinned", riskSpec(t))
	c := w.start(t, nil, "--checkpoint-interval=-1s")
	w.publish(t, "payments", pinnedEvents())
	w.waitOutputs(t, 47, c)
	n := trigger(t, w, c)
	if pos := w.manifest(t, n).Sources[0].LastSequence; pos != 47 {
		t.Fatalf("checkpoint %d: source position %d, want 47 (evt-47)", n, pos)
	}
	if got := riskTotal(t, w.dump(t, n), "acct-47"); got != 1200 {
		t.Fatalf("checkpoint %d: acct-47 total %d, want 1200", n, got)
	}

	w.publish(t, "payments", []input{riskEvent("evt-48", "acct-47", "evt-48", 900)})
	w.waitOutputs(t, 48, c)
	c.kill(t)
	if got := w.newest(t); got != n {
		t.Fatalf("newest checkpoint after the kill is %d, want %d (no checkpoint was asked for)", got, n)
	}

	// The producer sends evt-48 again under a new Nats-Msg-Id, as after a
	// lost acknowledgement: the operator's deduplication must absorb it.
	w.publish(t, "payments", []input{riskEvent("evt-48-again", "acct-47", "evt-48", 900)})
	restart := w.runToCompletion(t, "--checkpoint-interval=-1s")
	if id, err := restart.restoredCheckpoint(); err != nil || id != n {
		t.Fatalf("the restart restored checkpoint %d (%v), want %d", id, err, n)
	}
	if got := riskTotal(t, w.finalState(t), "acct-47"); got != 2100 {
		t.Fatalf("final state: acct-47 total %d, want 2100", got)
	}
	checkPinnedOutputs(t, w)
}

// checkPinnedOutputs: one output per input seq 1..48, none for the
// redelivery (seq 49), one stored message for evt-48, and acct-47's last
// output says 2100.
func checkPinnedOutputs(t *testing.T, w *world) {
	t.Helper()
	msgs := w.outputs(t)
	var expected []string
	for seq := uint64(1); seq <= 48; seq++ {
		expected = append(expected, w.outputID("payments", seq))
	}
	checkOutputs(msgs, expected, nil).require(t, "pinned log")
	var evt48 []storedMsg
	var last riskOutput
	for _, m := range msgs {
		if m.header.Get("event-id") == "evt-48" {
			evt48 = append(evt48, m)
		}
		var o riskOutput
		if err := json.Unmarshal(m.data, &o); err != nil {
			t.Fatalf("output %s: %v", m.data, err)
		}
		if o.Account == "acct-47" {
			last = o
		}
	}
	if len(evt48) != 1 || evt48[0].msgID != w.outputID("payments", 48) {
		t.Fatalf("%d stored outputs for evt-48 (%+v), want exactly one with Nats-Msg-Id %s", len(evt48), evt48, w.outputID("payments", 48))
	}
	if last.Event != "evt-48" || last.Total != 2100 {
		t.Fatalf("acct-47's last output is %+v, want evt-48 with total 2100", last)
	}
}

// riskOutput is a payment-risk output.
type riskOutput struct {
	Account string `json:"account"`
	Event   string `json:"event"`
	Cents   int64  `json:"cents"`
	Total   int64  `json:"total"`
}

// trigger asks the running child for a checkpoint and returns its id.
func trigger(t *testing.T, w *world, c *child) uint64 {
	t.Helper()
	c.waitLog(t, "pipeline running")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	r, err := engine.TriggerCheckpoint(ctx, w.cfg, hclog.NewNullLogger(), waitLimit)
	if err != nil || r.ID == 0 {
		t.Fatalf("trigger a checkpoint: %+v, %v\n%s", r, err, c.logTail(40))
	}
	return r.ID
}

// riskTotal is the payment-risk "total" of account in a state dump.
func riskTotal(t *testing.T, entries []engine.StateEntry, account string) int64 {
	t.Helper()
	for _, e := range entries {
		if e.Operator == "risk" && e.Name == "total" && e.Key == account {
			if len(e.Value) != 8 {
				t.Fatalf("total of %s: %d bytes, want an 8-byte int64", account, len(e.Value))
			}
			return int64(binary.LittleEndian.Uint64(e.Value))
		}
	}
	t.Fatalf("no total of %s in the state (%d entries)", account, len(entries))
	return 0
}
