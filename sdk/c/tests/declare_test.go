package tests

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/statetest"
)

func declareWasm(tb testing.TB) []byte { return buildGuest(tb, "testdata/declare.c") }

func TestDeclarationsReachTheHost(t *testing.T) {
	g := newGuest(t, declareWasm(t), host.InstanceConfig{}).mustStart()
	want := []host.StateDeclaration{
		{Name: "total", Version: 2, TTLMillis: abi.TTLNever},
		{Name: "notes", Version: 3, TTLMillis: 90_000,
			Flags: abi.DeclareReadAndWrite | abi.DeclareReturnExpired | abi.DeclareEventTime},
		{Name: "plain", Version: 1, TTLMillis: abi.TTLUnset},
		{Name: "seen", Version: 1, TTLMillis: 1500},
	}
	if got := g.inst.Declarations(); !reflect.DeepEqual(got, want) {
		t.Fatalf("declarations:\n got %+v\nwant %+v", got, want)
	}
	outs := g.mustProcess(rec("a", "e1"), rec("a", "e1"), rec("b", "e1"), rec("a", ""), rec("a", ""))
	var got []string
	for _, o := range outs {
		got = append(got, string(o.Key)+":"+string(o.Value))
	}
	if want := []string{"a:e1", "b:e1", "a:"}; !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	if v, _ := g.stateOf("a", "seen\x00e1"); !bytes.Equal(v, []byte{1}) {
		t.Fatalf("entry seen\\0e1 of a = %x, want 01", v)
	}
}

// TestBadDeclarationsFailInit: what the SDK refuses fails ws_init even when
// ignored, and what the host refuses fails it naming the state.
func TestBadDeclarationsFailInit(t *testing.T) {
	mod := compile(t, newRuntime(t), declareWasm(t))
	for _, c := range []struct {
		config string
		code   abi.Code
		log    []string // parts of one guest error line
	}{
		{"reject", abi.ErrGuestConfig, []string{"config rejected on purpose"}},
		{"bad-ttl", abi.ErrGuestInternal, []string{`declare state "x"`, "negative ttl.ms"}},
		{"bad-enum", abi.ErrGuestInternal, []string{`declare state "x"`, "WS_TTL_*"}},
		{"checked", abi.ErrGuestConfig, []string{`declare state "other"`, "ttl_ms must be 1 or more"}},
		{"bad-version", abi.ErrGuestInternal, []string{`refused the declaration of state "v"`, "version -1", "BAD_ARGUMENT"}},
		{"long-name", abi.ErrGuestInternal, []string{`refused the declaration of state "nnnn`, "BAD_ARGUMENT"}},
	} {
		t.Run(c.config, func(t *testing.T) {
			g := guestOf(t, mod, host.InstanceConfig{Config: []byte(c.config)})
			err := g.start()
			var ge *host.GuestError
			if !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != c.code {
				t.Fatalf("want ErrInit with %v, got %v", c.code, err)
			}
			if !errorLogged(g.log.guestLines(t), c.log...) {
				t.Fatalf("no guest error line with %q", c.log)
			}
		})
	}
}

func TestDeclaringFromProcessIsBadArgument(t *testing.T) {
	g := newGuest(t, declareWasm(t), host.InstanceConfig{}).mustStart()
	outs := g.mustProcess(rec("a", "late"))
	if len(outs) != 1 || string(outs[0].Value) != "BAD_ARGUMENT" {
		t.Fatalf("outputs %+v, want one BAD_ARGUMENT", outs)
	}
	if len(g.inst.Declarations()) != 4 {
		t.Fatalf("declarations changed: %+v", g.inst.Declarations())
	}
}

// errorLogged reports whether one error line holds every part.
func errorLogged(lines []logLine, parts ...string) bool {
	for _, l := range lines {
		ok := l.Level == "error"
		for _, p := range parts {
			ok = ok && strings.Contains(l.Message, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestTTLDedupForgetsIdsAfterTheDeclaredTTL runs the ttldedup reference
// operator on state whose TTLs are its declarations, as the engine sets them
// up: an id is a duplicate until the processing clock passes the TTL.
func TestTTLDedupForgetsIdsAfterTheDeclaredTTL(t *testing.T) {
	mod := compile(t, newRuntime(t), operatorWasm(t, "ttldedup"))
	cfg := host.InstanceConfig{Config: []byte(`{"ttl_ms":1000}`)}
	first := guestOf(t, mod, cfg).mustStart()
	decls := first.inst.Declarations()
	if want := []host.StateDeclaration{{Name: "seen", Version: 1, TTLMillis: 1000}}; !reflect.DeepEqual(decls, want) {
		t.Fatalf("declarations %+v, want %+v", decls, want)
	}

	var now atomic.Int64
	g := guestOf(t, mod, cfg)
	g.state = statetest.TTLBackend(t, "op", decls, now.Load)
	g.mustStart()
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
		now.Store(1_700_000_000_000_000_000 + int64(step.at))
		if outs := g.mustProcess(rec("a", "e1")); len(outs) != step.want {
			t.Fatalf("at +%v: %d outputs, want %d", step.at, len(outs), step.want)
		}
	}
}

func TestTTLDedupConfig(t *testing.T) {
	mod := compile(t, newRuntime(t), operatorWasm(t, "ttldedup"))
	for cfg, ttl := range map[string]int64{``: 60_000, `{"ttl_ms":1}`: 1, ` { "ttl_ms" : 250 } `: 250} {
		g := guestOf(t, mod, host.InstanceConfig{Config: []byte(cfg)}).mustStart()
		if d := g.inst.Declarations(); len(d) != 1 || d[0] != (host.StateDeclaration{Name: "seen", Version: 1, TTLMillis: ttl}) {
			t.Errorf("config %q: declarations %+v, want seen with %d ms", cfg, d, ttl)
		}
	}
	for _, cfg := range []string{` `, `{}`, `{"ttl_ms":0}`, `{"ttl_ms":-5}`, `{"ttl_ms":"60"}`, `{"ttl_ms":1.5}`,
		`{"ttl_ms":1,"x":1}`, `{"ttl":60}`, `[60]`, `60`} {
		var ge *host.GuestError
		if err := guestOf(t, mod, host.InstanceConfig{Config: []byte(cfg)}).start(); !errors.As(err, &ge) ||
			!errors.Is(err, host.ErrInit) || ge.Code != abi.ErrGuestConfig {
			t.Errorf("config %q: got %v, want ErrInit with GUEST_CONFIG", cfg, err)
		}
	}
}
