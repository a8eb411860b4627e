package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

// runCheckpoints runs `wasmstream checkpoints args...` in-process (execCLI).
func runCheckpoints(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return execCLI(t, append([]string{"checkpoints"}, args...)...)
}

// mustRunCheckpoints is runCheckpoints for a command that must succeed.
func mustRunCheckpoints(t *testing.T, args ...string) string {
	t.Helper()
	return mustExecCLI(t, append([]string{"checkpoints"}, args...)...)
}

// fixtureDataDir writes the fixture into a fresh data dir.
func fixtureDataDir(t *testing.T) (string, []checkpoint.Manifest) {
	t.Helper()
	dir := t.TempDir()
	return dir, writeFixture(t, dir)
}

// pipelineFile writes the fixture's pipeline file with dataDir as its
// data_dir.
func pipelineFile(t *testing.T, dataDir string) string {
	t.Helper()
	text := strings.Replace(fixtureConfig, `data_dir = "./data"`, fmt.Sprintf("data_dir = %q", filepath.ToSlash(dataDir)), 1)
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Both ways of naming the checkpoints give the same output, for every
// subcommand.
func TestCheckpointsPipelineFileAndDataDirAgree(t *testing.T) {
	dataDir, _ := fixtureDataDir(t)
	cfg := pipelineFile(t, dataDir)
	for _, sub := range [][]string{{"list"}, {"list", "--json"}, {"inspect", "2"}, {"verify"}, {"verify", "3", "--json"}} {
		byFile := mustRunCheckpoints(t, append([]string{sub[0], cfg}, sub[1:]...)...)
		byDir := mustRunCheckpoints(t, append([]string{sub[0], "--data-dir", dataDir}, sub[1:]...)...)
		if byFile != byDir {
			t.Errorf("%v: pipeline file form:\n%s\n--data-dir form:\n%s", sub, byFile, byDir)
		}
		if !strings.Contains(byFile, "3") {
			t.Errorf("%v: output lacks checkpoint 3:\n%s", sub, byFile)
		}
	}
}

func TestCheckpointsArgumentErrors(t *testing.T) {
	dataDir, _ := fixtureDataDir(t)
	cfg := pipelineFile(t, dataDir)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"list without a source", []string{"list"}, "give the pipeline file or --data-dir DIR"},
		{"list with both", []string{"list", cfg, "--data-dir", dataDir}, "with --data-dir, give no pipeline file"},
		{"inspect without id", []string{"inspect", "--data-dir", dataDir}, "the checkpoint id"},
		{"inspect file without id", []string{"inspect", cfg}, "the checkpoint id"},
		{"inspect bad id", []string{"inspect", "--data-dir", dataDir, "two"}, `checkpoint id "two": must be a positive integer`},
		{"inspect id zero", []string{"inspect", "--data-dir", dataDir, "0"}, `checkpoint id "0"`},
		{"verify two ids", []string{"verify", "--data-dir", dataDir, "1", "2"}, "at most one checkpoint id"},
		{"mistyped subcommand", []string{"lst", cfg}, `unknown command "lst"; use list, inspect, verify or trigger`},
		{"missing pipeline file", []string{"list", filepath.Join(dataDir, "nope.hcl")}, "nope.hcl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCheckpoints(t, tt.args...)
			if err == nil {
				t.Fatalf("accepted %v:\n%s", tt.args, out)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q lacks %q", err, tt.want)
			}
		})
	}
}

func TestCheckpointsUnknownIDListsExisting(t *testing.T) {
	dataDir, _ := fixtureDataDir(t)
	for _, sub := range []string{"inspect", "verify"} {
		_, err := runCheckpoints(t, sub, "--data-dir", dataDir, "7")
		if !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
			t.Fatalf("%s 7: error %v, want ErrCheckpointNotFound", sub, err)
		}
		for _, want := range []string{"checkpoint 7", "checkpoints in " + engine.CheckpointRootIn(dataDir) + ": 3, 2, 1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s 7: error %q lacks %q", sub, err, want)
			}
		}
	}
	_, err := runCheckpoints(t, "inspect", "--data-dir", t.TempDir(), "1")
	if !errors.Is(err, checkpoint.ErrCheckpointNotFound) || !strings.Contains(err.Error(), "holds no checkpoints") {
		t.Fatalf("inspect in an empty data dir: %v", err)
	}
}
