package main

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The payment-risk example through the binary: acct-47's total reads 2100
// (8 bytes little-endian, printed in hex) live from the running pipeline
// and, after a graceful stop, from its final checkpoint.
func TestStateGetLiveAndFromCheckpointCLI(t *testing.T) {
	bin := buildCLI(t)
	cfg, _ := examplePipeline(t)
	run(t, bin, events, "publish", "--config", cfg, "--subject", "payments.in")
	logs := &lockedBuffer{}
	proc := exec.Command(bin, "run", cfg, "--log-format", "json")
	proc.Stdout, proc.Stderr = logs, logs
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = proc.Process.Kill(); _ = proc.Wait() }()
	// Not before the run's embedded server listens: a read would start a
	// temporary server of its own on the same port (CI saw "address
	// already in use").
	waitFor(t, 60*time.Second, func() bool { return strings.Contains(logs.String(), `"pipeline running"`) })
	waitFor(t, 60*time.Second, func() bool {
		return strings.Count(run(t, bin, "", "read", "--config", cfg, "--subject", "risk.totals"), "\n") == 2
	})
	totalRow := []string{"acct-47", "total", "hex", "3408000000000000", "never"}
	live := run(t, bin, "", "state", "get", cfg, "--operator", "risk", "--key", "acct-47", "--live")
	if !hasRow(live, totalRow...) || !strings.Contains(live, "live: pipeline \"payment-risk\"") {
		t.Errorf("state get --live lacks %q:\n%s", totalRow, live)
	}
	if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(); err != nil {
		t.Fatalf("run did not stop cleanly: %v\n%s", err, logs.String())
	}
	stored := run(t, bin, "", "state", "get", cfg, "--operator", "risk", "--key", "acct-47")
	if !hasRow(stored, totalRow...) || !strings.Contains(stored, "checkpoint ") {
		t.Errorf("state get from the checkpoint lacks %q:\n%s", totalRow, stored)
	}
	cmd := exec.Command(bin, "state", "get", cfg, "--operator", "risk", "--key", "acct-404")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `"acct-404"`) {
		t.Errorf("state get of a missing key: %v, want a non-zero exit naming the key:\n%s", err, out)
	}
}
