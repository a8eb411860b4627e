package host

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// closeIdleShared closes every runtime and module no Runtime or Module
// uses: what a new process starts without.
func closeIdleShared(ctx context.Context) {
	pool.mu.Lock()
	evicted := pool.idle
	pool.idle = nil
	var modules []*sharedModule
	for _, sr := range pool.byConfig {
		modules = append(modules, sr.idleModules...)
		for _, m := range sr.idleModules {
			delete(sr.modules, m.key)
		}
		sr.idleModules = nil
	}
	for _, sr := range evicted {
		delete(pool.byConfig, sr.cfg)
	}
	pool.mu.Unlock()
	for _, m := range modules {
		_ = m.compiled.Close(ctx)
	}
	for _, sr := range evicted {
		_ = sr.close(ctx)
	}
}

// variant is hostile.wasm with a custom section called name (under 126
// bytes) appended: a valid module with other bytes, so another version.
func variant(t *testing.T, name string) []byte {
	t.Helper()
	wasm := append(readFixture(t, "hostile.wasm"), 0, byte(2+len(name)), byte(len(name)))
	return append(append(wasm, name...), 0)
}

// A module compiled once is compiled once for every Runtime of the same
// configuration, and again for another configuration.
func TestCompileOnceAcrossRuntimes(t *testing.T) {
	wasm := variant(t, "once")
	ctx := context.Background()
	m1, err := newTestRuntime(t, EngineCompiler, 64).Compile(ctx, "a", wasm)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := newTestRuntime(t, EngineCompiler, 64).Compile(ctx, "b", wasm)
	if err != nil {
		t.Fatal(err)
	}
	if m1.compiled != m2.compiled {
		t.Fatal("the same module was compiled twice for runtimes of one configuration")
	}
	if m2.Name() != "b" {
		t.Fatalf("name %q, want the second operator's", m2.Name())
	}
	rtDefault, err := NewRuntime(ctx, RuntimeConfig{MemoryLimitPages: 64}) // the compiler by default
	if err != nil {
		t.Fatal(err)
	}
	defer rtDefault.Close(ctx)
	if m, err := rtDefault.Compile(ctx, "d", wasm); err != nil || m.compiled != m1.compiled {
		t.Fatalf("the default engine did not share the compiler's module (%v)", err)
	}
	m3, err := newTestRuntime(t, EngineCompiler, 65).Compile(ctx, "c", wasm)
	if err != nil {
		t.Fatal(err)
	}
	if m3.compiled == m1.compiled {
		t.Fatal("a runtime with another memory limit reused the module compiled under the first")
	}
}

// A restart closes the module and runtime before it compiles again: the
// compiled module must survive that, and be dropped once more modules
// than maxIdleModules went unused after it.
func TestIdleModuleKeptThenEvicted(t *testing.T) {
	ctx := context.Background()
	compileClosed := func(wasm []byte) *sharedModule {
		rt := newTestRuntime(t, EngineCompiler, 70)
		m, err := rt.Compile(ctx, "op", wasm)
		if err != nil {
			t.Fatal(err)
		}
		sm := m.shared
		_ = m.Close(ctx)
		_ = rt.Close(ctx)
		return sm
	}
	first := compileClosed(variant(t, "idle"))
	if again := compileClosed(variant(t, "idle")); again != first {
		t.Fatal("a restart compiled the module again")
	}
	for i := range maxIdleModules {
		compileClosed(variant(t, "other"+string(rune('a'+i))))
	}
	if again := compileClosed(variant(t, "idle")); again == first {
		t.Fatalf("the module was still kept after %d others went unused", maxIdleModules)
	}
}

