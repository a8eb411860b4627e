package tests

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// output is an emitted record in comparable form.
type output struct {
	Record       int
	Key, Value   string
	Headers      string // name=value pairs, comma-separated
	OutputNumber int
}

func outputsOf(tb testing.TB, outs []host.Output) []output {
	tb.Helper()
	var res []output
	for _, o := range outs {
		h := decodeHeaders(tb, o.Headers)
		var hs string
		for i := 0; i+1 < len(h); i += 2 {
			hs += h[i] + "=" + h[i+1] + ","
		}
		res = append(res, output{o.Record, string(o.Key), string(o.Value), hs, o.Output})
	}
	return res
}

// counterBatches exercise counter's rules within the JSON subset where the
// Go example and the C operator must agree byte for byte.
var counterBatches = [][]host.Record{
	{
		rec("acct-47", `{"account":"acct-47","event":"evt-47","cents":1200}`),
		rec("acct-47", `{"account":"acct-47","event":"evt-48","cents":900}`),
		rec("acct-47", `{"account":"acct-47","event":"evt-48","cents":900}`),
	},
	{
		// A literal U+2028 (the JSON subset has no escapes): Go's encoder escapes it.
		rec("ü-東京", "{ \"cents\" : 5 , \"event\":\"<&>\u2028😀\", \"account\":\"ü-東京\" }"),
		rec("ü-東京", `{"account":"ü-東京","event":"e2","cents":-0,"note":"x","flag":true,"z":null,"f":1.5}`),
		rec("a", `{"account":"a","event":"e1","cents":-1}`),
		rec("a", `{"account":"a","event":"e2","cents":"1"}`),
		rec("a", `{"account":"a","event":"e3"}`),
		rec("a", `{"account":"a","cents":3}`),
		rec("a", `{"account":"","event":"e4","cents":3}`),
		rec("a", `{"account":"b","event":"e5","cents":3}`),
		rec("a", `{"account":"a","event":"e6","cents":1.0}`),
		rec("a", `{"account":"a","event":"e7","cents":null}`),
		rec("a", `not json`),
		rec("a", `{"account":"a","event":"e8","cents":7}`),
		rec("a", `{"account":"x","account":"a","event":"e9","cents":1}`),
		rec("a", `{"account":"a","event":"e10","cents":2000}`),
	},
	{
		rec("big", `{"account":"big","event":"b1","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b2","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b3","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b4","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b5","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b6","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b7","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b8","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b9","cents":999999999999999999}`),
		rec("big", `{"account":"big","event":"b10","cents":999999999999999999}`),
		rec("acct-47", `{"account":"acct-47","event":"evt-47","cents":1200}`),
	},
}

// counterState lists the state entries the batches above can create.
var counterState = []struct{ key, name string }{
	{"acct-47", "total"}, {"acct-47", "seen\x00evt-47"}, {"acct-47", "seen\x00evt-48"},
	{"ü-東京", "total"}, {"ü-東京", "seen\x00<&>\u2028😀"}, {"ü-東京", "seen\x00e2"},
	{"a", "total"}, {"a", "seen\x00e8"}, {"a", "seen\x00e9"}, {"a", "seen\x00e10"}, {"big", "total"},
}

// The C counter behaves byte for byte like the Go payment-risk example:
// outputs, dead letters and state, under several configs.
func TestCounterMatchesGoExample(t *testing.T) {
	rt := newRuntime(t)
	goMod := compile(t, rt, testutil.GoGuestBytes(t, "./examples/payment-risk/operator"))
	cMod := compile(t, rt, operatorWasm(t, "counter"))
	for _, cfg := range []string{"", "  ", `{"max_cents":1000}`, `{"max_cents":0}`, `{}`, ` { "max_cents" : 100000000 } `} {
		t.Run(cfg, func(t *testing.T) {
			goG := guestOf(t, goMod, host.InstanceConfig{Config: []byte(cfg)}).mustStart()
			cG := guestOf(t, cMod, host.InstanceConfig{Config: []byte(cfg)}).mustStart()
			for i, batch := range counterBatches {
				want, got := goG.runBatch(batch), cG.runBatch(batch)
				if w, g := outputsOf(t, want.outs), outputsOf(t, got.outs); !slices.Equal(w, g) {
					t.Errorf("batch %d outputs:\n   C %+v\n  Go %+v", i, g, w)
				}
				if !slices.Equal(want.dead, got.dead) || !slices.EqualFunc(want.kind, got.kind, errorsIs) {
					t.Errorf("batch %d dead letters: C %v %v, Go %v %v", i, got.dead, got.kind, want.dead, want.kind)
				}
			}
			for _, s := range counterState {
				w, wok := goG.stateOf(s.key, s.name)
				g, gok := cG.stateOf(s.key, s.name)
				if wok != gok || !bytes.Equal(w, g) {
					t.Errorf("state %q %q: C % x (%v), Go % x (%v)", s.key, s.name, g, gok, w, wok)
				}
			}
		})
	}
}

