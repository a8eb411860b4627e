package execrun_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/execrun"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A second run from the first one's --state-out continues its state: a
// redelivered event is not counted again, a new one adds to the total.
// The first run's directory is left as it was.
func TestStateOutThenStateInContinues(t *testing.T) {
	first := filepath.Join(t.TempDir(), "first")
	o := riskOptions(t, example(t, "events.jsonl"))
	o.StateOut = first
	run(t, o)
	before := dirFiles(t, first)

	o = riskOptions(t, writeLines(t,
		`{"account":"acct-47","event":"evt-48","cents":900}`,
		`{"account":"acct-47","event":"evt-49","cents":5}`))
	o.StateIn, o.StateOut = first, filepath.Join(t.TempDir(), "second")
	res := run(t, o)

	if len(res.Outputs) != 1 || !strings.Contains(string(res.Outputs[0].Value), `"total":2105`) {
		t.Fatalf("outputs %+v, want one with total 2105 (evt-48 was counted by the first run)", res.Outputs)
	}
	if total, _ := stateOf(res, "acct-47", "total", ""); len(total) != 8 || binary.LittleEndian.Uint64(total) != 2105 {
		t.Errorf("acct-47's total is %x, want 2105", total)
	}
	if _, ok := stateOf(res, "acct-47", "seen", "evt-47"); !ok {
		t.Error("the first run's seen[evt-47] is missing from the second run's state")
	}
	if after := dirFiles(t, first); after != before {
		t.Errorf("--state-in changed:\n before %s\n after  %s", before, after)
	}
}

// dirFiles lists a directory's files with their sizes.
func dirFiles(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%d ", e.Name(), fi.Size())
	}
	return b.String()
}

// State kept under one operator name is refused under another: the run
// would otherwise start from nothing without saying so.
func TestStateInOfAnotherOperatorIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	o := execrun.Options{Module: testutil.GoGuest(t, paymentRiskPkg), Input: example(t, "events.jsonl"), KeyField: "account", Operator: "risk", StateOut: dir}
	run(t, o)
	o.StateIn, o.StateOut, o.Operator = dir, "", "other"
	_, err := execrun.Run(context.Background(), o)
	testutil.WantErr(t, err, execrun.ErrUsage, `holds the state of operator "risk", not "other"`)
}

// A line that is not JSON stops the run with the file and line, and a
// --state-out the run created is removed.
func TestMalformedLineNamesTheLine(t *testing.T) {
	input := writeLines(t, `{"account":"acct-47","event":"evt-47","cents":1200}`, ``, `{"account":"acct-47",`)
	o := riskOptions(t, input)
	o.StateOut = filepath.Join(t.TempDir(), "state")
	_, err := execrun.Run(context.Background(), o)
	testutil.WantErr(t, err, execrun.ErrBadLine, input+":3: bad input line: not valid JSON")
	if _, serr := os.Stat(o.StateOut); !os.IsNotExist(serr) {
		t.Errorf("--state-out %s is left behind after the failed run (stat: %v)", o.StateOut, serr)
	}
}

// A record the guest rejects, and one without a key, are dead letters with
// the reason; the other records are processed and their state kept.
func TestFailingRecordIsDeadLettered(t *testing.T) {
	input := writeLines(t,
		`{"account":"acct-1","event":"e1","cents":10}`,
		`{"account":"acct-1","event":"e2","cents":-4}`,
		`{"event":"e3","cents":1}`,
		`{"account":"acct-1","event":"e4","cents":5}`)
	res := run(t, riskOptions(t, input))

	if len(res.DeadLetters) != 2 {
		t.Fatalf("dead letters %+v, want 2", res.DeadLetters)
	}
	rejected, keyless := res.DeadLetters[0], res.DeadLetters[1] // in input order
	if keyless.Line != 3 || !strings.Contains(keyless.Reason, `key: `) || !strings.Contains(keyless.Reason, `"account" not found`) {
		t.Errorf("keyless record: line %d reason %q, want line 3 and a missing account key", keyless.Line, keyless.Reason)
	}
	if rejected.Line != 2 || !strings.Contains(rejected.Reason, "negative cents -4") || rejected.Subject != "wasmstream.dlq.payment-risk.risk" {
		t.Errorf("rejected record: line %d subject %s reason %q, want line 2 on wasmstream.dlq.payment-risk.risk for negative cents", rejected.Line, rejected.Subject, rejected.Reason)
	}
	if res.Stats.Processed != 2 || len(res.Outputs) != 2 {
		t.Errorf("stats %+v and %d outputs, want 2 records processed and 2 outputs", res.Stats, len(res.Outputs))
	}
	if total, _ := stateOf(res, "acct-1", "total", ""); len(total) != 8 || binary.LittleEndian.Uint64(total) != 15 {
		t.Errorf("acct-1's total is %x, want 15 (the rejected record leaves no state)", total)
	}
}

