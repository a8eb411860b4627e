package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
	"github.com/wasmstream/wasmstream/plugins"
)

// execCLI runs the root command in-process and returns its standard
// output and error; what it printed to stderr goes to the test log.
func execCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	if errOut.Len() > 0 {
		t.Logf("stderr of %v:\n%s", args, errOut.String())
	}
	return out.String(), err
}

// mustExecCLI is execCLI for a command that must succeed.
func mustExecCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := execCLI(t, args...)
	if err != nil {
		t.Fatalf("wasmstream %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// natsServer starts an embedded JetStream server for the test and returns
// its URL.
func natsServer(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := natsio.Connect(ctx, natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ClientURL()
}

func pluginFixture(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(testutil.ModuleRoot(t), "plugins", "testdata", name)
}

func TestOperatorCLIRoundTrip(t *testing.T) {
	srv := []string{"--server", natsServer(t)}
	good := pluginFixture(t, "good.wasm")
	wasm, _ := os.ReadFile(good)
	hash := plugins.HashBytes(wasm)

	out := mustExecCLI(t, append([]string{"operator", "push", good, "--name", "risk", "--description", "risk totals"}, srv...)...)
	if !strings.Contains(out, "pushed risk@"+hash[:12]) || !strings.Contains(out, hash) || !strings.Contains(out, `module = "risk"`) {
		t.Fatalf("push:\n%s", out)
	}
	out = mustExecCLI(t, append([]string{"operator", "push", good, "--name", "risk"}, srv...)...)
	if !strings.Contains(out, "already holds these bytes") || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second push:\n%s", out)
	}
	bad := pluginFixture(t, "version2.wasm")
	_, err := execCLI(t, append([]string{"operator", "push", bad, "--name", "risk"}, srv...)...)
	if !errors.Is(err, plugins.ErrABI) || !strings.Contains(err.Error(), "version2.wasm") || !strings.Contains(err.Error(), "rebuild") {
		t.Fatalf("bad push: %v", err)
	}

	out = mustExecCLI(t, append([]string{"operator", "list"}, srv...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[1], hash[:12]) ||
		!strings.Contains(lines[1], "*") || !strings.Contains(lines[1], "risk totals") {
		t.Fatalf("list:\n%s", out)
	}
	var entries []plugins.Entry
	if err := json.Unmarshal([]byte(mustExecCLI(t, append([]string{"operator", "list", "--json"}, srv...)...)), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Hash != hash || entries[0].Name != "risk" || entries[0].ABIVersion != 1 {
		t.Fatalf("list --json: %+v", entries)
	}

	out = mustExecCLI(t, append([]string{"operator", "inspect", "risk@" + hash[:8]}, srv...)...)
	for _, want := range []string{"version      " + hash, "the newest", "record_next state_get", "2 pages", "at most 16 pages"} {
		if !strings.Contains(out, want) {
			t.Fatalf("inspect lacks %q:\n%s", want, out)
		}
	}
	var inspected struct {
		plugins.Entry
		Newest bool `json:"newest"`
	}
	if err := json.Unmarshal([]byte(mustExecCLI(t, append([]string{"operator", "inspect", "risk", "--json"}, srv...)...)), &inspected); err != nil {
		t.Fatal(err)
	}
	if inspected.Hash != hash || !inspected.Newest || inspected.MemoryMaxPages == nil {
		t.Fatalf("inspect --json: %+v", inspected)
	}

	if _, err := execCLI(t, append([]string{"operator", "rm", "risk"}, srv...)...); !errors.Is(err, plugins.ErrAllVersions) {
		t.Fatalf("rm without --all-versions: %v", err)
	}
	out = mustExecCLI(t, append([]string{"operator", "rm", "risk@" + hash[:8]}, srv...)...)
	if !strings.Contains(out, "removed risk@"+hash[:12]) {
		t.Fatalf("rm:\n%s", out)
	}
	if out := mustExecCLI(t, append([]string{"operator", "list"}, srv...)...); !strings.Contains(out, "no operators") {
		t.Fatalf("list after rm:\n%s", out)
	}
}

// With --config and no pipeline running, each command starts a temporary
// embedded server on the pipeline's store: what push stored, a later list
// sees.
func TestOperatorCLIConfigUsesPipelineStore(t *testing.T) {
	dir := t.TempDir()
	good := pluginFixture(t, "good.wasm")
	cfg := clientPipeline(t, "ops", dir, testutil.FreePort(t))
	mustExecCLI(t, "operator", "push", good, "--name", "risk", "--config", cfg)
	out := mustExecCLI(t, "operator", "list", "--config", cfg)
	if !strings.Contains(out, "risk ") {
		t.Fatalf("list after push through the pipeline's store:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "jetstream")); err != nil {
		t.Fatalf("the registry is not in the pipeline's data dir: %v", err)
	}
}

func TestOperatorCLIUsageErrors(t *testing.T) {
	good := pluginFixture(t, "good.wasm")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"operator", "list"}, "--config PIPELINE.hcl"},
		{[]string{"operator", "list", "--config", "a.hcl", "--server", "nats://x"}, "not both"},
		{[]string{"operator", "list", "--config", "a.hcl", "--creds", "x.creds"}, "--creds goes with --server"},
		{[]string{"operator", "push", good, "--name", "bad.name", "--server", "nats://127.0.0.1:1"}, "--name"},
		{[]string{"operator", "push", good, "--server", "nats://127.0.0.1:1"}, `"name" not set`},
		{[]string{"operator", "push", "missing.wasm", "--name", "x", "--server", "nats://127.0.0.1:1"}, "missing.wasm"},
		{[]string{"operator", "push", good, "--name", "x", "--max-bytes", "10", "--server", "nats://127.0.0.1:1"}, "size limit"},
		{[]string{"operator", "inspect", "op/risk.wasm", "--server", "nats://127.0.0.1:1"}, "file path"},
		{[]string{"operator", "inspect", "risk@xyz", "--server", "nats://127.0.0.1:1"}, "8 to 64 hex digits"},
		{[]string{"operator", "frob"}, `unknown command "frob"`},
	} {
		_, err := execCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

func TestOperatorHelpHasExamples(t *testing.T) {
	for _, sub := range []string{"push", "list", "inspect", "rm"} {
		out := mustExecCLI(t, "operator", sub, "--help")
		if !strings.Contains(out, "Examples:") || !strings.Contains(out, "wasmstream operator "+sub) {
			t.Errorf("operator %s --help lacks examples:\n%s", sub, out)
		}
	}
}
