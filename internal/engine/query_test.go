package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/statequery"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The payment-risk example's events.jsonl, run by a pipeline that
// checkpoints only at its stop: while it runs, acct-47's total lives only
// in its task's write-back cache, and a live query reads 2100 from there;
// after the stop the final checkpoint holds the same 2100.
func TestStateQueryLiveAndFromCheckpoint(t *testing.T) {
	cfg := testPipeline(t, testutil.GoGuest(t, paymentRiskPkg), testutil.PrivateTempDir(t), testutil.FreePort(t), "parallelism = 2")
	s := serve(t, cfg)
	s.publishEvents(t, exampleEvents(t)...)
	s.waitOutputs(t, 2)

	ctx := context.Background()
	live, task, err := QueryState(ctx, cfg, statequery.Request{Operator: "risk", Key: "acct-47", State: "total"}, time.Minute)
	if err != nil {
		t.Fatalf("live query: %v", err)
	}
	oc := cfg.Operators[0]
	wantTask := state.TaskForKeyGroup(state.KeyGroup([]byte("acct-47"), oc.MaxParallelism), oc.Parallelism, oc.MaxParallelism)
	checkTotal(t, "live", live, 2100)
	if task != wantTask {
		t.Errorf("live query answered by task %d, want %d, the owner of acct-47's key group", task, wantTask)
	}
	all, _, err := QueryState(ctx, cfg, statequery.Request{Operator: "risk", Key: "acct-47"}, time.Minute)
	if err != nil || len(all) != 3 {
		t.Errorf("live query of all of acct-47's state: %d entries (%v), want 3: total and seen[evt-47], seen[evt-48]", len(all), err)
	}
	checkLiveErrors(t, ctx, cfg)
	s.finish(t)

	snap, err := statequery.OpenCheckpoint(CheckpointRoot(cfg), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	stored, err := snap.Get("risk", []byte("acct-47"), "total")
	if err != nil {
		t.Fatal(err)
	}
	checkTotal(t, "checkpoint", stored, 2100)
}

// checkLiveErrors: an unknown operator and a key without state are named
// in the answer, and the data user may not ask at all.
func checkLiveErrors(t *testing.T, ctx context.Context, cfg *config.Pipeline) {
	t.Helper()
	_, _, err := QueryState(ctx, cfg, statequery.Request{Operator: "limits", Key: "acct-47"}, time.Minute)
	if !errors.Is(err, statequery.ErrUnknownOperator) || !strings.Contains(err.Error(), `"limits"`) {
		t.Errorf("unknown operator: %v, want ErrUnknownOperator naming it", err)
	}
	_, _, err = QueryState(ctx, cfg, statequery.Request{Operator: "risk", Key: "acct-404"}, time.Minute)
	if !errors.Is(err, statequery.ErrKeyNotFound) || !strings.Contains(err.Error(), `"acct-404"`) {
		t.Errorf("missing key: %v, want ErrKeyNotFound naming the key", err)
	}
	if err := publishDenied(cfg, statequery.Subject(cfg.Name)); err != nil {
		t.Error(err)
	}
	data, err := ConnectClient(ctx, cfg, hclog.NewNullLogger(), AsData)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	if entries, _, err := statequery.Live(data.NC, cfg.Name, statequery.Request{Operator: "risk", Key: "acct-47"}, time.Second); err == nil {
		t.Errorf("the data user read state: %d entries", len(entries))
	}
}

func checkTotal(t *testing.T, where string, entries []statequery.Entry, want uint64) {
	t.Helper()
	if len(entries) != 1 || entries[0].Name != "total" || len(entries[0].Value) != 8 {
		t.Fatalf("%s: acct-47's total: %+v, want one 8-byte entry", where, entries)
	}
	if got := binary.LittleEndian.Uint64(entries[0].Value); got != want {
		t.Errorf("%s: acct-47's total is %d, want %d", where, got, want)
	}
}

// exampleEvents are the lines of examples/payment-risk/events.jsonl.
func exampleEvents(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "examples", "payment-risk", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
