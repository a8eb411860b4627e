package hosttest

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/statetest"
)

// declared is what test/operators/declares.ts declares with an empty config.
var declared = []host.StateDeclaration{
	{Name: "total", Version: 2, TTLMillis: abi.TTLNever},
	{Name: "notes", Version: 3, TTLMillis: 90_000,
		Flags: abi.DeclareReadAndWrite | abi.DeclareReturnExpired | abi.DeclareEventTime},
	{Name: "seen", Version: 1, TTLMillis: 1500},
	{Name: "plain", Version: 1, TTLMillis: abi.TTLUnset},
}

func TestDeclarationsReachTheHost(t *testing.T) {
	g := start(t, compile(t, testOperator(t, "declares")), "", nil)
	if got := g.inst.Declarations(); !reflect.DeepEqual(got, declared) {
		t.Fatalf("declarations:\n got %+v\nwant %+v", got, declared)
	}
	got := g.process(t, "a", "e1", "a", "e1", "b", "e1", "a", "s:é", "a", "s:é", "a", "late")
	want := []string{"a:e1", "b:e1", "a:s:é",
		`a:wasmstream: declareState "late": called during process; declare at the top level or in init`}
	if !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	if v := g.stateOf(t, "a", "seen\x00e1"); !bytes.Equal(v, []byte{1}) {
		t.Fatalf("entry seen\\0e1 of a = %x, want 01", v)
	}
	if v := g.stateOf(t, "a", "seen\x00é"); !bytes.Equal(v, []byte{1}) {
		t.Fatalf("entry seen\\0é of a = %x, want 01", v)
	}
	if got := g.inst.Declarations(); !reflect.DeepEqual(got, declared) {
		t.Fatalf("declarations changed during process: %+v", got)
	}
}

func TestBadDeclarationsFailInit(t *testing.T) {
	m := compile(t, testOperator(t, "declares"))
	for _, c := range []struct {
		config string
		code   abi.Code
		log    []string
	}{
		{"reject", abi.ErrGuestConfig, []string{"config rejected on purpose"}},
		{"bad-version", abi.ErrGuestInternal, []string{`declareState "v": negative version -1`}},
		{"bad-ttl", abi.ErrGuestInternal, []string{`declareState "x": a TTL of 0 ms is under one millisecond`}},
	} {
		g, err := instantiate(t, m, c.config, nil)
		var ge *host.GuestError
		if !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != c.code {
			t.Fatalf("config %q: want ErrInit with %v, got %v", c.config, c.code, err)
		}
		if !g.errorLogged(t, c.log...) {
			t.Fatalf("config %q: no guest error line with %q in\n%s", c.config, c.log, g.log)
		}
	}
}

func TestTTLDedupConfig(t *testing.T) {
	m := compile(t, referenceOperator(t, "ttldedup"))
	for cfg, ttl := range map[string]int64{``: 60_000, `{"ttl_ms":1}`: 1, ` { "ttl_ms" : 250 } `: 250} {
		g := start(t, m, cfg, nil)
		if d := g.inst.Declarations(); len(d) != 1 || d[0] != (host.StateDeclaration{Name: "seen", Version: 1, TTLMillis: ttl}) {
			t.Errorf("config %q: declarations %+v, want seen with %d ms", cfg, d, ttl)
		}
	}
	for _, cfg := range []string{` `, `{}`, `{"ttl_ms":0}`, `{"ttl_ms":-5}`, `{"ttl_ms":"60"}`, `{"ttl_ms":1.5}`,
		`{"ttl_ms":1,"x":1}`, `{"ttl":60}`, `[60]`, `60`} {
		var ge *host.GuestError
		if _, err := instantiate(t, m, cfg, nil); !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) ||
			ge.Code != abi.ErrGuestConfig {
			t.Errorf("config %q: got %v, want ErrInit with GUEST_CONFIG", cfg, err)
		}
	}
}

// TestTTLDedupForgetsIdsAfterTheDeclaredTTL runs the ttldedup reference
// operator on state whose TTLs are its declarations: an id is a duplicate
// until the processing clock passes the TTL.
func TestTTLDedupForgetsIdsAfterTheDeclaredTTL(t *testing.T) {
	m := compile(t, referenceOperator(t, "ttldedup"))
	cfg := `{"ttl_ms":1000}`
	decls := start(t, m, cfg, nil).inst.Declarations()
	if want := []host.StateDeclaration{{Name: "seen", Version: 1, TTLMillis: 1000}}; !reflect.DeepEqual(decls, want) {
		t.Fatalf("declarations %+v, want %+v", decls, want)
	}
	var now atomic.Int64
	g := start(t, m, cfg, statetest.TTLBackend(t, "as", decls, now.Load))
	for _, step := range []struct {
		at   time.Duration
		want int
	}{
		{0, 1},
		{999 * time.Millisecond, 0},
		{1000 * time.Millisecond, 1}, // expired at write + TTL: remembered again
		{1999 * time.Millisecond, 0},
		{2 * time.Second, 1},
	} {
		now.Store(procNs + int64(step.at))
		if got := g.process(t, "a", "e1"); len(got) != step.want {
			t.Fatalf("at +%v: outputs %q, want %d", step.at, got, step.want)
		}
	}
}
