package tests

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

func startProbe(t *testing.T, config string) *guest {
	t.Helper()
	return newGuest(t, probeWasm(t), host.InstanceConfig{Config: []byte(config)}).mustStart()
}

// values returns the emitted values as strings.
func values(outs []host.Output) []string {
	var vs []string
	for _, o := range outs {
		vs = append(vs, string(o.Value))
	}
	return vs
}

// The config reaches ws_operator_init and the guest can keep a copy after
// the host reuses the buffer for batches.
func TestConfig(t *testing.T) {
	for _, cfg := range []string{"", "max=5", strings.Repeat("c", 100_000)} {
		g := startProbe(t, cfg)
		outs := g.mustProcess(rec("k", "config"))
		if got := string(outs[0].Value); got != cfg {
			t.Errorf("config %.20q: guest saw %.20q", cfg, got)
		}
	}
}

// A rejected config is GUEST_CONFIG with the reason logged at error level;
// WS_GUEST_INTERNAL passes through.
func TestConfigRejected(t *testing.T) {
	for cfg, want := range map[string]abi.Code{"reject": abi.ErrGuestConfig, "internal": abi.ErrGuestInternal} {
		g := newGuest(t, probeWasm(t), host.InstanceConfig{Config: []byte(cfg)})
		err := g.start()
		var ge *host.GuestError
		if !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != want {
			t.Fatalf("config %q: got %v, want ErrInit with %s", cfg, err, want)
		}
		lines := g.log.guestLines(t)
		if cfg == "reject" && !hasLine(lines, "error", "the config is rejected: probe: config reject rejected") {
			t.Errorf("config %q: no error line with the reason: %+v", cfg, lines)
		}
	}
}

func hasLine(lines []logLine, level, substr string) bool {
	return slices.ContainsFunc(lines, func(l logLine) bool {
		return l.Level == level && strings.Contains(l.Message, substr)
	})
}

// Headers, input index and event time reach the operator as sent, and
// headers go out as built, repeated names and empty values included.
func TestRecordFieldsAndHeaders(t *testing.T) {
	g := startProbe(t, "")
	in := host.Record{Key: []byte("k\x00ü"), Value: []byte("echo"), Input: 3, EventTime: -1_234_567_890_123,
		Headers: headers("x-first", "1", "x-first", "2", "empty", "", "", "no-name")}
	outs := g.mustProcess(in, rec("k2", "echo"))
	got := decodeHeaders(t, outs[0].Headers)
	want := []string{"x-first", "1", "x-first", "2", "empty", "", "", "no-name",
		"input", "3", "event-time", "-1234567890123", "ws-event-time", "-1234567890123", "x-first-found", "1"}
	if !slices.Equal(got, want) {
		t.Errorf("headers:\n got %q\nwant %q", got, want)
	}
	if !bytes.Equal(outs[0].Key, in.Key) || string(outs[0].Value) != "echo" || outs[0].Record != 0 {
		t.Errorf("output 0 = %+v", outs[0])
	}
	if got := decodeHeaders(t, outs[1].Headers); !slices.Equal(got[:2], []string{"input", "0"}) || outs[1].Record != 1 {
		t.Errorf("second record: headers %q, record %d", got, outs[1].Record)
	}
}

// Values of every size survive put and get, including ones larger than the
// SDK's static read buffer (retry) and larger than it keeps (release).
func TestValueState(t *testing.T) {
	g := startProbe(t, "")
	for _, n := range []int{0, 1, 1024, 1025, 70_000, 1 << 20} {
		outs := g.mustProcess(rec("k", fmt.Sprintf("put v%d %d", n, n)))
		if got, want := string(outs[0].Value), fmt.Sprintf("ok %d", n); got != want {
			t.Fatalf("put %d: %q", n, got)
		}
		raw, ok := g.stateOf("k", fmt.Sprintf("v%d", n))
		if !ok || len(raw) != n || (n > 0 && raw[n-1] != byte((n-1)*7+3)) {
			t.Fatalf("state v%d: %d bytes, found %v", n, len(raw), ok)
		}
	}
	outs := g.mustProcess(rec("k", "get v1025"), rec("k", "del v1025"), rec("k", "get v1025"), rec("other", "get v1"))
	if len(outs[0].Value) != 1025 || values(outs)[1] != "ok" || values(outs)[2] != "absent" || values(outs)[3] != "absent" {
		t.Fatalf("get/del/get: %d bytes, %q", len(outs[0].Value), values(outs)[1:])
	}
}

