package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// graphConfig parses a pipeline with source in and the operators given.
func graphConfig(t *testing.T, operators string) *config.Pipeline {
	t.Helper()
	src := `name = "p"
data_dir = "` + filepath.Join(t.TempDir(), "data") + `"
server {
  url = "nats://127.0.0.1:1"
}
source "in" {
  stream = "S"
}
sink "out" {
  subject = "out.x"
}
` + operators
	cfg, diags, err := config.Parse([]byte(src), "p.hcl")
	if err != nil {
		t.Fatalf("%v\n%v", err, diags)
	}
	return cfg
}

const (
	graphProducer = `
operator "a" {
  module = "a.wasm"
  inputs = ["in"]
  key {
    json_field = "id"
  }
  internal_outputs = ["out"]
}
`
	graphConsumer = `
operator "b" {
  module  = "b.wasm"
  inputs  = ["a.out"]
  key {
    json_field = "customer"
  }
  outputs = { out = "out" }
}
`
	graphPerInputKey = `
operator "c" {
  module = "c.wasm"
  inputs = ["in"]
  input "in" {
    key {
      header = "Id"
    }
  }
  outputs = { out = "out" }
}
`
)

// CheckRunnable refuses what the engine cannot run yet, naming the operator and the input at the
// operator's block, and accepts today's pipelines.
func TestCheckRunnable(t *testing.T) {
	for _, tc := range []struct {
		name, operators string
		want            []string
	}{
		{"sources only", strings.Replace(graphProducer, `internal_outputs = ["out"]`, `outputs = { out = "out" }`, 1), nil},
		{"an operator reading an operator", graphProducer + graphConsumer,
			[]string{`p.hcl:22:1: operator "b": input "a.out" is the output of operator "a": dataflow graphs are validated but not yet runnable`}},
		{"internal outputs read by no operator", graphProducer,
			[]string{`p.hcl:13:1: operator "a": internal_outputs ["out"] go to other operators only: dataflow graphs are validated but not yet runnable; map them to sinks in outputs`}},
		{"a key per input", graphPerInputKey,
			[]string{`p.hcl:13:1: operator "c": input "in" has a key of its own (an input block): dataflow graphs are validated but not yet runnable; key every input with the operator's key block`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRunnable(graphConfig(t, tc.operators))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckRunnable: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrGraphNotRunnable) {
				t.Fatalf("err = %v, want ErrGraphNotRunnable", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks\n%s", err, w)
				}
			}
		})
	}
}

// Open and OpenExec refuse a graph before they lock or create the data dir, compile a module or
// connect: whoever calls the engine directly gets the same refusal as the CLI.
func TestOpenRefusesGraphs(t *testing.T) {
	cfg := graphConfig(t, graphProducer+graphConsumer)
	_, err := Open(context.Background(), cfg, Options{})
	if !errors.Is(err, ErrGraphNotRunnable) {
		t.Fatalf("Open: err = %v, want ErrGraphNotRunnable", err)
	}
	if _, err := os.Stat(cfg.DataDir); !os.IsNotExist(err) {
		t.Errorf("Open created the data dir before refusing: %v", err)
	}
	var store *state.Store // OpenExec refuses before it touches the store
	_, err = OpenExec(context.Background(), graphConfig(t, graphPerInputKey), "c", store, ExecOptions{WorkDir: t.TempDir()})
	if !errors.Is(err, ErrGraphNotRunnable) {
		t.Fatalf("OpenExec: err = %v, want ErrGraphNotRunnable", err)
	}
}
