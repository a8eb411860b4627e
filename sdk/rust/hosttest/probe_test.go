package hosttest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

// procNs is what the fixed clock says: processing_time in the guest.
const procNs = 1_700_000_000_123_456_789

func fixedClock() time.Time { return time.Unix(0, procNs) }

func TestModuleHasExactlyTheABIExportsAndImports(t *testing.T) {
	// Compile validates imports, exports and ws_abi_version == 1.
	compile(t, probe(t), 0)
	compile(t, paymentRisk(t), 0)
}

func TestValueStatePersistsPerKeyAcrossBatches(t *testing.T) {
	g := start(t, probe(t), options{config: "n="})
	outs, err := g.process(t, "a", "count", "b", "count", "a", "count")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := values(outs), []string{"n=1", "n=1", "n=2"}; !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	if string(outs[2].Key) != "a" || outs[2].Record != 2 || outs[2].Output != 0 {
		t.Fatalf("output 2 = %+v", outs[2])
	}
	outs, err = g.process(t, "a", "count")
	if err != nil || string(outs[0].Value) != "n=3" {
		t.Fatalf("next batch: %q, %v", values(outs), err)
	}
	if v := stateOf(t, g, "a", "count"); binary.LittleEndian.Uint64(v) != 3 {
		t.Fatalf("state count of a = %x", v)
	}
}

func TestMapStateUsesNulSeparatedEntryNames(t *testing.T) {
	g := start(t, probe(t), options{})
	outs, err := g.process(t, "k", "note:x:hello", "k", "read:x", "k", "read:y", "other", "read:x")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := values(outs), []string{"hello", "absent", "absent"}; !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	if v := stateOf(t, g, "k", "notes\x00x"); string(v) != "hello" {
		t.Fatalf("entry notes\\0x = %q", v)
	}
	if _, err := g.process(t, "k", "forget:x"); err != nil {
		t.Fatal(err)
	}
	if v := stateOf(t, g, "k", "notes\x00x"); v != nil {
		t.Fatalf("entry still there after delete: %q", v)
	}
}

func TestLargeStateValuesAreReadBack(t *testing.T) {
	g := start(t, probe(t), options{})
	// 256 bytes fit the first read buffer; 257 and more need the retry.
	sizes := []int{0, 256, 257, 70_000, 1 << 20}
	var kv []string
	var want []string
	for _, n := range sizes {
		kv = append(kv, "k", fmt.Sprintf("big:%d", n))
		b := n % 251
		if n == 0 {
			b = 0
		}
		want = append(want, fmt.Sprintf("%d:%d:%d", n, b, b))
	}
	outs, err := g.process(t, kv...)
	if err != nil {
		t.Fatal(err)
	}
	if got := values(outs); !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
}