// i64 helpers store 8 little-endian bytes and treat absent as 0.
func TestI64State(t *testing.T) {
	g := startProbe(t, "")
	outs := g.mustProcess(rec("k", "add n 5"), rec("k", "add n -7"), rec("j", "add n 1"))
	want := []string{"n=5 found=0", "n=-2 found=1", "n=1 found=0"}
	if !slices.Equal(values(outs), want) {
		t.Fatalf("got %q, want %q", values(outs), want)
	}
	raw, _ := g.stateOf("k", "n")
	if !bytes.Equal(raw, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("state n = % x, want i64le(-2)", raw)
	}
	g.mustProcess(rec("k", "put short 3"))
	_, err := g.process(rec("k", "add short 1"))
	if !errors.Is(err, host.ErrRecordFailed) || !hasLine(g.log.guestLines(t), "error", `state get "short": value of 3 bytes is not an i64`) {
		t.Fatalf("add on a 3-byte value: %v", err)
	}
}

// Map entries are named name NUL key, so every SDK reads the same state.
func TestMapState(t *testing.T) {
	g := startProbe(t, "")
	outs := g.mustProcess(rec("k", "mput seen evt-1 yes"), rec("k", "mget seen evt-1"), rec("k", "mget seen evt-2"),
		rec("k", "raw-get seen\x00evt-1"), rec("k", "mdel seen evt-1"), rec("k", "mget seen evt-1"))
	want := []string{"ok", "yes", "absent", "yes", "ok", "absent"}
	if !slices.Equal(values(outs), want) {
		t.Fatalf("got %q, want %q", values(outs), want)
	}
	g.mustProcess(rec("k", "mput seen evt-3 v"))
	if raw, ok := g.stateOf("k", "seen\x00evt-3"); !ok || string(raw) != "v" {
		t.Fatalf("state seen\\0evt-3 = %q, %v", raw, ok)
	}
	// "m" + NUL + key may use 1024 bytes, not more.
	g.mustProcess(rec("k", "mput m "+strings.Repeat("k", 1022)+" v"))
	_, err := g.process(rec("k", "mput m "+strings.Repeat("k", 1023)+" v"))
	if !errors.Is(err, host.ErrRecordFailed) || !hasLine(g.log.guestLines(t), "error", "map key of 1023 bytes is too long") {
		t.Fatalf("1023-byte map key: %v", err)
	}
}

