package deploy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

const (
	moduleA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	moduleB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// pipelineText is a cluster pipeline with operator "sum" (source "in" of
// stream SUMIN) and extra blocks.
func pipelineText(parallelism int, extra string) string {
	return fmt.Sprintf(`name     = "sums"
data_dir = "./data"

server {
  url = "nats://127.0.0.1:4222"
}

cluster {
  replicas = 1
}

stream "SUMIN" {
  subjects = ["sumin.>"]
}

source "in" {
  stream  = "SUMIN"
  subject = "sumin.x"
}

operator "sum" {
  module        = "sum.wasm"
  inputs        = ["in"]
  parallelism   = %d
  state_version = "1"
  key {
    json_field = "k"
  }
  outputs = { out = "sums" }
}

sink "sums" {
  subject = "sumin.out"
}
%s`, parallelism, extra)
}

func mustParse(t *testing.T, text string) *config.Pipeline {
	t.Helper()
	cfg, _, err := config.Parse([]byte(text), "pipeline.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// savepointOf is a manifest whose operators are entries and whose source
// "in" stands at 300 of stream.
func savepointOf(stream string, ops ...checkpoint.OperatorEntry) checkpoint.Manifest {
	return checkpoint.Manifest{ID: 3, Sources: []checkpoint.SourcePosition{{Name: "in", Stream: stream, StreamCreated: time.Unix(1, 0), LastSequence: 300}},
		Operators: ops}
}

func sumEntry(module string, mutate func(*checkpoint.OperatorEntry)) checkpoint.OperatorEntry {
	e := checkpoint.OperatorEntry{Name: "sum", ModuleSHA256: module, ABIVersion: abi.Version, StateFormatVersion: state.FormatVersion,
		MaxParallelism: 128, StateVersion: "1", Tasks: entries(64, 128)}
	if mutate != nil {
		mutate(&e)
	}
	return e
}

func TestCheckFits(t *testing.T) {
	cfg := mustParse(t, pipelineText(2, ""))
	same := map[string]string{"sum": moduleA}
	for _, tc := range []struct {
		name    string
		m       checkpoint.Manifest
		modules map[string]string
		cfg     *config.Pipeline
		errs    []string // each in the error; none: it fits
		notes   []string
	}{
		{name: "same module", m: savepointOf("SUMIN", sumEntry(moduleA, nil)), modules: same},
		{name: "registry reference of that version", m: savepointOf("SUMIN", sumEntry(moduleA, nil)), modules: map[string]string{"sum": moduleA[:8]}},
		{name: "registry's newest: not compared", m: savepointOf("SUMIN", sumEntry(moduleA, nil)), modules: map[string]string{"sum": ""},
			notes: []string{"registry's newest version, not compared"}},
		{name: "another module with the same state_version", m: savepointOf("SUMIN", sumEntry(moduleA, nil)), modules: map[string]string{"sum": moduleB},
			notes: []string{`state_version "1" is unchanged`}},
		{name: "another module, another state_version", m: savepointOf("SUMIN", sumEntry(moduleA, func(e *checkpoint.OperatorEntry) { e.StateVersion = "0" })),
			modules: map[string]string{"sum": moduleB}, errs: []string{`operator "sum": the module changed`, "modules/" + moduleA + ".wasm", "wasmstream run --from-savepoint"}},
		{name: "another module, declared state versions", m: savepointOf("SUMIN", sumEntry(moduleA, func(e *checkpoint.OperatorEntry) { e.StateVersions = map[string]int32{"sum": 2} })),
			modules: map[string]string{"sum": moduleB}, errs: []string{"the module changed"}},
		{name: "max_parallelism", m: savepointOf("SUMIN", sumEntry(moduleA, func(e *checkpoint.OperatorEntry) { e.MaxParallelism, e.Tasks = 64, entries(64) })),
			modules: same, errs: []string{"the state has 64 key groups but max_parallelism is 128", "set it back to 64"}},
		{name: "ABI", m: savepointOf("SUMIN", sumEntry(moduleA, func(e *checkpoint.OperatorEntry) { e.ABIVersion++ })), modules: same, errs: []string{"ABI v"}},
		{name: "state format", m: savepointOf("SUMIN", sumEntry(moduleA, func(e *checkpoint.OperatorEntry) { e.StateFormatVersion++ })), modules: same, errs: []string{"state format v"}},
		{name: "an operator of the savepoint is not in the pipeline", m: savepointOf("SUMIN", sumEntry(moduleA, nil), sumEntry(moduleA, func(e *checkpoint.OperatorEntry) { e.Name = "gone" })),
			modules: same, errs: []string{`operator "gone" has state in the savepoint but is not in the pipeline`}},
		{name: "an operator of the pipeline has no state", m: savepointOf("SUMIN"), modules: same,
			errs: []string{`operator "sum" has no state in the savepoint`}},
		{name: "a source's position is in another stream", m: savepointOf("OTHER", sumEntry(moduleA, nil)), modules: same,
			errs: []string{`source "in" reads stream SUMIN, but the savepoint's position (sequence 300) is in stream OTHER`}},
		{name: "a source without a position", m: checkpoint.Manifest{ID: 3, Operators: []checkpoint.OperatorEntry{sumEntry(moduleA, nil)}}, modules: same,
			notes: []string{`source "in" has no position in the savepoint`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes, err := checkFits(cfg, tc.m, tc.modules)
			switch {
			case len(tc.errs) == 0 && err != nil:
				t.Fatalf("checkFits: %v", err)
			case len(tc.errs) > 0 && !errors.Is(err, ErrMismatch):
				t.Fatalf("checkFits: %v, want ErrMismatch", err)
			}
			for _, want := range tc.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error lacks %q: %v", want, err)
				}
			}
			joined := strings.Join(notes, "\n")
			for _, want := range tc.notes {
				if !strings.Contains(joined, want) {
					t.Errorf("the notes lack %q: %q", want, notes)
				}
			}
			if len(tc.notes) == 0 && len(notes) > 0 && err == nil {
				t.Errorf("unexpected notes: %q", notes)
			}
		})
	}
}

// TestRunParallelism reads the parallelism of the run that wrote a
// checkpoint from the pipeline file its manifest records.
func TestRunParallelism(t *testing.T) {
	if got := runParallelism(pipelineText(3, "")); got["sum"] != 3 {
		t.Fatalf("runParallelism: %v, want sum=3", got)
	}
	if got := runParallelism("not hcl {"); got != nil {
		t.Fatalf("runParallelism of a broken file: %v, want nil", got)
	}
}