// Flags alone (no pipeline file) run the same operator with the host's
// defaults: the same outputs and state as the pipeline's operator block.
func TestFlagsMatchPipelineBlock(t *testing.T) {
	fromPipeline := run(t, riskOptions(t, example(t, "events.jsonl")))
	fromFlags := run(t, execrun.Options{Module: testutil.GoGuest(t, paymentRiskPkg), Input: example(t, "events.jsonl"),
		KeyField: "account", Operator: "risk", Config: `{"max_cents":100000000}`, ConfigSet: true})
	if len(fromFlags.Outputs) != len(fromPipeline.Outputs) || len(fromFlags.State) != len(fromPipeline.State) {
		t.Fatalf("flags: %d outputs %d state entries; pipeline: %d and %d", len(fromFlags.Outputs), len(fromFlags.State), len(fromPipeline.Outputs), len(fromPipeline.State))
	}
	for i := range fromFlags.Outputs {
		if string(fromFlags.Outputs[i].Value) != string(fromPipeline.Outputs[i].Value) {
			t.Errorf("output %d: flags %s, pipeline %s", i, fromFlags.Outputs[i].Value, fromPipeline.Outputs[i].Value)
		}
	}
	for i := range fromFlags.State {
		if string(fromFlags.State[i].Value) != string(fromPipeline.State[i].Value) {
			t.Errorf("state %d: flags %x, pipeline %x", i, fromFlags.State[i].Value, fromPipeline.State[i].Value)
		}
	}
}

// A file that is not a module is an error naming it, not an empty run.
func TestBadModuleIsAnError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.wasm")
	if err := os.WriteFile(bad, []byte("not wasm"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := execrun.Run(context.Background(), execrun.Options{Module: bad, Input: example(t, "events.jsonl"), KeyField: "account"})
	testutil.WantErr(t, err, nil, "bad.wasm")
}

// With parallelism the records are split among tasks by key group, as in a
// pipeline; the outputs come in input order and the state is the same as
// with one task.
func TestParallelismSplitsByKeyGroup(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`{"account":"acct-%d","event":"evt-%d","cents":%d}`, i%7, i, i))
	}
	input := writeLines(t, lines...)
	src, err := os.ReadFile(example(t, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := "  inputs = [\"payments\"]\n"
	if !strings.Contains(string(src), inputs) {
		t.Fatalf("examples/payment-risk/pipeline.hcl has no line %q", inputs)
	}
	pipeline := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(pipeline, []byte(strings.Replace(string(src), inputs, inputs+"  parallelism = 4\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	one := run(t, riskOptions(t, input))
	o := riskOptions(t, input)
	o.Pipeline = pipeline
	four := run(t, o)

	if len(four.Outputs) != 40 {
		t.Fatalf("%d outputs, want 40", len(four.Outputs))
	}
	for i, out := range four.Outputs {
		if out.Line != i+1 || string(out.Value) != string(one.Outputs[i].Value) {
			t.Errorf("output %d: line %d %s; with one task: line %d %s", i, out.Line, out.Value, one.Outputs[i].Line, one.Outputs[i].Value)
		}
	}
	if fmt.Sprint(stateText(four)) != fmt.Sprint(stateText(one)) {
		t.Errorf("state with 4 tasks:\n%q\nwith one:\n%q", stateText(four), stateText(one))
	}
}

// stateText is a run's state as sorted "key name value" strings.
func stateText(res *execrun.Result) []string {
	var out []string
	for _, s := range res.State {
		out = append(out, fmt.Sprintf("%s %s[%s] %x", s.Key, s.State, s.MapKey, s.Value))
	}
	slices.Sort(out)
	return out
}
