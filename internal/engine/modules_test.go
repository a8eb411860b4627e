package engine

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/plugins"
)

// TestRegistryModuleReferences: a pipeline names its module NAME or
// NAME@HASH-prefix in the registry of its own server; the run fetches it
// into the module cache and pins the full hash it ran (the effective
// config), and the checkpoint records that module. An unknown name stops Open with an error saying how to push.
func TestRegistryModuleReferences(t *testing.T) {
	skipInRacePass(t)
	s := newSumSetup(t, 1)
	wasm, err := os.ReadFile(s.module)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.load(t)
	c, err := ConnectClient(context.Background(), cfg, testLogger(t), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	e, err := plugins.NewRegistry(c, plugins.Options{}).Push(context.Background(), "sum2", wasm, plugins.Meta{})
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	recs := sumRecords(40, 3, 1)
	for _, ref := range []string{"sum2", "sum2@" + e.Hash[:12]} {
		s.module = ref
		cfg := s.load(t)
		if cfg.Operators[0].ModuleRef != ref || cfg.Operators[0].Module != "" {
			t.Fatalf("config: module %q ref %q", cfg.Operators[0].Module, cfg.Operators[0].ModuleRef)
		}
		runSums(t, cfg, Options{}, recs)
		if got := cfg.Operators[0].ModuleRef; got != "sum2@"+e.Hash {
			t.Fatalf("the run did not pin the version: ModuleRef %q", got)
		}
		m := newestCheckpoint(t, cfg)
		if m.Operators[0].ModuleSHA256 != e.Hash {
			t.Fatalf("manifest module %s, pushed %s", m.Operators[0].ModuleSHA256, e.Hash)
		}
	}
	checkSums(t, s.load(t), newestCheckpoint(t, s.load(t)).ID, expectedSums(recs, recs))

	s.module = "nosuch"
	err = openRefused(t, s.load(t), Options{})
	if !errors.Is(err, plugins.ErrNotFound) || !strings.Contains(err.Error(), "wasmstream operator push FILE --name nosuch") {
		t.Fatalf("unknown module: %v", err)
	}
}
