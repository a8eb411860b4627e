package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/statequery"
)

// stateFixtureExpiry is the TTL expiry of acct-9's "limit".
var stateFixtureExpiry = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// stateFixture writes checkpoint 1 of operator "risk" (128 key groups) as
// the payment-risk example leaves it after events.jsonl (acct-47: total
// 2100 as 8 bytes little-endian, seen[evt-47] and seen[evt-48]), plus
// acct-9 with a JSON value under a TTL. It returns the data dir.
func stateFixture(t *testing.T) string {
	t.Helper()
	st, err := state.Open(filepath.Join(t.TempDir(), "db"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	total := binary.LittleEndian.AppendUint64(nil, 2100)
	b := st.NewBatch()
	put := func(key, name string, v state.Value) {
		k := state.AppendStateKey(nil, "risk", state.KeyGroup([]byte(key), 128), []byte(name), []byte(key))
		if err := b.Set(k, state.AppendValue(nil, v), nil); err != nil {
			t.Fatal(err)
		}
	}
	put("acct-47", "total", state.Value{Data: total})
	put("acct-47", "seen\x00evt-47", state.Value{Data: []byte{1}})
	put("acct-47", "seen\x00evt-48", state.Value{Data: []byte{1}})
	put("acct-9", "limit", state.Value{Data: []byte(`{"cents": 5000}`), ExpiresAt: stateFixtureExpiry.UnixNano(), HasExpiry: true})
	if err := b.Commit(pebble.Sync); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	m := fixtureManifest(1, 3, 0)
	m.Operators = m.Operators[:1]
	if _, err := checkpoint.Write(engine.CheckpointRootIn(dataDir), st.DB(), m); err != nil {
		t.Fatal(err)
	}
	return dataDir
}

func TestStateGetText(t *testing.T) {
	dataDir := stateFixture(t)
	out := mustExecCLI(t, "state", "get", "--data-dir", dataDir, "--operator", "risk", "--key", "acct-47")
	for _, row := range [][]string{
		{"acct-47", "total", "hex", "3408000000000000", "never"},
		{"acct-47", "seen[evt-47]", "hex", "01", "never"},
		{"acct-47", "seen[evt-48]", "hex", "01", "never"},
	} {
		if !hasRow(out, row...) {
			t.Errorf("get lacks the row %q:\n%s", row, out)
		}
	}
	if !strings.Contains(out, "checkpoint 1 (") || !strings.Contains(out, `state of operator "risk": 3 entries`) {
		t.Errorf("get does not say where it read:\n%s", out)
	}
	out = mustExecCLI(t, "state", "get", "--data-dir", dataDir, "--operator", "risk", "--key", "acct-9", "--state", "limit")
	if !hasRow(out, "acct-9", "limit", "json", `{"cents":`, `5000}`, "2026-03-01T12:00:00Z") {
		t.Errorf("get of a TTL'd JSON value:\n%s", out)
	}
}

func TestStateGetJSON(t *testing.T) {
	dataDir := stateFixture(t)
	out := mustExecCLI(t, "state", "get", "--data-dir", dataDir, "--operator", "risk", "--key", "acct-9", "--json")
	var line map[string]any
	if err := json.Unmarshal([]byte(out), &line); err != nil {
		t.Fatalf("get --json: %v\n%s", err, out)
	}
	want := map[string]any{"type": "state", "key": "acct-9", "key_encoding": "text", "state": "limit", "value": map[string]any{"cents": 5000.0},
		"value_encoding": "json", "expires_at": "2026-03-01T12:00:00Z", "operator": "risk", "checkpoint": 1.0,
		"key_group": float64(state.KeyGroup([]byte("acct-9"), 128))}
	for k, v := range want {
		if got, _ := json.Marshal(line[k]); string(got) != mustJSON(t, v) {
			t.Errorf("get --json: %s = %s, want %s\n%s", k, got, mustJSON(t, v), out)
		}
	}
}

func TestStateScan(t *testing.T) {
	dataDir := stateFixture(t)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 4}, {[]string{"--prefix", "acct-4"}, 3}, {[]string{"--prefix", "acct-4", "--limit", "2"}, 2}, {[]string{"--prefix", "nobody"}, 0},
	} {
		args := append([]string{"state", "scan", "--data-dir", dataDir, "--operator", "risk", "--json"}, tc.args...)
		out := mustExecCLI(t, args...)
		if got := strings.Count(out, "\n"); got != tc.want {
			t.Errorf("scan %q: %d lines, want %d:\n%s", tc.args, got, tc.want, out)
		}
	}
}

func TestStateErrors(t *testing.T) {
	dataDir := stateFixture(t)
	for _, tc := range []struct {
		args   []string
		target error
		says   []string
	}{
		{[]string{"get", "--operator", "risk", "--key", "acct-404"}, statequery.ErrKeyNotFound, []string{`"acct-404"`, "checkpoint 1"}},
		{[]string{"get", "--operator", "risk", "--key", "acct-47", "--state", "limit"}, statequery.ErrKeyNotFound, []string{`no state "limit"`}},
		{[]string{"get", "--operator", "limits", "--key", "acct-47"}, statequery.ErrUnknownOperator, []string{`"limits"`, `"risk"`}},
		{[]string{"get", "--operator", "risk", "--key", "acct-47", "--checkpoint", "7"}, statequery.ErrNoCheckpoint, []string{"checkpoint 7", "retained: 1"}},
	} {
		args := append(append([]string{"state"}, tc.args...), "--data-dir", dataDir)
		_, err := execCLI(t, args...)
		if !errors.Is(err, tc.target) || !containsAll(err.Error(), tc.says...) {
			t.Errorf("state %q: %v, want %v saying %q", tc.args, err, tc.target, tc.says)
		}
	}
	_, err := execCLI(t, "state", "get", "--data-dir", t.TempDir(), "--operator", "risk", "--key", "acct-47")
	if !errors.Is(err, statequery.ErrNoCheckpoint) {
		t.Errorf("a data dir without checkpoints: %v, want ErrNoCheckpoint", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// A cluster pipeline's state is in its Object Store: both ways of reading
// are refused with that said, before anything connects.
func TestStateRefusesAClusterPipeline(t *testing.T) {
	dir := t.TempDir()
	c := &clusterSums{url: "nats://127.0.0.1:1"}
	path := c.pipelineFile(t, dir, "cluster", filepath.Join(dir, "sum2.wasm"), "cluster {\n  replicas = 1\n}\n")
	for _, args := range [][]string{
		{"state", "get", path, "--operator", "sum", "--key", "k1"},
		{"state", "get", path, "--operator", "sum", "--key", "k1", "--live"},
		{"state", "scan", path, "--operator", "sum"},
	} {
		_, err := execCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "is a cluster pipeline") {
			t.Errorf("%q: %v, want a refusal naming the cluster pipeline", args, err)
		}
	}
}
