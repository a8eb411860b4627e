package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// clientPipeline writes a pipeline named name with its data dir in dir and
// its embedded server on port, and returns its file.
func clientPipeline(t *testing.T, name, dir string, port int) string {
	t.Helper()
	text := fmt.Sprintf(`name = %q
data_dir = "./data"
stream "IN" {
  subjects = ["in.>"]
}
source "in" {
  stream  = "IN"
  subject = "in.x"
}
operator "op" {
  module  = %q
  inputs  = ["in"]
  key {
    json_field = "k"
  }
  outputs = { out = "out" }
}
sink "out" {
  subject = "in.out"
}
server {
  embedded_port = %d
}
`, name, pluginFixture(t, "good.wasm"), port)
	path := filepath.Join(dir, "pipeline.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Two pipelines on one embedded port: while pipeline a's embedded server
// holds it, publish, read, operator push and checkpoints trigger for
// another pipeline (or for a on another data dir) are refused before they
// touch that server, naming the pipeline that owns the port; publish and
// read for a use a's server.
func TestClientRefusesAnotherPipelinesServer(t *testing.T) {
	port := testutil.FreePort(t)
	dirA := t.TempDir()
	a := clientPipeline(t, "a", dirA, port)
	cfgA, err := loadConfig(a, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Nothing listens yet: this starts a's embedded server on a's store.
	connA, err := engine.ConnectClient(ctx, cfgA, hclog.NewNullLogger(), engine.AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer connA.Close()

	for _, tc := range []struct{ what, name string }{
		{"another pipeline", "b"},
		{"the same pipeline name on another data dir", "a"},
	} {
		dirB := t.TempDir()
		b := clientPipeline(t, tc.name, dirB, port)
		for _, args := range [][]string{
			{"publish", "--config", b, "--subject", "in.x", "-"},
			{"read", "--config", b, "--subject", "in.x"},
			{"operator", "push", pluginFixture(t, "good.wasm"), "--name", "risk", "--config", b},
			{"checkpoints", "trigger", b, "--timeout", "5s"},
		} {
			root := newRootCommand()
			root.SetIn(strings.NewReader(`{"k":"b","n":1}` + "\n"))
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			root.SetArgs(args)
			err := root.Execute()
			for _, want := range []string{`pipeline "a"`, fmt.Sprintf("127.0.0.1:%d", port), "embedded_port"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %s: got %v, want an error with %q", tc.what, args[0], err, want)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(dirB, "data")); !os.IsNotExist(err) {
			t.Errorf("%s: the refused commands made its data dir: %v", tc.what, err)
		}
	}

	cmd := newRootCommand()
	cmd.SetIn(strings.NewReader(`{"k":"a","n":1}` + "\n"))
	cmd.SetOut(io.Discard)
	cmd.SetArgs([]string{"publish", "--config", a, "--subject", "in.x", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("publish for the pipeline that owns the server: %v", err)
	}
	out := mustExecCLI(t, "read", "--config", a, "--subject", "in.x")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, `{"k":"a","n":1}`) {
		t.Fatalf("a's stream holds:\n%s\nwant only a's record", out)
	}
}
