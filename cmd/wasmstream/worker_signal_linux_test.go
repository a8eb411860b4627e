package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A worker stopped while it still reads its pipeline file does not die of
// the signal: a cluster test stopped a worker it had just started and saw
// it end "by signal: terminated" with an empty log, where a stopped worker
// exits 0. The file is a FIFO, so the worker waits in open(2) until the
// test writes it, after the SIGTERM; a FIFO is no pipeline file, so the
// worker then exits with the config's error, as a process that handled the
// signal (without the handler it is killed in open(2)).
func TestWorkerStoppedWhileLoadingIsNotKilled(t *testing.T) {
	bin := buildCLI(t)
	cfg, _ := examplePipeline(t)
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	proc := exec.Command(bin, "worker", fifo, "--id", "w0")
	proc.Stdout, proc.Stderr = &out, &out
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() bool { return waitsForAFIFOWriter(proc.Process.Pid) })
	if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The worker closes the FIFO as soon as it sees it is no regular file,
	// possibly before the write: a broken pipe is its doing, not a failure.
	if err := os.WriteFile(fifo, text, 0o600); err != nil && !errors.Is(err, syscall.EPIPE) {
		t.Fatal(err)
	}
	err = proc.Wait()
	if st := proc.ProcessState; !st.Exited() || st.ExitCode() != 3 || !strings.Contains(out.String(), "not a regular file") {
		t.Fatalf("worker stopped while loading its pipeline: %v, want exit 3 (the FIFO refused), not death by the signal\n%s", err, out.String())
	}
}

// waitsForAFIFOWriter reports whether a thread of process pid waits in
// open(2) of a FIFO for its writer.
func waitsForAFIFOWriter(pid int) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, p := range tasks {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "wait_for_partner") {
			return true
		}
	}
	return false
}
