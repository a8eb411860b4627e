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

// CheckRunnable accepts every graph in one process, and refuses in a cluster what its workers
// cannot run yet, naming the operator and the input at the operator's block.
func TestCheckRunnable(t *testing.T) {
	const cluster = "dataflow graphs are not yet runnable here in a cluster; graphs run in one process for now (wasmstream run)"
	for _, tc := range []struct {
		name, operators string
		want            []string
	}{
		{"sources only", strings.Replace(graphProducer, `internal_outputs = ["out"]`, `outputs = { out = "out" }`, 1), nil},
		{"an operator reading an operator", graphProducer + graphConsumer,
			[]string{`p.hcl:22:1: operator "b": input "a.out" is the output of operator "a": ` + cluster}},
		{"internal outputs read by no operator", graphProducer,
			[]string{`p.hcl:13:1: operator "a": internal_outputs ["out"] go to other operators only: ` + cluster + `; or map them to sinks in outputs`}},
		{"a key per input", graphPerInputKey,
			[]string{`p.hcl:13:1: operator "c": input "in" has a key of its own (an input block): ` + cluster + `; or key every input with the operator's key block`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := graphConfig(t, tc.operators)
			if err := CheckRunnable(cfg, InOneProcess); err != nil {
				t.Fatalf("CheckRunnable in one process: %v", err)
			}
			err := CheckRunnable(cfg, InCluster)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckRunnable in a cluster: %v", err)
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

// A cluster part and OpenExec refuse a graph before they lock or create the data dir, compile a
// module or connect: whoever calls the engine directly gets the same refusal as the CLI.
func TestOpenRefusesGraphsOutsideOneProcess(t *testing.T) {
	cfg := graphConfig(t, graphProducer+graphConsumer)
	_, err := Open(context.Background(), cfg, Options{Cluster: &ClusterPart{}})
	if !errors.Is(err, ErrGraphNotRunnable) {
		t.Fatalf("Open of a cluster part: err = %v, want ErrGraphNotRunnable", err)
	}
	if _, err := os.Stat(cfg.DataDir); !os.IsNotExist(err) {
		t.Errorf("Open created the data dir before refusing: %v", err)
	}
	var store *state.Store // OpenExec refuses before it touches the store
	_, err = OpenExec(context.Background(), graphConfig(t, graphPerInputKey), "c", store, ExecOptions{WorkDir: t.TempDir()})
	if !errors.Is(err, ErrGraphNotRunnable) || !strings.Contains(err.Error(), "by exec") {
		t.Fatalf("OpenExec: err = %v, want ErrGraphNotRunnable by exec", err)
	}
}
