package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/natsio"
)

// runSavepoint runs `wasmstream savepoint args...` in-process (execCLI).
func runSavepoint(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return execCLI(t, append([]string{"savepoint"}, args...)...)
}

// mustRunSavepoint is runSavepoint for a command that must succeed.
func mustRunSavepoint(t *testing.T, args ...string) string {
	t.Helper()
	return mustExecCLI(t, append([]string{"savepoint"}, args...)...)
}

// savepointFixture is the checkpoints fixture with the module files its
// manifests name, and a pipeline file; server is a server block for it
// ("" for none: the embedded default, which the tests never start).
func savepointFixture(t *testing.T, server string) (cfgPath, dataDir string) {
	t.Helper()
	dataDir, _ = fixtureDataDir(t)
	return fixturePipelineFile(t, dataDir, server), dataDir
}

func fixturePipelineFile(t *testing.T, dataDir, server string) string {
	t.Helper()
	dir := t.TempDir()
	text := strings.Replace(fixtureConfig, `data_dir = "./data"`, fmt.Sprintf("data_dir = %q\n%s", filepath.ToSlash(dataDir), server), 1)
	files := map[string]string{"pipeline.hcl": text, "operator/risk.wasm": "risk.wasm v1", "operator/limits.wasm": "limits.wasm v1"}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "pipeline.hcl")
}

func wantContains(t *testing.T, what, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(out, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, out)
		}
	}
}

func TestSavepointCLIFlow(t *testing.T) {
	cfg, dataDir := savepointFixture(t, "")
	out := mustRunSavepoint(t, "create", cfg, "--name", "golden", "--description", "before the v2 rollout")
	wantContains(t, "create", out, "savepoint golden created from checkpoint 3 (the newest checkpoint; the pipeline is not running)",
		"positions    payments=2300 limits=41", "risk@"+shortHash(riskModuleSHA256), "limits@"+shortHash(limitsModuleSHA256),
		filepath.Join(dataDir, "savepoints", "golden"))

	out = mustRunSavepoint(t, "list", cfg)
	wantContains(t, "list", out, "NAME", "golden", "payment-risk", "payments=2300 limits=41", "before the v2 rollout")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(mustRunSavepoint(t, "list", "--data-dir", dataDir, "--json")), &rows); err != nil || len(rows) != 1 || rows[0]["checkpoint_id"] != 3.0 {
		t.Fatalf("list --json: %v %v", rows, err)
	}
	out = mustRunSavepoint(t, "inspect", "--data-dir", dataDir, "golden", "--verify", "--files")
	wantContains(t, "inspect", out, "savepoint golden", "verified     ok", "modules (2)", "checkpoint 3", "RESUMES AT", "files (")

	archive := filepath.Join(t.TempDir(), "golden.tar")
	out = mustRunSavepoint(t, "export", cfg, "golden", archive)
	wantContains(t, "export", out, "exported savepoint golden to "+archive, "sha256 ")
	other := t.TempDir()
	out = mustRunSavepoint(t, "import", "--data-dir", other, archive)
	wantContains(t, "import", out, "imported savepoint golden (checkpoint 3 of pipeline payment-risk", archive)
	out = mustRunSavepoint(t, "import", "--data-dir", other, archive)
	wantContains(t, "second import", out, "already there: savepoint golden")
	mustRunSavepoint(t, "import", "--data-dir", other, archive, "--name", "copy")
	if err := checkpoint.VerifySavepoint(engine.SavepointRootIn(other), "copy"); err != nil {
		t.Fatal(err)
	}

	data, _ := os.ReadFile(archive)
	data[len(data)/2] ^= 1
	damaged := filepath.Join(t.TempDir(), "damaged.tar")
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	_, err := runSavepoint(t, "import", "--data-dir", fresh, damaged)
	if !errors.Is(err, checkpoint.ErrCorruptArchive) || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("damaged archive: %v", err)
	}
	if names, _ := checkpoint.ListSavepoints(engine.SavepointRootIn(fresh)); len(names) != 0 {
		t.Fatalf("a damaged import left %v", names)
	}

	out = mustRunSavepoint(t, "rm", cfg, "golden")
	wantContains(t, "rm", out, "removed savepoint golden")
	out = mustRunSavepoint(t, "list", cfg)
	wantContains(t, "list after rm", out, "no savepoints in")
	_, err = runSavepoint(t, "inspect", "--data-dir", other, "nope")
	if !errors.Is(err, checkpoint.ErrSavepointNotFound) || !strings.Contains(err.Error(), "savepoints in "+engine.SavepointRootIn(other)+": copy, golden") {
		t.Fatalf("inspect of an unknown savepoint: %v", err)
	}
}

