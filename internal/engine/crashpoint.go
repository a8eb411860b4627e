package engine

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// CrashPointEnv names the environment variable that makes the process kill
// itself with SIGKILL at a named point of the checkpoint protocol. It exists
// for crash tests: "POINT" dies the first time POINT is reached, "POINT:N"
// the N-th time. Points: CrashPoints.
const CrashPointEnv = "WASMSTREAM_CRASH_POINT"

// CrashPoints lists the named points, in protocol order.
var CrashPoints = []string{
	"tasks-snapshotted",        // every task flushed its snapshot; no Pebble checkpoint yet
	"state-copied",             // Pebble checkpoint in the temp dir; no manifest
	"manifest-temp",            // the manifest's temp file durable, not renamed
	"manifest-written",         // manifest in place; temp dir not renamed
	"renamed",                  // checkpoint dir renamed; root not fsynced
	"manifest-before-announce", // checkpoint complete on disk; not logged, retention not run
	"after-retain",             // older checkpoints removed
}

// OutboxCrashPoints are the named points of a transactional sink's
// publication, reached only by pipelines with one.
var OutboxCrashPoints = []string{
	"outbox-batch",     // one atomic batch of a checkpoint's outputs published (each batch)
	"outbox-published", // every staged output published; not yet deleted from the outbox
}

// crashPoint kills the process at point when CrashPointEnv asks for it.
type crashPoint struct {
	point string
	at    int
	seen  map[string]int
}

func newCrashPoint() *crashPoint {
	spec := os.Getenv(CrashPointEnv)
	if spec == "" {
		return nil
	}
	point, n, _ := strings.Cut(spec, ":")
	at, err := strconv.Atoi(n)
	if err != nil || at < 1 {
		at = 1
	}
	return &crashPoint{point: point, at: at, seen: map[string]int{}}
}

// reach is called by one goroutine at a time: the coordinator's, or Run's
// before the coordinator starts.
func (c *crashPoint) reach(point string) {
	if c == nil || point != c.point {
		return
	}
	c.seen[point]++
	if c.seen[point] == c.at {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
