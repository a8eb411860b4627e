package clustertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// createStream creates an R3 file stream "<name>" on subjects "<name>.>".
func createStream(t *testing.T, js jetstream.JetStream, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{name + ".>"}, Replicas: 3}); err != nil {
		t.Fatalf("create stream %s: %v", name, err)
	}
}

// publishRetrying publishes until the cluster accepts it: through an
// election that is 4–9 s (design §4).
func publishRetrying(t *testing.T, js jetstream.JetStream, subject string, data []byte) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	for time.Since(start) < 30*time.Second {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err = js.Publish(ctx, subject, data)
		cancel()
		if err == nil {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("publish on %s: not accepted within 30 s: %v", subject, err)
	return 0
}

// processState is the state letter of /proc/<pid>/stat (R, S, T, Z…), or
// "gone" when there is no such process.
func processState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "gone"
		}
		return err.Error()
	}
	// The command name is in parentheses and may contain spaces.
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	if f := strings.Fields(rest); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// dead reports whether pid is gone or a zombie nobody reaped yet (in a
// container, PID 1 may not reap orphans).
func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	return processState(pid) == "Z" || processState(pid) == "gone"
}

// waitFor polls cond every 50 ms for at most limit.
func waitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func requireLinux(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc (Linux)")
	}
}