func TestSavepointCLIChoosesCheckpointAndName(t *testing.T) {
	cfg, _ := savepointFixture(t, "")
	out := mustRunSavepoint(t, "create", cfg, "--checkpoint", "2", "--json")
	var got struct {
		Name         string            `json:"name"`
		CheckpointID uint64            `json:"checkpoint_id"`
		Triggered    bool              `json:"triggered"`
		Positions    map[string]uint64 `json:"positions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.CheckpointID != 2 || got.Triggered || !strings.HasPrefix(got.Name, "sp-2-") || got.Positions["payments"] != 1500 {
		t.Fatalf("create --checkpoint 2: %+v", got)
	}
	_, err := runSavepoint(t, "create", cfg, "--checkpoint", "9")
	if !errors.Is(err, checkpoint.ErrCheckpointNotFound) || !strings.Contains(err.Error(), "retained: 3, 2, 1") {
		t.Fatalf("create --checkpoint 9: %v", err)
	}
}

func TestSavepointCLIRefusesAChangedModule(t *testing.T) {
	cfg, _ := savepointFixture(t, "")
	if err := os.WriteFile(filepath.Join(filepath.Dir(cfg), "operator", "risk.wasm"), []byte("risk.wasm v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runSavepoint(t, "create", cfg)
	if !errors.Is(err, checkpoint.ErrModuleMissing) || !strings.Contains(err.Error(), `operator "risk"`) {
		t.Fatalf("create with a changed module: %v", err)
	}
}

func TestSavepointCLIArgumentErrors(t *testing.T) {
	cfg, dataDir := savepointFixture(t, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lst", cfg}, `unknown command "lst"; use create, list, inspect, rm, export or import`},
		{[]string{"export", cfg, "x"}, "give the archive FILE (- for standard output) or --to-object-store"},
		{[]string{"export", cfg, "x", "f.tar", "--to-object-store"}, "not both"},
		{[]string{"list", "--data-dir", dataDir, "--object-store"}, "give the pipeline file instead of --data-dir"},
		{[]string{"inspect", "--data-dir", dataDir}, "the savepoint name"},
		{[]string{"create", cfg, "--name", "Not/Valid"}, "invalid savepoint name"},
		{[]string{"import", "--data-dir", dataDir, "nope.tar"}, "nope.tar"},
	} {
		if out, err := runSavepoint(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q\n%s", tc.args, err, tc.want, out)
		}
	}
}

func TestSavepointCLIObjectStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := natsio.Connect(ctx, natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	block := fmt.Sprintf("server { url = %q }", server.ClientURL())
	cfg, _ := savepointFixture(t, block)
	out := mustRunSavepoint(t, "create", cfg, "--name", "shared", "--to-object-store")
	wantContains(t, "create --to-object-store", out, "object store  payment-risk/shared.tar in bucket wasmstream-savepoints on "+server.ClientURL())
	out = mustRunSavepoint(t, "export", cfg, "shared", "--to-object-store")
	wantContains(t, "second store", out, "already stored savepoint shared")
	out = mustRunSavepoint(t, "list", cfg, "--object-store")
	wantContains(t, "list --object-store", out, "shared", "payment-risk/shared.tar")

	// Another machine on the same NATS: an empty data dir.
	elsewhere := fixturePipelineFile(t, t.TempDir(), block)
	out = mustRunSavepoint(t, "import", elsewhere, "objectstore:shared")
	wantContains(t, "import objectstore:", out, "imported savepoint shared", "payment-risk/shared.tar in bucket wasmstream-savepoints")
	out = mustRunSavepoint(t, "rm", cfg, "shared", "--object-store")
	wantContains(t, "rm --object-store", out, "removed payment-risk/shared.tar")
	_, err = runSavepoint(t, "import", elsewhere, "objectstore:shared", "--name", "again")
	if !errors.Is(err, checkpoint.ErrSavepointNotFound) {
		t.Fatalf("import of a removed object: %v", err)
	}
}

func TestSavepointRunFlag(t *testing.T) {
	var ro engine.RecoveryOptions
	cmd := &cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error { return nil }}
	addSavepointFlag(cmd, &ro)
	cmd.SetArgs([]string{"--from-savepoint", "objectstore:golden"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if ro.FromSavepoint != "objectstore:golden" {
		t.Fatalf("FromSavepoint = %q", ro.FromSavepoint)
	}
}
