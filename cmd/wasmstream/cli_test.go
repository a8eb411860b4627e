package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// buildCLI builds the wasmstream binary once per test binary.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "wasmstream")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// examplePipeline copies the payment-risk pipeline into a temp dir with the
// built operator, its own data dir and a free embedded port.
func examplePipeline(t *testing.T) (path string, port int) {
	t.Helper()
	root := testutil.ModuleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "examples", "payment-risk", "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	port = testutil.FreePort(t)
	text := strings.Replace(string(src), `"operator/risk.wasm"`, fmt.Sprintf("%q", testutil.GoGuest(t, "./examples/payment-risk/operator")), 1)
	text += fmt.Sprintf("\nserver {\n  embedded_port = %d\n}\n", port)
	path = filepath.Join(dir, "pipeline.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, port
}

func run(t *testing.T, bin string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("wasmstream %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

const events = `{"account":"acct-47","event":"evt-47","cents":1200}
{"account":"acct-47","event":"evt-48","cents":900}
{"account":"acct-47","event":"evt-48","cents":900}
`

// The README's flow through the real binary: validate, publish before the
// first run, run until SIGTERM (a graceful stop exits 0 after committing),
// read the outputs.
func TestCLIFlowWithGracefulStop(t *testing.T) {
	bin := buildCLI(t)
	cfg, _ := examplePipeline(t)
	if out := run(t, bin, "", "validate", cfg); !strings.Contains(out, `pipeline "payment-risk" is valid`) {
		t.Fatalf("validate: %s", out)
	}
	if out := run(t, bin, events, "publish", "--config", cfg, "--subject", "payments.in"); !strings.Contains(out, "published 3 message(s)") {
		t.Fatalf("publish: %s", out)
	}

	logs := &lockedBuffer{}
	proc := exec.Command(bin, "run", cfg, "--log-format", "json")
	proc.Stdout, proc.Stderr = logs, logs
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, func() bool { return strings.Contains(logs.String(), `"pipeline running"`) })
	// While it runs, read talks to its embedded server.
	waitFor(t, 60*time.Second, func() bool {
		return strings.Count(run(t, bin, "", "read", "--config", cfg, "--subject", "risk.totals"), "\n") == 2
	})
	if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(); err != nil {
		t.Fatalf("run did not stop cleanly on SIGTERM: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), `"processed":3`) {
		t.Fatalf("final log lacks the totals:\n%s", logs.String())
	}

	out := run(t, bin, "", "read", "--config", cfg, "--subject", "risk.totals")
	want := `1 risk.totals {"account":"acct-47","event":"evt-47","cents":1200,"total":1200}
2 risk.totals {"account":"acct-47","event":"evt-48","cents":900,"total":2100}
`
	if out != want {
		t.Fatalf("read:\n%s\nwant:\n%s", out, want)
	}
}

// SIGHUP stops a run as gracefully as SIGTERM: a final checkpoint, exit 0
// (it used to kill the process without one).
func TestRunStopsGracefullyOnSIGHUP(t *testing.T) {
	bin := buildCLI(t)
	cfg, _ := examplePipeline(t)
	run(t, bin, events, "publish", "--config", cfg, "--subject", "payments.in")
	logs := &lockedBuffer{}
	proc := exec.Command(bin, "run", cfg, "--log-format", "json")
	proc.Stdout, proc.Stderr = logs, logs
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, func() bool { return strings.Contains(logs.String(), `"pipeline running"`) })
	if err := proc.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(); err != nil {
		t.Fatalf("run did not stop cleanly on SIGHUP: %v\n%s", err, logs.String())
	}
	for _, want := range []string{`"stopping: final checkpoint"`, `"checkpoint completed"`} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("the log lacks %s:\n%s", want, logs.String())
		}
	}
}

func TestValidateReportsPositions(t *testing.T) {
	bin := buildCLI(t)
	bad := filepath.Join(t.TempDir(), "bad.hcl")
	if err := os.WriteFile(bad, []byte("name = \"x\"\noperator \"op\" {\n  module = \"missing.wasm\"\n  inputs = [\"nope\"]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "validate", bad)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("validate accepted a broken file:\n%s", out)
	}
	if !strings.Contains(string(out), "bad.hcl:4:") || !strings.Contains(string(out), "nope") {
		t.Fatalf("error lacks file:line:column or the object:\n%s", out)
	}
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutines of os/exec.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
