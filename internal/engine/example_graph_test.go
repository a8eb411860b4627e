package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// paymentGraphDir is the three-stage example, relative to the module root.
const paymentGraphDir = "examples/payment-graph"

// graphTotals are the reference or computed totals of one stage: key -> the numbers of the
// README's table for that stage, in its column order.
type graphTotals map[string][]int64

// The three-stage example runs end to end in one process (embedded JetStream, Pebble, the Go
// and Rust modules): every stage's state in the final checkpoint and the last output of every
// key on both sinks equal the hand-computed reference tables of the example's README, and both
// sinks hold the outputs its transcript of `wasmstream read` shows, in that order.
func TestPaymentGraphExample(t *testing.T) {
	skipInRacePass(t) // ~1 min under -race; the graph runtime's concurrency is TestGraphRunsStages's
	cfg := paymentGraphPipeline(t)
	input, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), paymentGraphDir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	stats := runSumsWith(t, cfg, Options{}, func(p *Pipeline) error { return publishPaymentLines(p.Reach(), input) })
	// accounts processes the 14 payments, merchants and regions the 13 accepted ones; accounts
	// emits one record per accepted payment, merchants two, regions one (the README's run).
	if stats.DeadLettered != 0 || stats.Processed != 14+13+13 || stats.Emitted != 13+2*13+13 {
		t.Errorf("stats %+v: want 40 records processed, 52 emitted and none dead-lettered", stats)
	}
	md, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), paymentGraphDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ref := paymentGraphReference(t, string(md))
	state := paymentGraphState(t, dumpState(t, cfg, newestCheckpoint(t, cfg).ID))
	for _, stage := range []string{"accounts", "merchants", "regions"} {
		diffGraphTotals(t, "state of "+stage, state[stage], ref[stage])
	}
	diffGraphTotals(t, "last outputs on merchant.totals", lastGraphTotals(t, cfg, "merchant.totals", "merchant", 13), ref["merchants"])
	diffGraphTotals(t, "last outputs on region.totals", lastGraphTotals(t, cfg, "region.totals", "region", 13), ref["regions"])
	for _, subject := range []string{"merchant.totals", "region.totals"} {
		checkReadTranscript(t, cfg, string(md), subject)
	}
}

// checkReadTranscript checks that subject holds the outputs that the README's transcript of
// `wasmstream read --config ... --subject SUBJECT` shows ("SEQ SUBJECT VALUE" lines), in
// order. Sequences are not compared: the two sinks share a stream, and how their outputs
// interleave depends on timing.
func checkReadTranscript(t *testing.T, cfg *config.Pipeline, md, subject string) {
	t.Helper()
	command := "$ bin/wasmstream read --config " + paymentGraphDir + "/pipeline.hcl --subject " + subject + "\n"
	_, after, found := strings.Cut(md, command)
	if !found {
		t.Fatalf("README has no line %q", command)
	}
	var shown []string
	for _, line := range strings.Split(after, "\n") {
		seq, rest, _ := strings.Cut(line, " ")
		if _, err := strconv.ParseUint(seq, 10, 64); err != nil || !strings.HasPrefix(rest, subject+" ") {
			break
		}
		shown = append(shown, strings.TrimPrefix(rest, subject+" "))
	}
	var stored []string
	for _, m := range readSubject(t, cfg, subject) {
		stored = append(stored, string(m.Data))
	}
	if strings.Join(shown, "\n") != strings.Join(stored, "\n") {
		t.Errorf("README shows on %s:\n%s\nthe run stored:\n%s", subject, strings.Join(shown, "\n"), strings.Join(stored, "\n"))
	}
}