// Every failure of ws_operator_process surfaces as the ABI says, with the
// reason logged at error level.
func TestFailures(t *testing.T) {
	cases := []struct {
		cmd  string
		kind error
		code abi.Code
		log  string
	}{
		{"fail", host.ErrRecordFailed, abi.ErrGuestRecord, "the record goes to dead letters: probe: failing as asked, code 42"},
		{"code 7", host.ErrRecordFailed, abi.ErrGuestRecord, "returned 7 (UNKNOWN_CODE) without a message"},
		{"code -5", host.ErrRecordFailed, abi.ErrGuestRecord, "returned -5 (TOO_LARGE) without a message"},
		{"code -102", host.ErrTrap, abi.ErrGuestInternal, "returned -102 (GUEST_INTERNAL)"},
		{"emit-to nope", host.ErrRecordFailed, abi.ErrGuestRecord, `emit to "nope": UNKNOWN_OUTPUT`},
		{"big 1048577", host.ErrRecordFailed, abi.ErrGuestRecord, `emit to "out": TOO_LARGE`},
		{"big-header 1048577", host.ErrRecordFailed, abi.ErrGuestRecord, `emit to "out": TOO_LARGE`},
		{"emit-n 65", host.ErrRecordFailed, abi.ErrGuestRecord, `emit to "out": QUOTA_EXCEEDED`},
		{"put  3", host.ErrRecordFailed, abi.ErrGuestRecord, `state put "": BAD_ARGUMENT`},
		{"put big 1048577", host.ErrRecordFailed, abi.ErrGuestRecord, `state put "big": TOO_LARGE`},
		{"int 007", host.ErrRecordFailed, abi.ErrGuestRecord, `"007" is not a decimal integer`},
		{"frobnicate", host.ErrRecordFailed, abi.ErrGuestRecord, `unknown command "frobnicate"`},
		{"trap", host.ErrTrap, abi.OK, ""},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			g := startProbe(t, "")
			_, err := g.process(rec("k", "add n 1"), rec("k", c.cmd), rec("k", "add n 1"))
			var ge *host.GuestError
			if !errors.As(err, &ge) || !errors.Is(err, c.kind) || ge.Code != c.code || ge.Record != 1 {
				t.Fatalf("got %v, want %v with %s at record 1", err, c.kind, c.code)
			}
			if c.log != "" && !hasLine(g.log.guestLines(t), "error", c.log) {
				t.Errorf("no error line containing %q", c.log)
			}
			if _, ok := g.stateOf("k", "n"); ok {
				t.Error("state of the failed batch was kept")
			}
		})
	}
}

// Emits up to the quota and values up to the limit are fine.
func TestEmitLimits(t *testing.T) {
	g := startProbe(t, "")
	if outs := g.mustProcess(rec("k", "emit-n 64")); len(outs) != 64 {
		t.Fatalf("emit-n 64: %d outputs", len(outs))
	}
	outs := g.mustProcess(rec("k", "big 1048576"), rec("k", "big-header 100000"))
	if len(outs[0].Value) != 1<<20 || len(decodeHeaders(t, outs[1].Headers)[1]) != 100_000 {
		t.Fatalf("big emits: value %d bytes", len(outs[0].Value))
	}
}

// The five levels reach the host's log; unknown levels clamp to error and
// long lines are cut at the SDK's line buffer.
func TestLogLevels(t *testing.T) {
	g := startProbe(t, "")
	g.log.guestLines(t) // drop the init line
	g.mustProcess(rec("k", "log"))
	lines := g.log.guestLines(t)
	want := []logLine{{"trace", "probe trace 0", true}, {"debug", "probe debug 1", true}, {"info", "probe info two", true},
		{"warn", "probe warn 3", true}, {"error", "probe error 4", true}, {"error", "probe clamped", true}, {"info", "probe plain", true}}
	if len(lines) != len(want)+1 || !slices.Equal(lines[:len(want)], want) {
		t.Fatalf("log lines:\n got %+v\nwant %+v", lines, want)
	}
	if long := lines[len(want)].Message; len(long) != 4095 || strings.Trim(long, "x") != "" {
		t.Fatalf("long line: %d bytes", len(long))
	}
}

// Processing time is the host's clock at the start of the batch.
func TestProcessingTime(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	g := newGuest(t, probeWasm(t), host.InstanceConfig{Clock: func() time.Time { return at }}).mustStart()
	outs := g.mustProcess(rec("k", "ptime"))
	if got, want := string(outs[0].Value), fmt.Sprint(at.UnixNano()); got != want {
		t.Fatalf("processing time %s, want %s", got, want)
	}
}

// Batches larger than the ws_alloc buffer grow it; smaller ones reuse it.
func TestAllocGrowth(t *testing.T) {
	g := startProbe(t, "")
	for _, n := range []int{10, 200_000, 10, 3_000_000, 100} {
		recs := []host.Record{rec("k", "nop "+strings.Repeat("x", n)), rec("k", "add n 1")}
		outs := g.mustProcess(recs...)
		if len(outs) != 1 {
			t.Fatalf("batch with a %d-byte record: %d outputs", n, len(outs))
		}
	}
	if raw, _ := g.stateOf("k", "n"); raw[0] != 5 {
		t.Fatalf("n = % x, want 5", raw)
	}
}
