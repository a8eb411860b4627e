package hosttest

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/statetest"
)

// declareGuest returns the module of sdk/rust/testdata/declare.
func declareGuest(t testing.TB) []byte {
	return rustModule(t, "sdk/rust/testdata/declare", "declare")
}

// ttlDedup returns the ttldedup reference operator.
func ttlDedup(t testing.TB) []byte {
	return rustModule(t, "conformance/operators/rust", "ws_ttldedup")
}

func TestDeclarationsReachTheHost(t *testing.T) {
	g := start(t, declareGuest(t), options{})
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
	outs, err := g.process(t, "a", "e1", "a", "e1", "b", "e1", "a", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := values(outs), []string{"e1", "e1", ""}; !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	if v := stateOf(t, g, "a", "seen\x00e1"); !bytes.Equal(v, []byte{1}) {
		t.Fatalf("entry seen\\0e1 of a = %x, want 01", v)
	}
}

func TestDeclarationProblemsFailInit(t *testing.T) {
	m := compile(t, declareGuest(t), 0)
	for _, c := range []struct {
		config string
		code   abi.Code
		log    []string // substrings of the guest's error line
	}{
		{"reject", abi.ErrGuestConfig, []string{"config rejected on purpose"}},
		{"zero-ttl", 0, []string{`"zero"`, "under one millisecond", "panic"}},
	} {
		g, err := instantiate(t, m, options{config: c.config})
		var ge *host.GuestError
		if !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != c.code {
			t.Fatalf("config %q: want ErrInit with code %v, got %v", c.config, c.code, err)
		}
		if !guestErrorLogged(g.lines(t), c.log...) {
			t.Fatalf("config %q: no error line with %q", c.config, c.log)
		}
	}
}

func TestDeclaringFromProcessTraps(t *testing.T) {
	g := start(t, declareGuest(t), options{})
	_, err := g.process(t, "a", "e1", "a", "late")
	var ge *host.GuestError
	if !errors.As(err, &ge) || !errors.Is(err, host.ErrTrap) || ge.Record != 1 {
		t.Fatalf("want ErrTrap at record 1, got %v", err)
	}
	if !guestErrorLogged(g.lines(t), `"late"`, "outside Operator::init") {
		t.Fatal("no error line about the late declaration")
	}
}

// guestErrorLogged reports whether one guest error line holds every part.
func guestErrorLogged(lines []logLine, parts ...string) bool {
	for _, l := range lines {
		if !l.Guest || l.Level != "error" {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l.Message, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestDedupForgetsIdsAfterTheDeclaredTTL runs ttldedup on state whose TTLs
// are the module's declarations, as the engine sets them up: an id is a
// duplicate until the processing clock passes the TTL.
func TestDedupForgetsIdsAfterTheDeclaredTTL(t *testing.T) {
	m := compile(t, ttlDedup(t), 0)
	probe, err := instantiate(t, m, options{config: `{"ttl_ms":1000}`})
	if err != nil {
		t.Fatal(err)
	}
	decls := probe.inst.Declarations()
	probe.inst.Close(context.Background())
	if want := []host.StateDeclaration{{Name: "seen", Version: 1, TTLMillis: 1000}}; !reflect.DeepEqual(decls, want) {
		t.Fatalf("declarations %+v, want %+v", decls, want)
	}

	var now atomic.Int64
	now.Store(procNs)
	b := statetest.TTLBackend(t, "rust", decls, now.Load)
	inst, err := m.Instantiate(context.Background(), host.InstanceConfig{
		Operator: "rust", Config: []byte(`{"ttl_ms":1000}`), Outputs: []string{"out"},
		Logger: hclog.NewNullLogger(), Clock: fixedClock,
	}, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close(context.Background()) })
	passes := func(at time.Duration) bool {
		t.Helper()
		now.Store(procNs + int64(at))
		outs, err := inst.Process(context.Background(), []host.Record{{Key: []byte("a"), Value: []byte("e1")}})
		if err != nil {
			t.Fatal(err)
		}
		return len(outs) == 1
	}
	for _, step := range []struct {
		at   time.Duration
		want bool
	}{
		{0, true},
		{999 * time.Millisecond, false},
		{1000 * time.Millisecond, true}, // expired at write + TTL: remembered again
		{1999 * time.Millisecond, false},
		{2 * time.Second, true},
	} {
		if got := passes(step.at); got != step.want {
			t.Fatalf("at +%v: passed %t, want %t", step.at, got, step.want)
		}
	}
}
