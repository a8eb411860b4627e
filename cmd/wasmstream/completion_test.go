package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// complete runs cobra's hidden __complete command, as the shell scripts
// do, and returns the candidates and the directive.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	r := runMain(t, "", append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if r.code != exitOK {
		t.Fatalf("__complete %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	last := lines[len(lines)-1]
	d, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil {
		t.Fatalf("__complete %s: no directive line:\n%s", strings.Join(args, " "), r.stdout)
	}
	var cands []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t") // a description follows a tab
		if !strings.HasPrefix(name, "-") { // cobra offers required flags not given yet
			cands = append(cands, name)
		}
	}
	return cands, cobra.ShellCompDirective(d)
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_wasmstream", "zsh": "#compdef wasmstream", "fish": "complete -c wasmstream"} {
		r := runMain(t, "", "completion", shell)
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s: exit %d, script without %q\n%s", shell, r.code, want, r.stderr)
		}
	}
	if r := runMain(t, "", "completion", "tcsh"); r.code != exitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", r.code, exitUsage)
	}
}

func TestCompletionOfPipelineFiles(t *testing.T) {
	for _, args := range [][]string{
		{"run", ""}, {"worker", ""}, {"validate", ""}, {"checkpoints", "list", ""}, {"savepoint", "inspect", ""},
		{"state", "scan", ""}, {"read", "--config", ""}, {"exec", "op.wasm", "--pipeline", ""},
	} {
		cands, d := complete(t, args...)
		if d != cobra.ShellCompDirectiveFilterFileExt || !slices.Equal(cands, []string{"hcl"}) {
			t.Errorf("complete %q: %q directive %d, want the *.hcl files", args, cands, d)
		}
	}
	// exec's --config is the guest's config, any file.
	if cands, d := complete(t, "exec", "op.wasm", "--config", ""); d == cobra.ShellCompDirectiveFilterFileExt {
		t.Errorf("complete exec --config: %q directive %d: it is not a pipeline file", cands, d)
	}
}

func TestCompletionOfCheckpointIDs(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	cfg := pipelineFile(t, dataDir)
	want := []string{"3", "2", "1"} // newest first, as checkpoints list shows them
	if len(written) != len(want) {
		t.Fatalf("the fixture wrote %d checkpoints", len(written))
	}
	for _, args := range [][]string{
		{"checkpoints", "inspect", cfg, ""},
		{"checkpoints", "verify", cfg, ""},
		{"checkpoints", "inspect", "--data-dir", dataDir, ""},
		{"run", cfg, "--from-checkpoint", ""},
	} {
		cands, d := complete(t, args...)
		if !slices.Equal(cands, want) || d&cobra.ShellCompDirectiveNoFileComp == 0 || d&cobra.ShellCompDirectiveKeepOrder == 0 {
			t.Errorf("complete %q: %q directive %d, want %q and no files", args, cands, d, want)
		}
	}
	if err := os.RemoveAll(filepath.Join(dataDir, "checkpoints")); err != nil {
		t.Fatal(err)
	}
	if cands, _ := complete(t, "checkpoints", "inspect", cfg, ""); len(cands) != 0 {
		t.Errorf("complete inspect without checkpoints: %q", cands)
	}
}

func TestCompletionOfOperators(t *testing.T) {
	dataDir, _ := fixtureDataDir(t)
	cfg := pipelineFile(t, dataDir)
	want := []string{"limits", "risk"}
	for _, args := range [][]string{
		{"scale", cfg, "--operator", ""},
		{"state", "scan", cfg, "--operator", ""},
		{"upgrade", cfg, "--operator", ""},
		{"exec", "op.wasm", "--pipeline", cfg, "--operator", ""},
	} {
		cands, d := complete(t, args...)
		if !slices.Equal(cands, want) || d != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("complete %q: %q directive %d, want %q", args, cands, d, want)
		}
	}
	if cands, _ := complete(t, "state", "scan", "--data-dir", dataDir, "--operator", ""); len(cands) != 0 {
		t.Errorf("--operator with --data-dir (no pipeline file): %q", cands)
	}
}
