package conformance

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

var rewrite = flag.Bool("rewrite", false,
	"write what the Go reference operators produce on the compiler engine into the case files as their expectations (review the diff before committing)")

// TestConformance runs every case for every language on both engines and
// requires the result the case file expects, byte for byte.
func TestConformance(t *testing.T) {
	cases := loadTestCases(t)
	for _, lang := range Languages {
		t.Run(lang, func(t *testing.T) {
			wasm := languageModules(t, lang)
			for _, engine := range Engines {
				t.Run(string(engine), func(t *testing.T) {
					s := newSuite(t, engine, wasm)
					for _, c := range cases {
						t.Run(c.Name, func(t *testing.T) { s.check(t, lang, c) })
					}
				})
			}
		})
	}
}

// The payment-risk example implements counter's semantics: it must give
// byte-identical results on every counter case.
func TestPaymentRiskMatchesCounter(t *testing.T) {
	wasm := map[string][]byte{"counter": testutil.GoGuestBytes(t, "./examples/payment-risk/operator")}
	s := newSuite(t, host.EngineCompiler, wasm)
	for _, c := range loadTestCases(t) {
		if c.Operator == "counter" {
			t.Run(c.Name, func(t *testing.T) { s.check(t, "payment-risk", c) })
		}
	}
}

// The suite must be able to fail: the failer module run on dedup's cases,
// counter's module run on failer's cases, and an upgrade to a module that
// migrates nothing (ledger1 again) give other results, and Compare must say so.
func TestSuiteDetectsAWrongImplementation(t *testing.T) {
	ledger1 := testutil.GoGuestBytes(t, GoOperatorPackage("ledger1"))
	wasm := map[string][]byte{
		"dedup":   testutil.GoGuestBytes(t, GoOperatorPackage("failer")),
		"failer":  testutil.GoGuestBytes(t, GoOperatorPackage("dedup")),
		"ledger1": ledger1,
		"ledger2": ledger1,
	}
	s := newSuite(t, host.EngineCompiler, wasm)
	checked := 0
	for _, c := range loadTestCases(t) {
		mod, next := s.mods[c.Operator], (*host.Module)(nil)
		if c.Upgrade != nil {
			next = s.mods[c.Upgrade.Operator]
		}
		if mod == nil || c.Expect == nil {
			continue
		}
		got, err := (&Runner{Store: s.store}).RunUpgrade(context.Background(), mod, next, c)
		if err == nil && len(Compare(c.Expect, got)) == 0 {
			t.Errorf("%s: the wrong operator passed the case", c.Name)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no dedup or failer case with an expectation")
	}
}

func loadTestCases(t *testing.T) []*Case {
	t.Helper()
	cases, err := LoadCases("cases")
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// languageModules returns lang's operator modules by operator name. Go's are
// built here; the others must have been built by their script: a missing
// one fails under CI and skips otherwise.
func languageModules(t *testing.T, lang string) map[string][]byte {
	t.Helper()
	if lang == "go" {
		wasm := map[string][]byte{}
		for _, op := range Operators {
			wasm[op] = testutil.GoGuestBytes(t, GoOperatorPackage(op))
		}
		return wasm
	}
	found, missing, err := PrebuiltModules(".", lang)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(missing) == 0:
	case testutil.InCI():
		t.Fatal(MissingMessage(lang, missing))
	case len(found) == 0:
		t.Skip(MissingMessage(lang, missing))
	default:
		t.Log(MissingMessage(lang, missing))
	}
	return found
}

// suite is one language on one engine: a runtime, its compiled modules and
// a state store for its cases.
type suite struct {
	engine host.Engine
	mods   map[string]*host.Module
	store  *state.Store
}

func newSuite(t *testing.T, engine host.Engine, wasm map[string][]byte) *suite {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{Engine: engine, CacheDir: compilationCache()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	store, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return &suite{engine: engine, mods: compileAll(t, rt, wasm), store: store}
}

// compileAll compiles the modules concurrently: compiling Go guests is the
// slowest step of the suite.
func compileAll(t *testing.T, rt *host.Runtime, wasm map[string][]byte) map[string]*host.Module {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	mods := map[string]*host.Module{}
	for op, b := range wasm {
		wg.Go(func() {
			m, err := rt.Compile(context.Background(), op, b)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("compile %s: %v", op, err)
				return
			}
			mods[op] = m
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return mods
}

// compilationCache keeps compiled code across test runs: compiling a Go
// guest takes seconds on the compiler engine. wazero keys it by module
// hash, engine and version, so a stale entry is never used.
func compilationCache() string {
	return filepath.Join(os.TempDir(), "wasmstream-conformance-wazero-cache")
}

// check runs case c and compares, or with -rewrite (Go, compiler engine)
// writes the result into the case file.
func (s *suite) check(t *testing.T, lang string, c *Case) {
	mod, next := s.mods[c.Operator], (*host.Module)(nil)
	if c.Upgrade != nil {
		next = s.mods[c.Upgrade.Operator]
	}
	if mod == nil || (c.Upgrade != nil && next == nil) {
		t.Skipf("no %s module for %s; run %s", lang, c.Operator, BuildScript(lang))
	}
	var log bytes.Buffer
	got, err := (&Runner{Store: s.store, Log: &log}).RunUpgrade(context.Background(), mod, next, c)
	if err != nil {
		t.Fatalf("%s: the run did not complete: %v\nlog:\n%s", c.Path, err, log.String())
	}
	if *rewrite && lang == "go" && s.engine == host.EngineCompiler {
		c.Expect = got
		if err := c.WriteFile(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if c.Expect == nil {
		t.Fatalf("%s has no expectation: run go test ./conformance/ -run 'TestConformance/go/compiler' -rewrite and review it", c.Path)
	}
	if diffs := Compare(c.Expect, got); len(diffs) > 0 {
		t.Errorf("%s: %s\n%s\nlog:\n%s", c.Path, c.Description, strings.Join(diffs, "\n"), log.String())
	}
	checkReasons(t, got)
}

// checkReasons: OPERATORS.md has the SDK log the reason of a record error
// at error level, and of a failed migration naming the state; the host
// puts that line in the GuestError's detail.
func checkReasons(t *testing.T, got *Expect) {
	t.Helper()
	if m := got.Migration; m != nil && m.Error != nil {
		if name := strconv.Quote(string(baseName(m.Error.Name))); !strings.Contains(m.Error.Reason, name) {
			t.Errorf("the failed migration's reason %q does not name state %s", m.Error.Reason, name)
		}
	}
	for _, d := range got.DeadLetters {
		if d.Kind == KindName(host.ErrRecordFailed) && d.Reason == "" {
			t.Errorf("batch %d record %d failed without an error-level log line naming the reason", d.Batch, d.Record)
		}
	}
}
