package crashtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
)

// child is one "wasmstream run" process. Its stdout and stderr go to one
// log file, which the test prints when it fails.
type child struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	started time.Time
	done    chan struct{} // closed when the process was waited for
	waitErr error
}

// childOptions are what a child is started with besides its arguments.
type childOptions struct {
	name, logPath string
	// env is added to the test's environment (without any crash point of
	// the test's own).
	env []string
	// afterExit runs once the process has ended, before waiters return.
	afterExit func()
}

// startChild starts the CLI with args. The test's cleanup kills it if it
// still runs.
func startChild(t *testing.T, o childOptions, args ...string) *child {
	t.Helper()
	f, err := os.Create(o.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(cliPath, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(environWithout(crashpoint.Env), o.env...)
	c := &child{name: o.name, cmd: cmd, logPath: o.logPath, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", o.name, err)
	}
	c.started = time.Now()
	go func() {
		c.waitErr = cmd.Wait()
		if o.afterExit != nil {
			o.afterExit()
		}
		close(c.done)
	}()
	t.Cleanup(func() {
		if !c.exited() {
			_ = c.cmd.Process.Signal(syscall.SIGKILL)
			<-c.done
		}
	})
	return c
}

func environWithout(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits for the process. It fails the test when the
// process had already ended by itself: the kill would not have tested
// anything, and the log says why it ended.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if c.exited() {
		t.Fatalf("%s ended by itself before the kill (%v)\n%s", c.name, c.waitErr, c.logTail(60))
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill %s: %v", c.name, err)
	}
	c.wait(t)
	if !c.killedBySIGKILL() {
		t.Fatalf("%s did not die by SIGKILL: %v\n%s", c.name, c.waitErr, c.logTail(60))
	}
}

// wait waits for the process to end, for at most runLimit.
func (c *child) wait(t *testing.T) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(runLimit):
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		<-c.done
		t.Fatalf("%s still ran after %s; killed\n%s", c.name, runLimit, c.logTail(60))
	}
}

// waitSuccess waits for the process to exit and fails unless it exited 0.
func (c *child) waitSuccess(t *testing.T) {
	t.Helper()
	c.wait(t)
	if c.waitErr != nil {
		t.Fatalf("%s failed: %v\n%s", c.name, c.waitErr, c.logTail(60))
	}
}

// killedBySIGKILL reports whether the ended process died of SIGKILL.
func (c *child) killedBySIGKILL() bool {
	ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// exitCode is the ended process's exit code (-1 when a signal ended it).
func (c *child) exitCode() int { return c.cmd.ProcessState.ExitCode() }

// logLine is one line of the child's output: a JSON log record, or Raw
// text (such as the CLI's final "error: ..." line).
type logLine struct {
	Raw    string
	Fields map[string]any
}

// Message is the log record's message ("" for a raw line).
func (l logLine) Message() string {
	s, _ := l.Fields["@message"].(string)
	return s
}

// Uint returns a numeric field of the log record.
func (l logLine) Uint(field string) (uint64, bool) {
	n, ok := l.Fields[field].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return uint64(v), err == nil && v >= 0
}

// lines reads the child's output so far.
func (c *child) lines() []logLine {
	b, err := os.ReadFile(c.logPath)
	if err != nil {
		return []logLine{{Raw: fmt.Sprintf("(cannot read %s: %v)", c.logPath, err)}}
	}
	var out []logLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		out = append(out, parseLogLine(sc.Text()))
	}
	return out
}

func parseLogLine(text string) logLine {
	l := logLine{Raw: text}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var fields map[string]any
	if strings.HasPrefix(text, "{") && dec.Decode(&fields) == nil {
		l.Fields = fields
	}
	return l
}

// find returns the log records with message msg.
func (c *child) find(msg string) []logLine {
	var found []logLine
	for _, l := range c.lines() {
		if l.Message() == msg {
			found = append(found, l)
		}
	}
	return found
}

// waitLog polls the child's output until a record with message msg
// appears, and returns it. It fails when the child ends first or after
// waitLimit.
func (c *child) waitLog(t *testing.T, msg string) logLine {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if found := c.find(msg); len(found) > 0 {
			return found[0]
		}
		if c.exited() {
			t.Fatalf("%s ended (%v) without logging %q\n%s", c.name, c.waitErr, msg, c.logTail(60))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %q within %s\n%s", c.name, msg, waitLimit, c.logTail(60))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// restoredCheckpoint returns the id in the "checkpoint restored" record, 0
// when the run logged "no checkpoint yet", and an error when it logged
// neither or both.
func (c *child) restoredCheckpoint() (uint64, error) {
	restored, fresh := c.find("checkpoint restored"), c.find("no checkpoint yet: starting from empty state")
	switch {
	case len(restored) == 1 && len(fresh) == 0:
		if id, ok := restored[0].Uint("checkpoint"); ok {
			return id, nil
		}
		return 0, fmt.Errorf("%s: no checkpoint id in %s", c.name, restored[0].Raw)
	case len(restored) == 0 && len(fresh) == 1:
		return 0, nil
	}
	return 0, fmt.Errorf("%s logged %d \"checkpoint restored\" and %d \"no checkpoint yet\" records", c.name, len(restored), len(fresh))
}

// checkpointsCompleted counts the child's "checkpoint completed" records.
func (c *child) checkpointsCompleted() int { return len(c.find("checkpoint completed")) }

// output is the child's whole output as text.
func (c *child) output() string {
	b, err := os.ReadFile(c.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", c.logPath, err)
	}
	return string(b)
}

// logTail is the last n lines of the child's output, for failure messages.
func (c *child) logTail(n int) string {
	lines := c.lines()
	skipped := max(len(lines)-n, 0)
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s (%s), last %d of %d lines:\n", c.name, c.logPath, len(lines)-skipped, len(lines))
	for _, l := range lines[skipped:] {
		b.WriteString(l.Raw)
		b.WriteByte('\n')
	}
	return b.String()
}