// paymentGraphPipeline loads the example's pipeline file with its modules built for the test, a
// private data dir and a free port.
func paymentGraphPipeline(t *testing.T) *config.Pipeline {
	t.Helper()
	cfg, _, err := config.Load(filepath.Join(testutil.ModuleRoot(t), paymentGraphDir, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]string{
		"accounts":  testutil.GoGuest(t, "./"+paymentGraphDir+"/accounts"),
		"merchants": testutil.RustGuest(t, paymentGraphDir+"/merchants", "merchants"),
		"regions":   testutil.GoGuest(t, "./"+paymentGraphDir+"/regions"),
	}
	for name, module := range modules {
		cfg.Operator(name).Module = module
	}
	cfg.DataDir = testutil.PrivateTempDir(t)
	cfg.Server.EmbeddedPort = testutil.FreePort(t)
	return cfg
}

// publishPaymentLines publishes the example's input as its README does: without an id field,
// so the redelivered payment reaches the accounts stage.
func publishPaymentLines(reach natsio.ServerOptions, lines []byte) error {
	ctx := context.Background()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = natsio.PublishJSONLines(ctx, c, bytes.NewReader(lines), "payments3.in", "", nil)
	return err
}

// paymentGraphReference reads the reference tables of the example's README md: stage -> totals.
func paymentGraphReference(t *testing.T, md string) map[string]graphTotals {
	t.Helper()
	ref := map[string]graphTotals{}
	for stage, heading := range map[string]string{"accounts": "### Per account", "merchants": "### Per merchant", "regions": "### Per region"} {
		ref[stage] = markdownTotals(t, md, heading)
		if len(ref[stage]) == 0 {
			t.Fatalf("README: no reference table under %q", heading)
		}
	}
	return ref
}

// markdownTotals reads the table under heading in md: the first column is the key, the others
// are integers.
func markdownTotals(t *testing.T, md, heading string) graphTotals {
	t.Helper()
	_, after, found := strings.Cut(md, "\n"+heading+"\n")
	if !found {
		t.Fatalf("README has no heading %q", heading)
	}
	totals := graphTotals{}
	rows := 0
	for _, line := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if rows++; rows <= 2 { // the header and the separator
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		for _, c := range cells[1:] {
			n, err := strconv.ParseInt(strings.TrimSpace(c), 10, 64)
			if err != nil {
				t.Fatalf("README table %q, row %q: %v", heading, line, err)
			}
			totals[strings.TrimSpace(cells[0])] = append(totals[strings.TrimSpace(cells[0])], n)
		}
	}
	return totals
}

// paymentGraphState decodes the example's state in a checkpoint dump into the README's columns:
// accounts [event ids in seen, total], merchants and regions [count, cents, flagged].
func paymentGraphState(t *testing.T, entries []StateEntry) map[string]graphTotals {
	t.Helper()
	columns := map[string][]string{"accounts": {"seen", "total"}, "merchants": {"count", "cents", "flagged"}, "regions": {"count", "cents", "flagged"}}
	state := map[string]graphTotals{}
	for _, e := range entries {
		cols, ok := columns[e.Operator]
		if !ok {
			t.Fatalf("state entry of an unknown operator: %+v", e)
		}
		if state[e.Operator] == nil {
			state[e.Operator] = graphTotals{}
		}
		row := state[e.Operator][e.Key]
		if row == nil {
			row = make([]int64, len(cols))
			state[e.Operator][e.Key] = row
		}
		addStateEntry(t, row, cols, e)
	}
	return state
}

// addStateEntry puts one entry into row: a map entry of "seen" counts one, an 8-byte value is
// its column's number.
func addStateEntry(t *testing.T, row []int64, cols []string, e StateEntry) {
	t.Helper()
	for i, name := range cols {
		switch {
		case name == "seen" && strings.HasPrefix(e.Name, "seen"):
			row[i]++
			return
		case name == e.Name && len(e.Value) == 8:
			row[i] = int64(binary.LittleEndian.Uint64(e.Value))
			return
		}
	}
	t.Fatalf("unexpected state entry %+v", e)
}

// lastGraphTotals reads a sink subject of the example, which must hold want outputs (one per
// accepted payment), and returns the last totals of each key: [count, cents, flagged].
func lastGraphTotals(t *testing.T, cfg *config.Pipeline, subject, keyField string, want int) graphTotals {
	t.Helper()
	msgs := readSubject(t, cfg, subject)
	if len(msgs) != want {
		t.Errorf("%s holds %d outputs, want %d: one per accepted payment", subject, len(msgs), want)
	}
	last := graphTotals{}
	for _, m := range msgs {
		var o map[string]any
		if err := json.Unmarshal(m.Data, &o); err != nil {
			t.Fatalf("output %q on %s: %v", m.Data, subject, err)
		}
		key, _ := o[keyField].(string)
		row := make([]int64, 3)
		for i, f := range []string{"count", "cents", "flagged"} {
			n, ok := o[f].(float64)
			if !ok {
				t.Fatalf("output %q on %s: no number %q", m.Data, subject, f)
			}
			row[i] = int64(n)
		}
		last[key] = row
	}
	return last
}

// diffGraphTotals reports every key whose numbers differ from the reference, and keys only one
// side has.
func diffGraphTotals(t *testing.T, what string, got, want graphTotals) {
	t.Helper()
	for k, w := range want {
		if g := got[k]; fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: %s is %v, want %v", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected key %s: %v", what, k, g)
		}
	}
}
