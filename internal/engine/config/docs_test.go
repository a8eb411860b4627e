package config

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

const docsPath = "../../../docs/config.md"

// TestDocsExamples parses every HCL example of docs/config.md: each must load without a single
// diagnostic, so the documentation cannot drift from the code.
func TestDocsExamples(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d hcl examples in %s, want the full and the minimal one", len(blocks), docsPath)
	}
	for i, b := range blocks {
		p, diags, err := Parse(b[1], "pipeline.hcl")
		if err != nil || len(diags) > 0 {
			t.Errorf("example %d: %v\n%v", i+1, err, diags)
			continue
		}
		if p.Operator("risk") == nil || p.Sink("risk-totals") == nil {
			t.Errorf("example %d lost its operator or sink", i+1)
		}
	}
}

// TestDocsCoverSchema checks that every setting and block the decoder accepts is documented.
func TestDocsCoverSchema(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*hcl.BodySchema{fileSchema, serverSchema, logSchema, checkpointSchema, streamSchema,
		sourceSchema, operatorSchema, keySchema, limitsSchema, sinkSchema} {
		for _, a := range s.Attributes {
			if !strings.Contains(string(doc), "`"+a.Name+"`") {
				t.Errorf("setting %s is not documented", a.Name)
			}
		}
		for _, b := range s.Blocks {
			if !strings.Contains(string(doc), "`"+b.Type) {
				t.Errorf("block %s is not documented", b.Type)
			}
		}
	}
}
