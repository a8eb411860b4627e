package host

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/tetratelabs/wazero"
)

// Compiling a module costs wazero a decode and a validation of every
// function body even when its compilation cache holds the native code:
// for a 3.6 MB Go guest 60–120 ms (0.5–0.9 s under the race detector), eight
// times an instance. A process that starts the same operator again (a
// cluster worker restarting its tasks at a new assignment, an upgrade
// reopening the pipeline, the checks of validate and exec) paid it every
// time. So every Runtime of the process with the same effective
// configuration shares one wazero runtime and the modules compiled and
// validated in it, which are kept for a while after their last user
// closed them (see maxIdleRuntimes). Instances stay separate: sharing
// the runtime shares no guest memory, and each Runtime closes the
// instances made through it.

// How many unused runtimes and compiled modules are kept: enough for a
// pipeline's operators to be restarted from memory, few enough that a
// process going through many data dirs (tests) or module versions
// (upgrades) holds no more than a few modules' code (~14 MiB each for a
// Go guest).
const (
	maxIdleRuntimes = 4 // per process
	maxIdleModules  = 2 // per runtime
)

// pool is the process's shared runtimes, by effective configuration.
var pool = runtimePool{byConfig: map[RuntimeConfig]*sharedRuntime{}}

// runtimePool guards every field of its runtimes and their modules.
type runtimePool struct {
	mu       sync.Mutex
	byConfig map[RuntimeConfig]*sharedRuntime
	idle     []*sharedRuntime // no users; least recently used first
}

// sharedRuntime is a wazero runtime with the host's imports, used by the
// Runtimes of one configuration.
type sharedRuntime struct {
	cfg         RuntimeConfig
	rt          wazero.Runtime
	closeCache  func(context.Context) error
	users       int // open Runtimes
	modules     map[string]*sharedModule
	idleModules []*sharedModule // no users; least recently used first
}

// sharedModule is a module compiled and validated in a sharedRuntime,
// by the SHA-256 of its bytes. ready is closed once compiled or err is set.
type sharedModule struct {
	key      string
	ready    chan struct{}
	compiled wazero.CompiledModule
	err      error
	users    int // open Modules
}

// acquireRuntime returns the shared runtime of cfg (effective), making
// it when the process has none.
func acquireRuntime(ctx context.Context, cfg RuntimeConfig) (*sharedRuntime, error) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if sr := pool.byConfig[cfg]; sr != nil {
		if sr.users == 0 {
			pool.idle = without(pool.idle, sr)
		}
		sr.users++
		return sr, nil
	}
	sr, err := newSharedRuntime(ctx, cfg)
	if err != nil {
		return nil, err
	}
	sr.users = 1
	pool.byConfig[cfg] = sr
	return sr, nil
}

// releaseRuntime drops a user of sr; a runtime unused beyond the
// maxIdleRuntimes most recently used ones is closed.
func releaseRuntime(ctx context.Context, sr *sharedRuntime) {
	pool.mu.Lock()
	sr.users--
	var evicted []*sharedRuntime
	if sr.users == 0 {
		pool.idle = append(pool.idle, sr)
		for len(pool.idle) > maxIdleRuntimes {
			evicted = append(evicted, pool.idle[0])
			delete(pool.byConfig, pool.idle[0].cfg)
			pool.idle = pool.idle[1:]
		}
	}
	pool.mu.Unlock()
	for _, e := range evicted {
		_ = e.close(ctx)
	}
}

func newSharedRuntime(ctx context.Context, cfg RuntimeConfig) (*sharedRuntime, error) {
	rc, err := runtimeConfig(cfg)
	if err != nil {
		return nil, err
	}
	sr := &sharedRuntime{cfg: cfg, modules: map[string]*sharedModule{}, closeCache: func(context.Context) error { return nil }}
	if cfg.CacheDir != "" {
		// Private (0700), as wazero makes its own entries: compiled code
		// that another local user could replace would run as the pipeline.
		if err := os.MkdirAll(cfg.CacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("compilation cache %s: %w", cfg.CacheDir, err)
		}
		cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("compilation cache %s: %w", cfg.CacheDir, err)
		}
		rc, sr.closeCache = rc.WithCompilationCache(cache), cache.Close
	}
	sr.rt = wazero.NewRuntimeWithConfig(ctx, rc)
	if err := instantiateImports(ctx, sr.rt); err != nil {
		_ = sr.close(ctx)
		return nil, err
	}
	return sr, nil
}

// close releases the runtime, its compiled modules and its cache handle.
func (sr *sharedRuntime) close(ctx context.Context) error {
	err := sr.rt.Close(ctx)
	if cerr := sr.closeCache(ctx); err == nil {
		err = cerr
	}
	return err
}

// acquireModule returns the entry of key and whether the caller must
// compile it (and then report with compiled); otherwise it waits until
// whoever compiles it is done.
func (sr *sharedRuntime) acquireModule(key string) (*sharedModule, bool) {
	pool.mu.Lock()
	sm := sr.modules[key]
	if sm == nil {
		sm = &sharedModule{key: key, ready: make(chan struct{}), users: 1}
		sr.modules[key] = sm
		pool.mu.Unlock()
		return sm, true
	}
	if sm.users == 0 {
		sr.idleModules = without(sr.idleModules, sm)
	}
	sm.users++
	pool.mu.Unlock()
	<-sm.ready
	return sm, false
}

// compiled records the outcome of the compilation acquireModule asked
// for. A module that failed is forgotten: its users compile it again.
func (sr *sharedRuntime) compiled(sm *sharedModule, c wazero.CompiledModule, err error) {
	pool.mu.Lock()
	sm.compiled, sm.err = c, err
	if err != nil && sr.modules[sm.key] == sm {
		delete(sr.modules, sm.key)
	}
	pool.mu.Unlock()
	close(sm.ready)
}

// releaseModule drops a user of sm; a module unused beyond the
// maxIdleModules most recently used ones of its runtime is closed.
func (sr *sharedRuntime) releaseModule(ctx context.Context, sm *sharedModule) {
	pool.mu.Lock()
	sm.users--
	var evicted []*sharedModule
	if sm.users == 0 && sm.err == nil && sr.modules[sm.key] == sm {
		sr.idleModules = append(sr.idleModules, sm)
		for len(sr.idleModules) > maxIdleModules {
			evicted = append(evicted, sr.idleModules[0])
			delete(sr.modules, sr.idleModules[0].key)
			sr.idleModules = sr.idleModules[1:]
		}
	}
	pool.mu.Unlock()
	for _, e := range evicted {
		_ = e.compiled.Close(ctx)
	}
}

// without returns s without x, keeping the order.
func without[T comparable](s []T, x T) []T {
	for i, v := range s {
		if v == x {
			return append(s[:i:i], s[i+1:]...)
		}
	}
	return s
}
