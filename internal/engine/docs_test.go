package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/internal/testutil/docsnippet"
)

// TestDocsFullExampleRuns runs the full example of docs/config.md as written, placed in
// examples/payment-risk (whose operator it names), with only the module swapped for one built
// from that example's source, a temporary data directory and a free port: the documented
// layout must start (its streams beside the engine's own WASMSTREAM_DLQ), its operator config
// must be one the module accepts, and dead letters must land where the docs say.
func TestDocsFullExampleRuns(t *testing.T) {
	skipInRacePass(t)
	cfg := docsFullExample(t)
	if _, err := Validate(context.Background(), cfg); err != nil {
		t.Fatalf("validate: %v", err)
	}
	stats := runUntilIdle(t, cfg, pinnedEvents+`{"event":"evt-50","cents":1}`+"\n")
	if stats.Emitted != 2 || stats.DeadLettered != 1 {
		t.Fatalf("stats %+v, want 2 emitted (evt-48 counted once) and 1 dead-lettered (no account)", stats)
	}
	if got := readSubject(t, cfg, "risk.totals"); len(got) != 2 {
		t.Errorf("%d outputs on risk.totals, want 2", len(got))
	}
	dlq := cfg.Operators[0].DeadLetterSubject
	if got := readSubject(t, cfg, dlq); len(got) != 1 {
		t.Errorf("%d dead letters on %s, want 1", len(got), dlq)
	}
}

// docsFullExample loads the first whole pipeline under "Full example" in docs/config.md as
// if it were examples/payment-risk/pipeline.hcl, then makes it runnable in a test.
func docsFullExample(t *testing.T) *config.Pipeline {
	t.Helper()
	root := testutil.ModuleRoot(t)
	snippets, err := docsnippet.Read(filepath.Join(root, "docs", "config.md"), "hcl")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snippets {
		if s.Heading != "Full example" || s.Fragment {
			continue
		}
		exampleDir := filepath.Join(root, "examples", "payment-risk")
		cfg, _, err := config.Parse([]byte(s.Text), filepath.Join(exampleDir, "pipeline.hcl"))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if len(cfg.Operators) != 1 || cfg.Operators[0].Module != filepath.Join(exampleDir, "operator", "risk.wasm") {
			t.Fatalf("%s: want one operator whose module is examples/payment-risk's operator/risk.wasm", s)
		}
		cfg.Operators[0].Module = testutil.GoGuest(t, paymentRiskPkg)
		cfg.DataDir = t.TempDir()
		cfg.Server.EmbeddedPort = testutil.FreePort(t)
		return cfg
	}
	t.Fatal("docs/config.md has no full example")
	return nil
}
