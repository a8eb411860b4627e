package acceptance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
)

// worker is one `wasmstream worker PIPELINE.hcl --id ID` child process.
// Its stdout and stderr (text hclog, as `wasmstream run` logs) go to one
// file, whose end a failing test prints.
type worker struct {
	id      string
	cmd     *exec.Cmd
	logPath string
	started time.Time
	ended   time.Time
	done    chan struct{} // closed once the process was waited for
	waitErr error
	// down is set when the test killed or stopped the worker: only then
	// may it have exited.
	down bool
	// frozen is set while the worker is SIGSTOPped; thawed once it was
	// SIGCONTed: it may then exit by itself, as a worker that lost its
	// membership lease may (worker.Run).
	frozen, thawed bool
}

// startWorker starts a worker. The test's cleanup SIGKILLs it if it still
// runs.
func startWorker(t testing.TB, cli, pipeline, id, logPath string) *worker {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // the child holds its own descriptor
	cmd := exec.Command(cli, "worker", pipeline, "--id", id)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = environWithout(crashpoint.Env) // a crash point of the caller's would kill the worker
	cmd.SysProcAttr = procAttr()
	w := &worker{id: id, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	if err := startChild(cmd); err != nil {
		t.Fatalf("start worker %s: %v", id, err)
	}
	w.started = time.Now()
	go func() {
		w.waitErr = cmd.Wait()
		w.ended = time.Now()
		close(w.done)
	}()
	t.Cleanup(w.killIfRunning)
	return w
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

func (w *worker) exited() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// unexpectedExit reports whether the worker ended without the test
// killing or stopping it (or freezing it: see thawed).
func (w *worker) unexpectedExit() bool { return !w.down && !w.thawed && w.exited() }

// incarnation names the worker process for reports: its id and log.
func (w *worker) incarnation() string {
	return fmt.Sprintf("%s (log %s)", w.id, filepath.Base(w.logPath))
}

// exitFailure is the failure message of a worker that ended by itself.
func (w *worker) exitFailure() string {
	return fmt.Sprintf("worker %s ended by itself (%s) %s after its start; its last line: %q; log %s (its end is printed below)",
		w.id, w.exitStatus(), w.ended.Sub(w.started).Round(time.Millisecond), w.lastLine(), w.logPath)
}

// exitStatus describes how the ended process ended.
func (w *worker) exitStatus() string {
	if w.waitErr == nil {
		return "exit 0"
	}
	return w.waitErr.Error()
}

// kill SIGKILLs the worker, the crash of its machine, and waits until it
// is reaped. It fails the test when the worker had already ended: the
// kill would test nothing.
func (w *worker) kill(t *testing.T) {
	t.Helper()
	if w.exited() {
		t.Fatal(w.exitFailure())
	}
	w.down = true
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL worker %s: %v", w.id, err)
	}
	<-w.done
	ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("worker %s did not die of SIGKILL: %s; log %s", w.id, w.exitStatus(), w.logPath)
	}
}

// terminate sends SIGTERM, the graceful stop, and reports whether it
// did: a thawed worker that already ended by itself is left alone.
func (w *worker) terminate(t *testing.T) bool {
	t.Helper()
	if w.thawed && w.exited() {
		return false
	}
	if w.exited() {
		t.Fatal(w.exitFailure())
	}
	w.down = true
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		if w.thawed && w.exited() {
			return false
		}
		t.Fatalf("SIGTERM worker %s: %v", w.id, err)
	}
	return true
}

// freeze SIGSTOPs the worker: a process that hangs (GC pause, VM
// migration, a laptop lid) with its connections open and its timers
// stopped, the zombie of design §5.6.
func (w *worker) freeze(t *testing.T) {
	t.Helper()
	if w.exited() {
		t.Fatal(w.exitFailure())
	}
	if err := w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP worker %s: %v", w.id, err)
	}
	w.frozen = true
}

// thaw SIGCONTs a frozen worker. From then on it may exit by itself.
func (w *worker) thaw(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("SIGCONT worker %s: %v", w.id, err)
	}
	w.frozen, w.thawed = false, true
}

// awaitExit0 waits until deadline for the worker to end and reports, as
// a failure message, anything but exit 0. A worker still running at the
// deadline is SIGKILLed.
func (w *worker) awaitExit0(deadline time.Time, limit time.Duration) string {
	select {
	case <-w.done:
	case <-time.After(time.Until(deadline)):
		w.dumpGoroutines()
		w.killIfRunning()
		return fmt.Sprintf("worker %s did not exit within %s of SIGTERM (SIGQUIT: its goroutines are at the end of its log; then SIGKILLed); log %s", w.id, limit, w.logPath)
	}
	if w.waitErr != nil {
		return fmt.Sprintf("worker %s ended with %s after SIGTERM, want exit 0; its last line: %q; log %s",
			w.id, w.exitStatus(), w.lastLine(), w.logPath)
	}
	return ""
}

// dumpGoroutines makes a worker that hangs print its goroutines into its
// log (Go's SIGQUIT handler) and waits briefly for it to exit.
func (w *worker) dumpGoroutines() {
	if w.exited() || w.cmd.Process.Signal(syscall.SIGQUIT) != nil {
		return
	}
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
	}
}

func (w *worker) killIfRunning() {
	if !w.exited() {
		_ = w.cmd.Process.Signal(syscall.SIGKILL)
		<-w.done
	}
}

// lines is the worker's log so far.
func (w *worker) lines() []string {
	b, err := os.ReadFile(w.logPath)
	if err != nil {
		return []string{fmt.Sprintf("(cannot read %s: %v)", w.logPath, err)}
	}
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// lastLine is the last line of the log, often the reason of an exit.
func (w *worker) lastLine() string {
	lines := w.lines()
	if len(lines) == 0 {
		return "(empty log)"
	}
	return lines[len(lines)-1]
}

// logTail is the last n lines of the log, for failure messages.
func (w *worker) logTail(n int) string {
	lines := w.lines()
	skipped := max(len(lines)-n, 0)
	var b strings.Builder
	fmt.Fprintf(&b, "--- worker %s (%s), last %d of %d lines:\n", w.id, w.logPath, len(lines)-skipped, len(lines))
	for _, l := range lines[skipped:] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
