package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// routedPipeline has source payments routed to operator risk, keyed by a subject token: the
// router carries each record's subject to the operator (FORMAT.md §2.1).
const routedPipeline = `
name = "routed"
stream "PAYMENTS" { subjects = ["payments.>"] }
source "payments" {
  stream  = "PAYMENTS"
  subject = "payments.>"
  route   = true
}
operator "risk" {
  module = "risk.wasm"
  inputs = ["payments"]
  key { subject_token = 2 }
  outputs = { out = "alerts" }
}
sink "alerts" { subject = "alerts.all" }
`

func loadText(t *testing.T, src string) (*Pipeline, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "risk.wasm"), []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, err := Load(path)
	return p, err
}

// A routed source loads with route set, makes the pipeline one with exchange edges (its
// engine-owned subjects are checked as a graph's), prints its edge as routed with the route
// edge's stream, and survives the effective config's round trip.
func TestRoutedSource(t *testing.T) {
	p, err := loadText(t, routedPipeline)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Source("payments").Route || !p.HasExchangeEdges() {
		t.Fatalf("route = %v, HasExchangeEdges = %v; want both", p.Source("payments").Route, p.HasExchangeEdges())
	}
	const edge = `payments  ->  risk    routed  key subject_token 2`
	if g := p.Graph().String(); !strings.Contains(g, edge) {
		t.Errorf("graph\n%s\nlacks\n%s", g, edge)
	}
	if e := p.Graph().Edges[0]; e.Kind != EdgeRouted || !strings.HasPrefix(e.Stream, "WS_X_routed_payments_risk_") {
		t.Errorf("edge %+v: want kind routed on stream WS_X_routed_payments_risk_<hash>", e)
	}
	if !strings.Contains(p.String(), "route          = true") && !strings.Contains(p.String(), "route = true") {
		t.Errorf("the effective config lacks route = true:\n%s", p.String())
	}
	again, err := loadText(t, p.String())
	if err != nil || !again.Source("payments").Route {
		t.Errorf("the effective config does not load back routed: %v", err)
	}
}

// A routed source cannot take its event id from Nats-Msg-Id, which the exchange replaces; a
// route that is not a bool is refused.
func TestRoutedSourceRefusals(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"event id from Nats-Msg-Id", `route   = true`, "route   = true\n  event_id { header = \"Nats-Msg-Id\" }",
			"a routed source cannot take its event_id from header Nats-Msg-Id"},
		{"not a bool", `route   = true`, `route   = "yes"`, "route"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadText(t, strings.Replace(routedPipeline, tc.from, tc.to, 1))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
