package engine

import (
	"context"
	"errors"
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

// OpenExec refuses an operator of a graph before it touches the store, compiles a module or
// connects: whoever calls the engine directly gets the same refusal as the CLI.
func TestOpenExecRefusesGraphs(t *testing.T) {
	var store *state.Store // OpenExec refuses before it touches the store
	_, err := OpenExec(context.Background(), graphConfig(t, graphPerInputKey), "c", store, ExecOptions{WorkDir: t.TempDir()})
	if !errors.Is(err, ErrGraphNotRunnable) || !strings.Contains(err.Error(), "by exec") {
		t.Fatalf("OpenExec: err = %v, want ErrGraphNotRunnable by exec", err)
	}
}