func errorsIs(a, b error) bool { return errors.Is(a, b) }

// Configs the Go example rejects, the C counter rejects too.
func TestCounterRejectsConfig(t *testing.T) {
	for _, cfg := range []string{`{"max_cents":-1}`, `{"max_cents":5,"other":1}`, `{"max_cents":"5"}`, `[]`, `nope`, `{"max_cents":5} x`} {
		g := newGuest(t, operatorWasm(t, "counter"), host.InstanceConfig{Config: []byte(cfg)})
		var ge *host.GuestError
		if err := g.start(); !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != abi.ErrGuestConfig {
			t.Errorf("config %q: got %v, want ErrInit with GUEST_CONFIG", cfg, err)
		}
	}
}

func TestDedup(t *testing.T) {
	g := newGuest(t, operatorWasm(t, "dedup"), host.InstanceConfig{Config: []byte("ignored")}).mustStart()
	res := g.runBatch([]host.Record{rec("a", "x"), rec("a", "y"), rec("b", ""), rec("a", "x")})
	res2 := g.runBatch([]host.Record{rec("b", "again"), rec("c", "z")})
	want := []output{{0, "a", "x", "", 0}, {2, "b", "", "", 0}}
	if got := outputsOf(t, res.outs); !slices.Equal(got, want) || len(res.dead) != 0 {
		t.Errorf("batch 1: %+v, dead %v", got, res.dead)
	}
	if got := outputsOf(t, res2.outs); !slices.Equal(got, []output{{1, "c", "z", "", 0}}) {
		t.Errorf("batch 2: %+v", got)
	}
	for _, k := range []string{"a", "b", "c"} {
		if v, _ := g.stateOf(k, "seen"); !bytes.Equal(v, []byte{1}) {
			t.Errorf("seen of %s = % x", k, v)
		}
	}
}

func TestJoin(t *testing.T) {
	g := newGuest(t, operatorWasm(t, "join"), host.InstanceConfig{}).mustStart()
	limit := func(key, v string) host.Record { return host.Record{Key: []byte(key), Value: []byte(v), Input: 1} }
	pay := func(key, ev string, cents int) host.Record {
		return rec(key, fmt.Sprintf(`{"account":%q,"event":%q,"cents":%d}`, key, ev, cents))
	}
	res := g.runBatch([]host.Record{
		pay("a", "e0", 1), limit("a", "500"), pay("a", "e1", 500), pay("a", "e2", 501), limit("a", "abc"),
		limit("a", "+5"), {Key: []byte("a"), Value: []byte("1"), Input: 2}, rec("a", "{}"), pay("b", "e3", 5),
		limit("b", "-7"), pay("b", "e4", 0), rec("a", `{"account":"other","event":"e5","cents":1}`),
	})
	want := []output{
		{0, "a", "e0,1,none,unknown", "", 0}, {2, "a", "e1,500,500,ok", "", 0}, {3, "a", "e2,501,500,over", "", 0},
		{8, "b", "e3,5,none,unknown", "", 0}, {10, "b", "e4,0,-7,over", "", 0}, {11, "a", "e5,1,500,ok", "", 0},
	}
	if got := outputsOf(t, res.outs); !slices.Equal(got, want) {
		t.Errorf("outputs:\n got %+v\nwant %+v", got, want)
	}
	if !slices.Equal(res.dead, []int{4, 5, 6, 7}) {
		t.Errorf("dead letters %v, want [4 5 6 7]", res.dead)
	}
	if v, _ := g.stateOf("b", "limit"); !bytes.Equal(v, []byte{0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		t.Errorf("limit of b = % x, want i64le(-7)", v)
	}
}

func TestFailer(t *testing.T) {
	g := newGuest(t, operatorWasm(t, "failer"), host.InstanceConfig{}).mustStart()
	res := g.runBatch([]host.Record{rec("k", "hello"), rec("k", "fail now"), rec("k", "trap"), rec("k", "traps"), rec("j", "x"), rec("k", "fail")})
	want := []output{{0, "k", "hello", "count=1,", 0}, {3, "k", "traps", "count=2,", 0}, {4, "j", "x", "count=1,", 0}}
	if got := outputsOf(t, res.outs); !slices.Equal(got, want) {
		t.Errorf("outputs:\n got %+v\nwant %+v", got, want)
	}
	wantKinds := []error{host.ErrRecordFailed, host.ErrTrap, host.ErrRecordFailed}
	if !slices.Equal(res.dead, []int{1, 2, 5}) || !slices.EqualFunc(res.kind, wantKinds, errorsIs) {
		t.Errorf("dead letters %v %v, want [1 2 5] %v", res.dead, res.kind, wantKinds)
	}
	if v, _ := g.stateOf("k", "count"); !bytes.Equal(v, []byte{2, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("count of k = % x, want i64le(2)", v)
	}
}
