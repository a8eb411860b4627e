package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// graphPipeline is a pipeline whose operator score reads operator enrich's output: it loads
// and validates, and runs in one process, but not yet in a cluster.
const graphPipeline = `name = "fraud"
data_dir = "./data"

server {
  url = "nats://127.0.0.1:1"
}

cluster {}

source "payments" {
  stream = "PAYMENTS"
}

operator "enrich" {
  module = "enrich.wasm"
  inputs = ["payments"]
  key {
    json_field = "account"
  }
  internal_outputs = ["out"]
}

operator "score" {
  module  = "score.wasm"
  inputs  = ["enrich.out"]
  key {
    json_field = "customer"
  }
  outputs = { alerts = "alerts" }
}

sink "alerts" {
  subject = "alerts.all"
}
`

// validate prints the graph of a pipeline whose operators read each other, stages in
// topological order and every edge with its kind and the consumer's key, after checking the
// modules; the consumer is declared before its producer.
func TestValidatePrintsGraph(t *testing.T) {
	path, _ := examplePipeline(t)
	rewritePipeline(t, path, `operator "risk" {`, `operator "audit" {
  module = "`+testutil.GoGuest(t, "./examples/payment-risk/operator")+`"
  inputs = ["risk.out"]
  input "risk.out" {
    key {
      header = "Wasmstream-Key"
    }
  }
  config  = jsonencode({ max_cents = 100000000 })
  outputs = { out = "risk-totals" }
}

operator "risk" {`)
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"validate", path})
	if err := root.Execute(); err != nil {
		t.Fatalf("validate: %v\n%s", err, errOut.String())
	}
	want := `  graph:
    stages (topological order):
      1  source    payments
      2  operator  risk         parallelism 1, 128 key groups
      3  operator  audit        parallelism 1, 128 key groups
      4  sink      risk-totals
    edges:
      payments   ->  risk         source    key json_field "account"
      risk.out   ->  audit        exchange  key header "Wasmstream-Key"
      risk.out   ->  risk-totals  sink
      audit.out  ->  risk-totals  sink
  operator "audit": `
	if !strings.Contains(out.String(), want) {
		t.Errorf("validate printed\n%s\nwant the graph\n%s", out.String(), want)
	}
	if strings.Contains(errOut.String(), "refuse") {
		t.Errorf("validate warns that a graph is refused; workers run graphs:\n%s", errOut.String())
	}

	doc := jsonDoc(t, "", "validate", path, "--json")
	graph, _ := json.Marshal(doc["graph"])
	const wantJSON = `{"edges":[` +
		`{"from":"payments","key":{"json_field":"account"},"kind":"source","to":"risk"},` +
		`{"from":"risk","key":{"header":"Wasmstream-Key"},"kind":"exchange","output":"out","stream":"WS_X_payment-risk_risk_audit_8b4ca93c","to":"audit"},` +
		`{"from":"risk","kind":"sink","output":"out","to":"risk-totals"},` +
		`{"from":"audit","kind":"sink","output":"out","to":"risk-totals"}],` +
		`"stages":[{"kind":"source","name":"payments"},` +
		`{"kind":"operator","max_parallelism":128,"name":"risk","parallelism":1},` +
		`{"kind":"operator","max_parallelism":128,"name":"audit","parallelism":1},` +
		`{"kind":"sink","name":"risk-totals"}]}`
	if string(graph) != wantJSON {
		t.Errorf("validate --json graph\n%s\nwant\n%s", graph, wantJSON)
	}
}
