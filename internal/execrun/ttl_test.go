package execrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The pipeline's state blocks apply: with a TTL on "seen", its entries
// carry an expiry one TTL after the (fixed) processing time; "total",
// without one, never expires.
func TestPipelineStateBlocksApply(t *testing.T) {
	src, err := os.ReadFile(example(t, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	block := "  outputs = { out = \"risk-totals\" }\n"
	if !strings.Contains(string(src), block) {
		t.Fatalf("examples/payment-risk/pipeline.hcl has no line %q to add a state block before", block)
	}
	text := strings.Replace(string(src), block, "  state \"seen\" {\n    ttl = \"1h\"\n  }\n"+block, 1)
	pipeline := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(pipeline, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	o := riskOptions(t, example(t, "events.jsonl"))
	o.Pipeline, o.Clock = pipeline, func() time.Time { return now }
	res := run(t, o)

	for _, s := range res.State {
		want := int64(0)
		if s.State == "seen" {
			want = now.Add(time.Hour).UnixNano()
		}
		if s.ExpiresAt != want {
			t.Errorf("state %s[%s] of %s expires at %d, want %d", s.State, s.MapKey, s.Key, s.ExpiresAt, want)
		}
	}
	if len(res.State) != 3 {
		t.Errorf("%d state entries, want 3", len(res.State))
	}
}
