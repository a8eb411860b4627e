//go:build !wasip1

package sdktest

import (
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

func newTestHost(opts Options) *fakeHost {
	f := newFakeHost(&opts, newStore(), &declarations{}, []Record{{Key: []byte("k")}}, 0)
	f.RecordNext()
	return f
}

func TestFakeHostStateCodes(t *testing.T) {
	f := newTestHost(Options{MaxValueLen: 4})
	long := []byte(strings.Repeat("n", abi.MaxStateNameLen+1))
	tests := []struct {
		name string
		got  int32
		want abi.Code
	}{
		{"get missing", f.StateGet([]byte("a"), make([]byte, 8)), abi.ErrNotFound},
		{"get empty name", f.StateGet(nil, nil), abi.ErrBadArgument},
		{"get long name", f.StateGet(long, nil), abi.ErrBadArgument},
		{"put", f.StatePut([]byte("a"), []byte("1234")), abi.OK},
		{"put too large", f.StatePut([]byte("a"), []byte("12345")), abi.ErrTooLarge},
		{"put long name", f.StatePut(long, nil), abi.ErrBadArgument},
		{"delete empty name", f.StateDelete(nil), abi.ErrBadArgument},
		{"delete missing", f.StateDelete([]byte("b")), abi.OK},
	}
	for _, tt := range tests {
		if abi.Code(tt.got) != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, abi.Code(tt.got), tt.want)
		}
	}
}

// state_get writes nothing when the value does not fit, and always
// returns the value's length.
func TestFakeHostStateGetCapacity(t *testing.T) {
	f := newTestHost(Options{})
	f.StatePut([]byte("a"), []byte("hello"))
	small := []byte("xx")
	if n := f.StateGet([]byte("a"), small); n != 5 || string(small) != "xx" {
		t.Fatalf("get into 2 bytes: %d, buffer %q; want 5 and untouched", n, small)
	}
	exact := make([]byte, 5)
	if n := f.StateGet([]byte("a"), exact); n != 5 || string(exact) != "hello" {
		t.Fatalf("get into 5 bytes: %d, %q", n, exact)
	}
}

func TestFakeHostEmitCodes(t *testing.T) {
	f := newTestHost(Options{Outputs: []string{"out"}, MaxValueLen: 3, MaxEmitsPerRecord: 1})
	tests := []struct {
		name                        string
		output, key, value, headers string
		want                        abi.Code
	}{
		{"empty name", "", "", "", "", abi.ErrBadArgument},
		{"long name", strings.Repeat("o", 256), "", "", "", abi.ErrBadArgument},
		{"unknown output before size", "other", "", "1234", "", abi.ErrUnknownOutput},
		{"key too large", "out", "1234", "", "", abi.ErrTooLarge},
		{"value too large", "out", "", "1234", "", abi.ErrTooLarge},
		{"headers too large before malformed", "out", "", "", "\x01\x00\x00\x00", abi.ErrTooLarge},
		{"bad headers", "out", "", "", "\x01", abi.ErrBadArgument},
		{"opaque name bytes", "out", "", "123", "", abi.OK},
		{"quota of the record", "out", "", "", "", abi.ErrQuotaExceeded},
	}
	for _, tt := range tests {
		got := abi.Code(f.Emit([]byte(tt.output), []byte(tt.key), []byte(tt.value), []byte(tt.headers)))
		if got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if len(f.outputs) != 1 {
		t.Fatalf("%d outputs recorded, want the one accepted", len(f.outputs))
	}
}

// The emit quota is per input record: record_next resets it.
func TestFakeHostQuotaIsPerRecord(t *testing.T) {
	opts := Options{}
	f := newFakeHost(&opts, newStore(), &declarations{}, []Record{{}, {}}, 0)
	for r := range 2 {
		f.RecordNext()
		for i := range defaultMaxEmitsPerRecord + 1 {
			want := abi.OK
			if i == defaultMaxEmitsPerRecord {
				want = abi.ErrQuotaExceeded
			}
			if code := abi.Code(f.Emit([]byte("out"), nil, nil, nil)); code != want {
				t.Fatalf("record %d emit %d: %v, want %v", r, i, code, want)
			}
		}
	}
}

func TestFakeHostLogLimits(t *testing.T) {
	f := newTestHost(Options{})
	f.Log(7, []byte(strings.Repeat("x", maxLogLineLen+10)))
	if l := f.logs[0]; l.Level != 4 || len(l.Msg) != maxLogLineLen {
		t.Fatalf("unknown level logged at %v, %d bytes; want error, %d bytes", l.Level, len(l.Msg), maxLogLineLen)
	}
	for range maxLogLinesPerCall + 4 {
		f.Log(2, []byte("x"))
	}
	f.finish()
	last := f.logs[len(f.logs)-1]
	if len(f.logs) != maxLogLinesPerCall+1 || last.Msg != "guest log lines dropped: 5" {
		t.Fatalf("%d lines, last %q", len(f.logs), last.Msg)
	}
}

func TestFakeHostNoRecordAborts(t *testing.T) {
	f := newFakeHost(&Options{}, newStore(), &declarations{}, []Record{{}}, 0)
	init := newInitHost(&Options{}, newStore(), &declarations{}, 0)
	for name, call := range map[string]func(){
		"state_get before record_next":  func() { f.StateGet([]byte("a"), nil) },
		"emit before record_next":       func() { f.Emit([]byte("out"), nil, nil, nil) },
		"event_time before record_next": func() { f.EventTime() },
		"record_next in Init":           func() { init.RecordNext() },
		"state_put in Init":             func() { init.StatePut([]byte("a"), nil) },
	} {
		func() {
			defer func() {
				if a, ok := recover().(abort); !ok || a.code != abi.ErrNoRecord {
					t.Errorf("%s did not abort with NO_RECORD", name)
				}
			}()
			call()
		}()
	}
	// Logging and the clock are allowed everywhere.
	init.Log(2, []byte("ok"))
	init.ProcessingTime()
	f.RecordNext()
	if f.RecordNext() != 0 || f.inRecord() || f.RecordNext() != 0 {
		t.Fatal("record_next past the last record did not end the batch for good")
	}
}
