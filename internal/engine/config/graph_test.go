package config

import (
	"os"
	"strings"
	"testing"
)

// TestGraph loads a pipeline whose operators read each other's outputs, declared out of order,
// and checks the keys per input and the printed graph: stages in topological order, every edge
// with its kind and the consumer's key.
func TestGraph(t *testing.T) {
	p, diags, err := Load("testdata/valid/graph.hcl")
	if err != nil || len(diags) > 0 {
		t.Fatalf("Load: %v\n%v", err, diags)
	}
	if !p.HasExchangeEdges() {
		t.Error("HasExchangeEdges() = false, want true")
	}
	audit := p.Operator("audit")
	if got := audit.KeyOf("score.alerts"); got != (Key{Header: "Customer"}) {
		t.Errorf("audit key of score.alerts = %+v", got)
	}
	if got := audit.Key; got != (Key{}) {
		t.Errorf("audit has a key of its own for every input; its operator key = %+v, want none", got)
	}
	if got := p.Operator("score").KeyOf("enrich.out"); got != (Key{JSONField: "customer"}) {
		t.Errorf("score key of enrich.out = %+v, want the operator's", got)
	}
	want := `stages (topological order):
  1  source    payments
  2  source    customers
  3  operator  enrich     parallelism 2, 128 key groups
  4  operator  score      parallelism 1, 128 key groups
  5  operator  audit      parallelism 1, 128 key groups
  6  sink      alerts
  7  sink      audit
edges:
  payments      ->  enrich  source    key json_field "account"
  enrich.out    ->  score   exchange  key json_field "customer"
  customers     ->  score   source    key json_field "customer"
  score.alerts  ->  audit   exchange  key header "Customer"
  enrich.out    ->  audit   exchange  key header "Wasmstream-Key"
  score.alerts  ->  alerts  sink
  audit.out     ->  audit   sink
`
	if got := p.Graph().String(); got != want {
		t.Errorf("graph\n%s\nwant\n%s", got, want)
	}
}

// TestGraphWithoutExchange: today's pipelines (operators read sources only) are graphs of
// depth one and are not reported as exchanges.
func TestGraphWithoutExchange(t *testing.T) {
	p, _, err := Load("testdata/valid/minimal.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if p.HasExchangeEdges() {
		t.Error("HasExchangeEdges() = true for a pipeline reading sources only")
	}
	g := p.Graph()
	if len(g.Edges) != 2 || g.Edges[0].Kind != EdgeSource || g.Edges[1].Kind != EdgeSink {
		t.Errorf("edges = %+v, want one source edge and one sink edge", g.Edges)
	}
}

// TestGraphCycles: every cycle is reported once, at the input that closes it, with its path in
// the direction records flow; operators off the cycle are not blamed.
func TestGraphCycles(t *testing.T) {
	op := func(name, inputs string) string {
		return `
operator "` + name + `" {
  module = "m.wasm"
  inputs = [` + inputs + `]
  key {
    json_field = "id"
  }
  internal_outputs = ["out"]
}`
	}
	src := `name = "p"
server {
  url = "nats://h:4222"
}
source "in" {
  stream = "S"
}` + op("a", `"in", "c.out"`) + op("b", `"a.out"`) + op("c", `"b.out"`) + op("d", `"c.out"`) + op("e", `"d.out"`)
	_, diags, err := Parse([]byte(src), "p.hcl")
	if err == nil {
		t.Fatal("a cycle loaded without error")
	}
	want := `p.hcl:10:19: operator "a": inputs: "c.out" closes a cycle a -> b -> c -> a; an operator cannot read its own output, directly or through other operators, so remove one of these inputs
p.hcl:46:23: warning: operator "e": internal_outputs: "out" is read by no operator; add "e.out" to an operator's inputs or remove it`
	if got := diags.Error(); got != want {
		t.Errorf("diagnostics\n%s\nwant\n%s", got, want)
	}
}

func TestParseInputRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want InputRef
		ok   bool
	}{
		{"payments", InputRef{Source: "payments"}, true},
		{"enrich.out", InputRef{Operator: "enrich", Output: "out"}, true},
		{"enrich.out.v2", InputRef{Operator: "enrich", Output: "out.v2"}, true},
		{"enrich.", InputRef{}, false},
		{".out", InputRef{}, false},
		{"bad name.out", InputRef{}, false},
		{"", InputRef{}, false},
	} {
		got, ok := ParseInputRef(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseInputRef(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

// An edge whose exchange stream name would pass JetStream's 255 bytes is refused at load, at the
// input, rather than when the runtime creates the stream.
func TestGraphStreamNameTooLong(t *testing.T) {
	pipeline, a, b := strings.Repeat("p", 120), strings.Repeat("a", 70), strings.Repeat("b", 70)
	src := `name = "` + pipeline + `"
server {
  url = "nats://h:4222"
}
source "in" {
  stream = "S"
}
operator "` + a + `" {
  module = "a.wasm"
  inputs = ["in"]
  key {
    json_field = "id"
  }
  internal_outputs = ["out"]
}
operator "` + b + `" {
  module  = "b.wasm"
  inputs  = ["` + a + `.out"]
  key {
    json_field = "id"
  }
  internal_outputs = ["out"]
}`
	_, diags, _ := Parse([]byte(src), "p.hcl")
	errs := diags.Errors()
	if len(errs) != 1 || !strings.HasPrefix(errs[0].String(), "p.hcl:18:14: operator \""+b+"\": inputs: \""+a+".out\": exchange: invalid edge: stream name WS_X_") ||
		!strings.Contains(errs[0].String(), "is longer than JetStream's 255 bytes; shorten the pipeline or operator names") {
		t.Errorf("diagnostics:\n%v", diags)
	}
	if p, _, _ := Parse([]byte(strings.ReplaceAll(src, b, "b")), "p.hcl"); p.Graph().Edges[1].Stream == "" {
		t.Error("the exchange edge of a valid graph has no stream name")
	}
}

// The graph docs/config.md shows under "Dataflow graphs" is what Graph prints for the pipeline
// shown above it, line for line (validate indents it by four spaces).
func TestGraphDocsExample(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)[strings.Index(string(doc), "### Dataflow graphs"):]
	hclStart := strings.Index(section, "```hcl\n") + len("```hcl\n")
	hclEnd := hclStart + strings.Index(section[hclStart:], "```")
	outStart := hclEnd + strings.Index(section[hclEnd+3:], "```\n") + 3 + len("```\n")
	shown := section[outStart : outStart+strings.Index(section[outStart:], "```")]
	p, diags, err := Parse([]byte(section[hclStart:hclEnd]), "pipeline.hcl")
	if err != nil || len(diags) > 0 {
		t.Fatalf("the docs' graph pipeline: %v\n%v", err, diags)
	}
	for _, line := range strings.Split(strings.TrimSuffix(p.Graph().String(), "\n"), "\n") {
		if !strings.Contains(shown, "\n    "+line+"\n") {
			t.Errorf("docs/config.md's validate output lacks the line %q:\n%s", line, shown)
		}
	}
}