// Closing a Runtime closes the instances made through it, not those of
// another Runtime sharing the wazero runtime, and a trap in one instance
// leaves the other working.
func TestRuntimeCloseAndFaultsStayWithTheirRuntime(t *testing.T) {
	ctx := context.Background()
	wasm := variant(t, "isolation")
	rt1, rt2 := newTestRuntime(t, EngineCompiler, 64), newTestRuntime(t, EngineCompiler, 64)
	m1, m2 := mustCompile(t, rt1, wasm), mustCompile(t, rt2, wasm)
	trapping, err := hostileInstance(t, m1, 20, newMemState(), nil) // traps on record 2
	if err != nil {
		t.Fatal(err)
	}
	st := newMemState()
	healthy, err := hostileInstance(t, m2, 0, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trapping.Process(ctx, records("a", "b", "c")); !errors.Is(err, ErrTrap) {
		t.Fatalf("mode 20: %v, want a trap", err)
	}
	if _, err := healthy.Process(ctx, records("a")); err != nil || counter(t, st, "a") != 1 {
		t.Fatalf("after another runtime's instance trapped: %v, count %d", err, counter(t, st, "a"))
	}
	if n := len(rt1.guests.open); n != 0 {
		t.Fatalf("%d closed instances still held by their Runtime", n)
	}
	kept, err := hostileInstance(t, m1, 0, newMemState(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = rt1.Close(ctx)
	if !kept.guest.IsClosed() {
		t.Fatal("Runtime.Close left an instance made through it open")
	}
	if _, err := hostileInstance(t, m1, 0, newMemState(), nil); !errors.Is(err, ErrInit) || !errors.Is(err, errRuntimeClosed) {
		t.Fatalf("instantiate after Runtime.Close: %v, want ErrInit wrapping errRuntimeClosed", err)
	}
	if _, err := healthy.Process(ctx, records("a")); err != nil || counter(t, st, "a") != 2 {
		t.Fatalf("after another Runtime closed: %v, count %d", err, counter(t, st, "a"))
	}
	_ = m2.Close(ctx)
	if _, err := hostileInstance(t, m2, 0, newMemState(), nil); !errors.Is(err, errModuleClosed) {
		t.Fatalf("instantiate after Module.Close: %v, want errModuleClosed", err)
	}
}

// A module that fails validation is not shared: each operator compiling
// it gets the error, naming that operator.
func TestFailedCompileIsNotShared(t *testing.T) {
	ctx := context.Background()
	wasm := readFixture(t, "version2.wasm")
	for _, op := range []string{"first", "second"} {
		_, err := newTestRuntime(t, EngineCompiler, 64).Compile(ctx, op, wasm)
		if !errors.Is(err, ErrABIVersion) || !strings.Contains(err.Error(), `"`+op+`"`) {
			t.Fatalf("operator %s: %v, want ErrABIVersion naming it", op, err)
		}
	}
}

// Runtimes compiling one module at the same time compile it once.
func TestConcurrentCompileSharesOne(t *testing.T) {
	ctx := context.Background()
	wasm := variant(t, "concurrent")
	const n = 4
	mods := make([]*Module, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		rt := newTestRuntime(t, EngineCompiler, 64)
		wg.Add(1)
		go func() {
			defer wg.Done()
			mods[i], errs[i] = rt.Compile(ctx, "op", wasm)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if mods[i].compiled != mods[0].compiled {
			t.Fatalf("compile %d made its own compiled module", i)
		}
	}
}

// Runtimes unused beyond the maxIdleRuntimes most recent are closed.
func TestIdleRuntimesEvicted(t *testing.T) {
	ctx := context.Background()
	open := func(pages uint32) *sharedRuntime {
		rt, err := NewRuntime(ctx, RuntimeConfig{MemoryLimitPages: pages})
		if err != nil {
			t.Fatal(err)
		}
		_ = rt.Close(ctx)
		return rt.shared
	}
	first := open(100)
	for i := range maxIdleRuntimes - 1 {
		open(101 + uint32(i))
	}
	if open(100) != first {
		t.Fatal("an unused runtime was closed within the most recent maxIdleRuntimes")
	}
	for i := range maxIdleRuntimes {
		open(200 + uint32(i))
	}
	if open(100) == first {
		t.Fatalf("an unused runtime was still kept after %d others", maxIdleRuntimes)
	}
}

func mustCompile(t *testing.T, rt *Runtime, wasm []byte) *Module {
	t.Helper()
	m, err := rt.Compile(context.Background(), "hostile", wasm)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