func TestHeadersTimesAndInputReachTheGuest(t *testing.T) {
	g := start(t, probe(t), options{})
	in := abi.AppendHeader(abi.AppendHeader(nil, "a", "1"), "a", "2")
	rec := host.Record{Key: []byte("k"), Value: []byte("echo"), Headers: in, EventTime: -42, Input: 3}
	outs, err := g.inst.Process(context.Background(), []host.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	got := headerList(t, outs[0].Headers)
	want := []string{"a=1", "a=2", "event-time=-42", "record-event-time=-42", "input=3", fmt.Sprintf("processing-time=%d", procNs)}
	if !slices.Equal(got, want) {
		t.Fatalf("headers %q, want %q", got, want)
	}
	if string(outs[0].Key) != "k" || string(outs[0].Value) != "echo" {
		t.Fatalf("output %+v", outs[0])
	}
}

func TestHostCodesBecomeErrorKinds(t *testing.T) {
	g := start(t, probe(t), options{maxValueLen: 1000, maxEmits: 3})
	cases := []struct{ cmd, want string }{
		{"emit-to:nope", "UnknownOutput"},
		{"emit-to:" + strings.Repeat("o", 256), "BadArgument"},
		{"emit-to:side", ""}, // wired: no error, the emit goes to output 1
		{"emit-big:1000", ""},
		{"emit-big:1001", "TooLarge"},
	}
	for _, c := range cases {
		outs, err := g.process(t, "k", c.cmd)
		if err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
		got := ""
		if len(outs) == 1 && outs[0].Output == 0 && string(outs[0].Value) != strings.Repeat("x", 1000) {
			got = string(outs[0].Value)
		}
		if got != c.want {
			t.Errorf("%s: reported %q, want %q (outputs %d)", c.cmd, got, c.want, len(outs))
		}
	}
	_, err := g.process(t, "k", "spam:4")
	var ge *host.GuestError
	if !errors.As(err, &ge) || !errors.Is(err, host.ErrRecordFailed) || !strings.Contains(ge.Detail, "QUOTA_EXCEEDED") {
		t.Fatalf("spam:4 with a quota of 3: %v", err)
	}
}

func TestFailedRecordRollsBackAndKeepsTheInstance(t *testing.T) {
	g := start(t, probe(t), options{})
	if _, err := g.process(t, "k", "count"); err != nil {
		t.Fatal(err)
	}
	_, err := g.process(t, "k", "count", "k", "fail", "k", "count")
	var ge *host.GuestError
	if !errors.As(err, &ge) || !errors.Is(err, host.ErrRecordFailed) {
		t.Fatalf("want ErrRecordFailed, got %v", err)
	}
	if ge.Record != 1 || ge.Code != abi.ErrGuestRecord || !strings.Contains(ge.Detail, `record "k" fails on purpose`) {
		t.Fatalf("error %+v", ge)
	}
	if g.inst.Closed() {
		t.Fatal("a record failure closed the instance")
	}
	if v := stateOf(t, g, "k", "count"); binary.LittleEndian.Uint64(v) != 1 {
		t.Fatalf("count = %d after the failed batch, want 1 (rolled back)", binary.LittleEndian.Uint64(v))
	}
	outs, err := g.process(t, "k", "count")
	if err != nil || string(outs[0].Value) != "2" {
		t.Fatalf("after the failure: %q, %v", values(outs), err)
	}
}

func TestPanicTrapsAfterLoggingItsMessage(t *testing.T) {
	g := start(t, probe(t), options{})
	_, err := g.process(t, "k", "count", "k", "panic")
	var ge *host.GuestError
	if !errors.As(err, &ge) || !errors.Is(err, host.ErrTrap) || ge.Record != 1 {
		t.Fatalf("want ErrTrap at record 1, got %v", err)
	}
	if !g.inst.Closed() {
		t.Fatal("the instance survived a trap")
	}
	var found bool
	for _, l := range g.lines(t) {
		if l.Level == "error" && strings.Contains(l.Message, `wasmstream: panic, the instance traps: panicked at 'boom at "k"'`) {
			found = l.Guest && l.Record != nil && *l.Record == 1
		}
	}
	if !found {
		t.Fatalf("no error line with the panic message for record 1 in the log")
	}
}

func TestLogLevelsReachTheHostLog(t *testing.T) {
	g := start(t, probe(t), options{})
	g.lines(t) // drop init's line
	if _, err := g.process(t, "k", "count", "k", "log"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range g.lines(t) {
		if !l.Guest || l.Record == nil || *l.Record != 1 {
			t.Fatalf("line %+v lacks guest=true record=1", l)
		}
		got = append(got, l.Level+":"+l.Message)
	}
	if want := []string{"trace:t", "debug:d", "info:i", "warn:w", "error:e"}; !slices.Equal(got, want) {
		t.Fatalf("log %q, want %q", got, want)
	}
}

func TestInitSeesConfigAndProcessingTime(t *testing.T) {
	g := start(t, probe(t), options{config: "cfg:"})
	lines := g.lines(t)
	if len(lines) != 1 || lines[0].Message != fmt.Sprintf("probe ready at %d", procNs) || lines[0].Record != nil {
		t.Fatalf("init log %+v", lines)
	}
	outs, err := g.process(t, "k", "count")
	if err != nil || string(outs[0].Value) != "cfg:1" {
		t.Fatalf("config prefix: %q, %v", values(outs), err)
	}
}

func TestRejectedConfigIsGuestConfig(t *testing.T) {
	m := compile(t, probe(t), 0)
	for _, c := range []struct{ config, reason string }{
		{"bad", `config "bad" is rejected`},
		{"\xff", "not UTF-8"},
	} {
		g, err := instantiate(t, m, options{config: c.config})
		var ge *host.GuestError
		if !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != abi.ErrGuestConfig {
			t.Fatalf("config %q: want ErrInit with GUEST_CONFIG, got %v", c.config, err)
		}
		lines := g.lines(t)
		if len(lines) == 0 || lines[len(lines)-1].Level != "error" || !strings.Contains(lines[len(lines)-1].Message, c.reason) {
			t.Fatalf("config %q: log %+v does not give the reason", c.config, lines)
		}
	}
}

// stateOf reads committed state through the backend, as the next record of
// key would.
func stateOf(t testing.TB, g *guest, key, name string) []byte {
	t.Helper()
	if err := g.state.SetCurrentKey([]byte(key)); err != nil {
		t.Fatal(err)
	}
	v, found, err := g.state.Get([]byte(name))
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return nil
	}
	return v
}

// headerList decodes an abi header list as "name=value" strings.
func headerList(t testing.TB, b []byte) []string {
	t.Helper()
	var out []string
	hr := abi.NewHeaderReader(b)
	for {
		n, v, more, err := hr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			return out
		}
		out = append(out, string(n)+"="+string(v))
	}
}
