// Package faultfs injects file-system faults for tests: a full disk, a
// failing fsync or rename, on the operations a test picks, through
// Pebble's vfs/errorfs. The live state store (state.Options.FS), checkpoint
// writes (checkpoint.Writer.FS) and the engine (engine.Options.FS) all
// take the file system it wraps.
package faultfs

import (
	"os"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// Injector fails, while armed, the operations Match accepts with Err,
// wrapped as the OS reports an errno (so errors.Is(err, syscall.ENOSPC)
// holds).
type Injector struct {
	Match func(errorfs.Op) bool
	Err   error
	armed atomic.Bool
	hits  atomic.Int64
}

// Arm starts (true) or stops (false) injecting.
func (f *Injector) Arm(on bool) { f.armed.Store(on) }

// Hits counts the operations failed so far: a test that injected nothing
// proves nothing.
func (f *Injector) Hits() int64 { return f.hits.Load() }

// Wrap returns base with the injector under it.
func (f *Injector) Wrap(base vfs.FS) vfs.FS { return errorfs.Wrap(base, f) }

// String implements errorfs.Injector.
func (f *Injector) String() string { return "faultfs" }

// MaybeError implements errorfs.Injector.
func (f *Injector) MaybeError(op errorfs.Op) error {
	if !f.armed.Load() || !f.Match(op) {
		return nil
	}
	f.hits.Add(1)
	return &os.PathError{Op: "injected", Path: op.Path, Err: f.Err}
}
