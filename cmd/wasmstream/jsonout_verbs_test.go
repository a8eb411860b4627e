package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/scaffold"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// logOnlyVerbs print logs, not a result: they take --log-format json
// instead of --json (docs/cli.md). Every other command that runs takes
// --json.
var logOnlyVerbs = []string{"wasmstream run", "wasmstream worker"}

// TestEveryPrintingVerbTakesJSON walks the command tree: a command that
// runs something and prints takes --json, except the log-only verbs, the
// group commands (which only print their help) and cobra's completion
// commands (their output is a shell script).
func TestEveryPrintingVerbTakesJSON(t *testing.T) {
	root := newCLI()
	initCompletionCommand(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := c.CommandPath()
		switch {
		case !c.Runnable() || c.HasSubCommands() || c.Hidden:
		case c.Parent() != nil && c.Parent().Name() == "completion":
		case slices.Contains(logOnlyVerbs, path):
			if c.Flag("log-format") == nil {
				t.Errorf("%s has no --log-format", path)
			}
		case c.Flags().Lookup(jsonFlag) == nil:
			t.Errorf("%s prints without a --json form (docs/cli.md)", path)
		}
	}
	walk(root)
}

func TestJSONVersion(t *testing.T) {
	doc := jsonDoc(t, "", "version", "--json")
	info, _ := debug.ReadBuildInfo()
	b := buildVersion(version, info)
	wantFields(t, "version", doc, map[string]any{"version": b.Version, "commit": b.Commit, "commit_time": b.Time,
		"abi_version": float64(abi.Version), "state_format_version": float64(state.FormatVersion)})
}

func TestJSONInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pay")
	doc := jsonDoc(t, "", "init", "--lang", "c", "pay", "--dir", dir, "--json")
	all, err := scaffold.Files(scaffold.C, "pay")
	if err != nil {
		t.Fatal(err)
	}
	sdk := 0
	for _, f := range all {
		if strings.HasPrefix(f.Path, scaffold.SDKDir+"/") {
			sdk++
		}
	}
	wantFields(t, "init", doc, map[string]any{"name": "pay", "lang": "c", "dir": dir, "sdk_dir": scaffold.SDKDir, "sdk_files": float64(sdk), "module": scaffold.ModuleName})
	if files, _ := doc["files"].([]any); len(files)+sdk != len(all) {
		t.Errorf("init --json lists %d files and %d of the SDK; init writes %d", len(files), sdk, len(all))
	}
	files, _ := doc["files"].([]any)
	if !slices.Contains(files, any("src/operator.c")) || !slices.Contains(files, any("pipeline.hcl")) {
		t.Fatalf("init --json files %v: want src/operator.c and pipeline.hcl", doc["files"])
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f.(string))); err != nil {
			t.Errorf("init --json lists %s: %v", f, err)
		}
	}
}

// TestJSONBuild builds a Go project: the commands go to stderr, stdout
// is the document only.
func TestJSONBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pay")
	jsonDoc(t, "", "init", "--lang", "go", "pay", "--dir", dir, "--json")
	for _, kv := range projectEnv {
		k, v, _ := cutEnv(kv)
		t.Setenv(k, v)
	}
	r := runMain(t, "", "build", dir, "--json")
	if r.code != exitOK {
		t.Fatalf("build --json: exit %d\n%s", r.code, r.stderr)
	}
	doc := decodeObject(t, r.stdout)
	module := filepath.Join(dir, scaffold.ModuleName)
	st, err := os.Stat(module)
	if err != nil {
		t.Fatal(err)
	}
	wantFields(t, "build", doc, map[string]any{"module": module, "lang": "go", "size": float64(st.Size())})
}

func cutEnv(kv string) (string, string, bool) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// TestJSONScale scales a running worker's operator from 4 tasks to 2.
func TestJSONScale(t *testing.T) {
	c := &clusterSums{url: natsServer(t)}
	module := testutil.GoGuest(t, "./internal/testguests/sum2")
	path := c.pipelineFile(t, t.TempDir(), "cluster", module, quickCluster)
	cfg := mustLoad(t, path)
	c.plainCfg, c.clusterCfg = cfg, cfg // publish and waitForPosition use them
	c.publish(t, 0, 20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, worker.Options{Config: cfg, ID: "w1"}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	}()
	waitForPosition(t, c, 20) // the worker runs its first assignment
	// The pipeline file's short lease_ttl is warned about on stderr.
	r := runMain(t, "", "scale", path, "--operator", "sum", "--parallelism", "2", "--json")
	if r.code != exitOK {
		t.Fatalf("scale --json: exit %d\n%s", r.code, r.stderr)
	}
	doc := decodeObject(t, r.stdout)
	wantFields(t, "scale", doc, map[string]any{"operator": "sum", "parallelism": 2.0})
	if a, _ := doc["assignment"].(float64); a < 2 {
		t.Errorf("scale --json assignment %v: want a new one after the first", doc["assignment"])
	}
	tasks, _ := doc["tasks"].([]any)
	if len(tasks) != 2 {
		t.Fatalf("scale --json tasks %v: want 2", doc["tasks"])
	}
	next := 0.0
	for i, task := range tasks {
		tk := task.(map[string]any)
		kg, _ := tk["key_groups"].(map[string]any)
		wantFields(t, "scale task", tk, map[string]any{"task": float64(i), "worker": "w1"})
		if kg["start"] != next {
			t.Errorf("task %d key groups %v: want them to start at %v", i, kg, next)
		}
		next, _ = kg["end"].(float64)
	}
	if next != 128 { // the default max_parallelism
		t.Errorf("the tasks' key groups end at %v, want 128", next)
	}
}
