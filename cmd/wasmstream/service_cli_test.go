package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// namedPipelineFile writes the payment-risk pipeline as name on the server
// at url, with streams and subjects of its own so that several share it.
func namedPipelineFile(t *testing.T, url, name, module string) string {
	t.Helper()
	upper := strings.ToUpper(name)
	text := fmt.Sprintf(`name     = %[1]q
data_dir = %[2]q

server {
  url = %[3]q
}

stream "%[4]s_IN" {
  subjects = ["%[1]s.in"]
}

stream "%[4]s_OUT" {
  subjects = ["%[1]s.out"]
}

source "in" {
  stream  = "%[4]s_IN"
  subject = "%[1]s.in"
}

operator "risk" {
  module  = %[5]q
  inputs  = ["in"]
  key {
    json_field = "account"
  }
  outputs = { out = "out" }
}

sink "out" {
  subject = "%[1]s.out"
}
`, name, filepath.Join(testutil.PrivateTempDir(t), "data"), url, upper, module)
	path := filepath.Join(t.TempDir(), name+".hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runProcess is a wasmstream run in its own process.
type runProcess struct {
	cmd  *exec.Cmd
	logs *lockedBuffer
}

func startRun(t *testing.T, bin, file string) *runProcess {
	t.Helper()
	p := &runProcess{cmd: exec.Command(bin, "run", file, "--log-format", "json"), logs: &lockedBuffer{}}
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	waitFor(t, time.Minute, func() bool { return strings.Contains(p.logs.String(), `"pipeline running"`) })
	return p
}

// statusFields are the status document's fields (docs/cli.md): decoded
// into a map, so that a renamed one fails.
var statusFields = []string{"pipeline", "state", "version", "host", "pid", "data_dir", "started", "records_in", "processed",
	"records_per_second", "rate_window_seconds", "dead_letters", "checkpoints_completed", "last_checkpoint", "sources", "operators"}

// statusJSON is `wasmstream status FILE --json`.
func statusJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	doc := jsonDoc(t, "", "status", file, "--json")
	for _, k := range statusFields {
		if _, ok := doc[k]; !ok {
			t.Fatalf("status --json lacks %q:\n%v", k, doc)
		}
	}
	return doc
}

func listedPipelines(t *testing.T, url string) []string {
	t.Helper()
	list, _ := jsonDoc(t, "", "pipelines", "--server", url, "--json")["pipelines"].([]any)
	var names []string
	for _, st := range list {
		names = append(names, fmt.Sprint(st.(map[string]any)["pipeline"]))
	}
	return names
}

// TestPipelinesStatusStop: two wasmstream run processes on one server;
// pipelines lists both, status answers for each, stop ends one (exit 0
// after a final checkpoint) and the other goes on processing new records.
func TestPipelinesStatusStop(t *testing.T) {
	bin, url := buildCLI(t), natsServer(t)
	module := testutil.GoGuest(t, "./examples/payment-risk/operator")
	alphaFile, betaFile := namedPipelineFile(t, url, "alpha", module), namedPipelineFile(t, url, "beta", module)
	alpha, beta := startRun(t, bin, alphaFile), startRun(t, bin, betaFile)
	waitFor(t, time.Minute, func() bool { return fmt.Sprint(listedPipelines(t, url)) == "[alpha beta]" })
	if out := mustExecCLI(t, "pipelines", "--server", url); !strings.Contains(out, "PIPELINE") || !strings.Contains(out, "alpha") || !strings.Contains(out, "beta") {
		t.Fatalf("pipelines table:\n%s", out)
	}
	mustExecCLI(t, "publish", "--config", betaFile, "--subject", "beta.in", writeLines(t, events))
	waitFor(t, time.Minute, func() bool { return statusJSON(t, betaFile)["processed"] == 3.0 })
	wantFields(t, "alpha's status", statusJSON(t, alphaFile), map[string]any{"pipeline": "alpha", "state": "running", "pid": float64(alpha.cmd.Process.Pid)})
	if out := mustExecCLI(t, "status", betaFile); !strings.Contains(out, "pipeline beta: running") || !strings.Contains(out, "3 in, 3 processed") {
		t.Fatalf("beta's status:\n%s", out)
	}

	out := mustExecCLI(t, "stop", alphaFile)
	if !strings.Contains(out, "pipeline alpha stopped: final checkpoint") {
		t.Fatalf("stop alpha:\n%s", out)
	}
	if err := alpha.cmd.Wait(); err != nil {
		t.Fatalf("alpha did not exit 0 after the stop: %v\n%s", err, alpha.logs.String())
	}
	for _, want := range []string{`"stop requested over NATS"`, `"stopping: final checkpoint"`, `"checkpoint completed"`} {
		if !strings.Contains(alpha.logs.String(), want) {
			t.Fatalf("alpha's log lacks %s:\n%s", want, alpha.logs.String())
		}
	}
	var stderr bytes.Buffer
	if code := runCLI([]string{"stop", alphaFile}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != exitNotRunning {
		t.Fatalf("stop of a stopped pipeline: exit %d, want %d (not_running)\n%s", code, exitNotRunning, stderr.String())
	}

	mustExecCLI(t, "publish", "--config", betaFile, "--subject", "beta.in", writeLines(t, `{"account":"acct-9","event":"evt-9","cents":5}`+"\n"))
	waitFor(t, time.Minute, func() bool { return statusJSON(t, betaFile)["processed"] == 4.0 })
	if got := fmt.Sprint(listedPipelines(t, url)); got != "[beta]" {
		t.Fatalf("pipelines after alpha's stop: %s, want [beta]", got)
	}
	stopped := jsonDoc(t, "", "stop", "beta", "--server", url, "--json")
	wantFields(t, "stop --json", stopped, map[string]any{"pipeline": "beta", "stopped": true})
	if final, _ := stopped["final_checkpoint"].(map[string]any); final["id"] == nil {
		t.Fatalf("stop --json names no final checkpoint: %v", stopped)
	}
	if err := beta.cmd.Wait(); err != nil {
		t.Fatalf("beta did not exit 0 after its stop: %v\n%s", err, beta.logs.String())
	}
}

func writeLines(t *testing.T, lines string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A server where nothing runs lists nothing, and says so; asked without a
// server the commands say how to name one.
func TestPipelinesOnAnEmptyServer(t *testing.T) {
	url := natsServer(t)
	if out := mustExecCLI(t, "pipelines", "--server", url); !strings.Contains(out, "no wasmstream run answers on this server") {
		t.Fatalf("pipelines on an empty server:\n%s", out)
	}
	if out := mustExecCLI(t, "pipelines", "--server", url, "--json"); strings.TrimSpace(out) != "{\n  \"pipelines\": []\n}" {
		t.Fatalf("pipelines --json on an empty server:\n%s", out)
	}
	if _, err := execCLI(t, "pipelines"); err == nil || !strings.Contains(err.Error(), "--server URL") {
		t.Fatalf("pipelines without a server: %v", err)
	}
	var stderr bytes.Buffer
	if code := runCLI([]string{"stop", "nothing", "--server", url}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != exitNotRunning || !strings.Contains(stderr.String(), `"nothing"`) {
		t.Fatalf("stop of a pipeline that does not run: exit %d, want %d\n%s", code, exitNotRunning, stderr.String())
	}
}
