package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// cliRun is what one runCLI call returned: main's path without os.Exit.
type cliRun struct {
	code           int
	stdout, stderr string
}

func runMain(t *testing.T, stdin string, args ...string) cliRun {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runCLI(args, strings.NewReader(stdin), &out, &errOut)
	return cliRun{code: code, stdout: out.String(), stderr: errOut.String()}
}

// wantExit checks the exit code and that stderr says what failed.
func wantExit(t *testing.T, r cliRun, code int, says string) {
	t.Helper()
	if r.code != code || !strings.Contains(r.stderr, says) {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, code, says)
	}
}

// brokenPipeline writes a pipeline file with an undeclared input.
func brokenPipeline(t *testing.T) string {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "bad.hcl")
	text := "name = \"x\"\noperator \"op\" {\n  module = \"missing.wasm\"\n  inputs = [\"nope\"]\n}\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}

func TestExitCodeUsage(t *testing.T) {
	cases := map[string][]string{
		"unknown command":           {"bogus"},
		"unknown flag":              {"validate", "--bogus", "x.hcl"},
		"missing argument":          {"validate"},
		"required flag not set":     {"read", "--config", "x.hcl"},
		"unknown group subcommand":  {"savepoint", "bogus"},
		"flag value does not parse": {"read", "--config", "x.hcl", "--subject", "s", "--from", "minus"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			wantExit(t, runMain(t, "", args...), exitUsage, "error: ")
		})
	}
	r := runMain(t, "", "read", "--config", "x.hcl")
	wantExit(t, r, exitUsage, `required flag(s) "subject" not set (see wasmstream read --help)`)
}

func TestExitCodeInvalidPipeline(t *testing.T) {
	wantExit(t, runMain(t, "", "validate", brokenPipeline(t)), exitInvalidPipeline, "bad.hcl:4:")
	missing := filepath.Join(t.TempDir(), "missing.hcl")
	wantExit(t, runMain(t, "", "publish", "--config", missing, "--subject", "s"), exitInvalidPipeline, "missing.hcl")
}

// A server.url where nothing listens: publish cannot connect.
func TestExitCodeNATSUnreachable(t *testing.T) {
	path, port := examplePipeline(t)
	rewritePipeline(t, path, fmt.Sprintf("embedded_port = %d", port), fmt.Sprintf("url = \"nats://127.0.0.1:%d\"", testutil.FreePort(t)))
	wantExit(t, runMain(t, events, "publish", "--config", path, "--subject", "payments.in"), exitNATSUnreachable, "cannot connect to NATS")
}

// A checkpoint file with a byte appended fails verification; an archive
// that is not one is refused by import.
func TestExitCodeCheckpointCorrupt(t *testing.T) {
	dataDir, ms := fixtureDataDir(t)
	damageOneFile(t, checkpoint.Dir(engine.CheckpointRootIn(dataDir), ms[0].ID))
	wantExit(t, runMain(t, "", "checkpoints", "verify", "--data-dir", dataDir), exitCheckpoint, "verification failed")

	archive := filepath.Join(t.TempDir(), "garbage.tar")
	if err := os.WriteFile(archive, bytes.Repeat([]byte("not a tar "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	wantExit(t, runMain(t, "", "savepoint", "import", "--data-dir", t.TempDir(), archive), exitCheckpoint, "garbage.tar")
}

// damageOneFile appends a byte to the first state file of a checkpoint dir.
func damageOneFile(t *testing.T, dir string) {
	t.Helper()
	var victim string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && victim == "" && d.Type().IsRegular() && d.Name() != "MANIFEST.json" {
			victim = path
		}
		return err
	})
	if err != nil || victim == "" {
		t.Fatalf("%s holds no state file to damage (%v)", dir, err)
	}
	f, err := os.OpenFile(victim, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
}

// Provoking ErrInputPending through run needs a source that stalls for the
// engine's 30 s floor, too long for this suite (internal/engine/idle_test.go
// provokes both of its errors); the mapping is checked on errors wrapped as
// the engine wraps them.
func TestExitCodeTableMapping(t *testing.T) {
	cases := []struct {
		err  error
		code int
	}{
		{nil, exitOK},
		{errors.New("something else"), exitFailure},
		{fmt.Errorf("run: %w", fmt.Errorf("%w: stopped as idle, but records arrived", engine.ErrInputPending)), exitInputPending},
		{fmt.Errorf("%w 3: corrupt", engine.ErrRecovery), exitCheckpoint},
		{&exitError{code: 7}, 7},
	}
	for _, c := range cases {
		if got := exitCodeFor(c.err).code; got != c.code {
			t.Errorf("exitCodeFor(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

// The help shows every row of the table, and docs/cli.md documents it.
func TestExitCodeTableDocumented(t *testing.T) {
	help := runMain(t, "", "--help").stdout
	doc, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range append([]exitCode{failureRow}, exitCodes...) {
		line := fmt.Sprintf("  %d  %-17s %s", row.code, row.name, row.meaning)
		if !strings.Contains(help, line) {
			t.Errorf("wasmstream --help lacks %q", line)
		}
		if !strings.Contains(string(doc), fmt.Sprintf("| %d | `%s` |", row.code, row.name)) {
			t.Errorf("docs/cli.md lacks the row of exit code %d (%s)", row.code, row.name)
		}
	}
}

// The codes reach the shell: the built binary exits with them.
func TestExitCodeOfTheBinary(t *testing.T) {
	bin := buildCLI(t)
	for args, want := range map[string]int{"validate": exitUsage, "validate " + brokenPipeline(t): exitInvalidPipeline} {
		err := exec.Command(bin, strings.Fields(args)...).Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != want {
			t.Errorf("wasmstream %s: %v, want exit status %d", args, err, want)
		}
	}
}
