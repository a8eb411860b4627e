// Package statetest gives tests outside package state a real Pebble
// backend configured the way the engine configures one.
package statetest

import (
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
)

// TTLBackend opens Pebble state in a temp dir and returns the backend of
// operator owning every key group, whose TTLs are those a module declared
// (state.DeclaredTTL, as the engine applies them) and whose processing
// clock is clock. Both are closed when the test ends.
func TTLBackend(tb testing.TB, operator string, decls []host.StateDeclaration, clock func() int64) *state.Backend {
	tb.Helper()
	ttls := map[string]state.TTL{}
	for _, d := range decls {
		if t, ok := state.DeclaredTTL(d.TTLMillis, d.Flags); ok {
			ttls[d.Name] = t
		}
	}
	s, err := state.Open(tb.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	b, err := s.Backend(state.BackendOptions{Operator: operator,
		Range: state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism}, TTL: ttls, Clock: clock})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(b.Close)
	return b
}
