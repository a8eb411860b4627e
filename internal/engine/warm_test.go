package engine

import (
	"context"
	"strings"
	"testing"
)

// WarmModules compiles what a pipeline's Open would, and names the
// operator whose module cannot be compiled.
func TestWarmModules(t *testing.T) {
	s := newSumSetup(t, 1)
	cfg := s.load(t)
	ctx := context.Background()
	if err := WarmModules(ctx, cfg, compilationCache(cfg.DataDir), ""); err != nil {
		t.Fatalf("warm a good module: %v", err)
	}
	cfg.Operators[0].Module = cfg.DataDir + "/missing.wasm"
	err := WarmModules(ctx, cfg, compilationCache(cfg.DataDir), "")
	if err == nil || !strings.Contains(err.Error(), `operator "sum"`) {
		t.Errorf("warm a missing module: %v, want an error naming operator \"sum\"", err)
	}
}
