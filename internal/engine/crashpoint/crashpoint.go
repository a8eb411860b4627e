// Package crashpoint kills the process at named points of the checkpoint
// protocol when the environment asks for it. It exists for crash tests
// (internal/crashtest): "POINT" dies the first time POINT is reached,
// "POINT:N" the N-th time.
package crashpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Env names the environment variable that selects the point.
const Env = "WASMSTREAM_CRASH_POINT"

// Checkpoint lists the named points of a checkpoint, in protocol order.
var Checkpoint = []string{
	"tasks-snapshotted",        // every task flushed its snapshot; no Pebble checkpoint yet
	"state-copied",             // Pebble checkpoint in the temp dir; no manifest
	"manifest-temp",            // the manifest's temp file durable, not renamed
	"manifest-written",         // manifest in place; temp dir not renamed
	"renamed",                  // checkpoint dir renamed; root not fsynced
	"manifest-before-announce", // checkpoint complete on disk; not logged, retention not run
	"after-retain",             // older checkpoints removed
}

// Outbox lists the named points of a transactional sink's publication,
// reached only by pipelines with one.
var Outbox = []string{
	"outbox-batch",     // one atomic batch of a checkpoint's outputs published (each batch)
	"outbox-published", // every staged output published; not yet deleted from the outbox
}

// Points kills the process at the point Env names. A nil *Points (Env
// unset) does nothing.
type Points struct {
	point string
	at    int
	mu    sync.Mutex
	seen  map[string]int
}

// FromEnv returns the points Env asks for, or nil.
func FromEnv() *Points {
	spec := os.Getenv(Env)
	if spec == "" {
		return nil
	}
	point, n, _ := strings.Cut(spec, ":")
	at, err := strconv.Atoi(n)
	if err != nil || at < 1 {
		at = 1
	}
	return &Points{point: point, at: at, seen: map[string]int{}}
}

// Reach may be called from several goroutines: the coordinator's and the
// publisher's of a transactional sink.
func (c *Points) Reach(point string) {
	if c == nil || point != c.point {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[point]++
	if c.seen[point] == c.at {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
