package execrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A transactional sink's outputs are shown at once (a pipeline publishes
// them after their checkpoint), with the position-derived message ids a
// transactional sink uses.
func TestTransactionalOutputsAreShown(t *testing.T) {
	src, err := os.ReadFile(example(t, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	sink := "  subject = \"risk.totals\"\n"
	if !strings.Contains(string(src), sink) {
		t.Fatalf("examples/payment-risk/pipeline.hcl has no line %q", sink)
	}
	pipeline := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(pipeline, []byte(strings.Replace(string(src), sink, sink+"  mode    = \"transactional\"\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	o := riskOptions(t, example(t, "events.jsonl"))
	o.Pipeline = pipeline
	res := run(t, o)
	if len(res.Outputs) != 2 {
		t.Fatalf("%d outputs, want 2", len(res.Outputs))
	}
	for i, out := range res.Outputs {
		want := "payment-risk.risk.payments." + string(rune('1'+i)) + ".0"
		if out.MsgID != want || out.Subject != "risk.totals" {
			t.Errorf("output %d: msg id %q on %s, want %q on risk.totals", i, out.MsgID, out.Subject, want)
		}
	}
}
