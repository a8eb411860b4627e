//go:build !wasip1

package wasmstream

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// scriptHost is a minimal host for the driver's tests: it counts
// record_next calls, can stop answering 1 early, and keeps the log.
type scriptHost struct {
	records   int // how many times record_next answers 1
	nexts     int // record_next calls
	logs      []string
	processed []int // record_next count at each Process call
}

func (h *scriptHost) RecordNext() int32 {
	h.nexts++
	if h.nexts <= h.records {
		return 1
	}
	return 0
}
func (h *scriptHost) StateGet(name, out []byte) int32           { return int32(abi.ErrNotFound) }
func (h *scriptHost) StatePut(name, value []byte) int32         { return 0 }
func (h *scriptHost) StateDelete(name []byte) int32             { return 0 }
func (h *scriptHost) Emit(output, key, value, hdr []byte) int32 { return 0 }
func (h *scriptHost) Log(level int32, msg []byte)               { h.logs = append(h.logs, string(msg)) }
func (h *scriptHost) EventTime() int64                          { return 0 }
func (h *scriptHost) ProcessingTime() int64                     { return 0 }
func (h *scriptHost) StateDeclare(name []byte, version int32, ttlMillis int64, flags int32) int32 {
	return 0
}

// funcOperator adapts functions to Operator.
type funcOperator struct {
	init    func([]byte) error
	process func(*Record) error
}

func (o funcOperator) Init(c []byte) error {
	if o.init == nil {
		return nil
	}
	return o.init(c)
}

func (o funcOperator) Process(r *Record) error {
	if o.process == nil {
		return nil
	}
	return o.process(r)
}

func withHost(t *testing.T, h hostcall.Host) {
	t.Helper()
	release := hostcall.Install(h)
	t.Cleanup(release)
}

func batchOf(values ...string) []byte {
	b := abi.AppendBatchHeader(nil, uint32(len(values)))
	for _, v := range values {
		b = abi.AppendRecord(b, &abi.Record{Key: []byte("k"), Value: []byte(v)})
	}
	return b
}

func TestProcessBatchCallsRecordNextBeforeEachRecord(t *testing.T) {
	h := &scriptHost{records: 3}
	withHost(t, h)
	op := funcOperator{process: func(r *Record) error {
		h.processed = append(h.processed, h.nexts)
		return nil
	}}
	if code := processBatch(op, batchOf("a", "b", "c")); code != abi.OK {
		t.Fatalf("code %v, logs %q", code, h.logs)
	}
	if want := []int{1, 2, 3}; !equalInts(h.processed, want) {
		t.Fatalf("record_next count at each Process = %v, want %v", h.processed, want)
	}
	if h.nexts != 3 {
		t.Fatalf("%d record_next calls for 3 records, want 3", h.nexts)
	}
}

func TestProcessBatchStopsAtFailingRecord(t *testing.T) {
	h := &scriptHost{records: 3}
	withHost(t, h)
	op := funcOperator{process: func(r *Record) error {
		if string(r.Value) == "bad" {
			return errors.New("value is bad")
		}
		return nil
	}}
	if code := processBatch(op, batchOf("a", "bad", "c")); code != abi.ErrGuestRecord {
		t.Fatalf("code %v, want GUEST_RECORD", code)
	}
	if h.nexts != 2 {
		t.Fatalf("record_next called %d times, want 2: the host must be on the failing record", h.nexts)
	}
	if len(h.logs) != 1 || !strings.Contains(h.logs[0], "value is bad") {
		t.Fatalf("logs %q, want the Process error", h.logs)
	}
}

func TestProcessBatchHostWithFewerRecords(t *testing.T) {
	h := &scriptHost{records: 1}
	withHost(t, h)
	if code := processBatch(funcOperator{}, batchOf("a", "b")); code != abi.ErrGuestInternal {
		t.Fatalf("code %v, want GUEST_INTERNAL", code)
	}
	if len(h.logs) != 1 || !strings.Contains(h.logs[0], "host has no record 1") {
		t.Fatalf("logs %q", h.logs)
	}
}

func TestProcessBatchMalformed(t *testing.T) {
	good := batchOf("a")
	withBadHeaders := abi.AppendBatchHeader(nil, 1)
	withBadHeaders = abi.AppendRecord(withBadHeaders, &abi.Record{Headers: []byte{1, 2}})
	for name, b := range map[string][]byte{
		"empty":        nil,
		"short header": {1, 0},
		"truncated":    good[:len(good)-1],
		"trailing":     append(append([]byte(nil), good...), 0),
		"bad headers":  withBadHeaders,
	} {
		h := &scriptHost{records: 10}
		release := hostcall.Install(h)
		code := processBatch(funcOperator{}, b)
		release()
		if code != abi.ErrGuestInternal || len(h.logs) == 0 {
			t.Errorf("%s: code %v logs %q, want GUEST_INTERNAL and a log line", name, code, h.logs)
		}
	}
}

func TestProcessBatchRecordFields(t *testing.T) {
	withHost(t, &scriptHost{records: 1})
	b := abi.AppendBatchHeader(nil, 1)
	b = abi.AppendRecord(b, &abi.Record{EventTime: 1_700_000_000_123_456_789, Input: 2,
		Key: []byte("k"), Value: []byte("v"), Headers: abi.AppendHeader(nil, "h", "x")})
	var got Record
	var hv string
	processBatch(funcOperator{process: func(r *Record) error {
		got = *r
		hv, _ = r.Header("h")
		return nil
	}}, b)
	if string(got.Key) != "k" || string(got.Value) != "v" || got.Input != 2 || hv != "x" ||
		got.EventTime.UnixNano() != 1_700_000_000_123_456_789 || got.EventTime.Location().String() != "UTC" {
		t.Fatalf("record = %+v header %q", got, hv)
	}
}

func TestProcessBatchDoesNotAllocate(t *testing.T) {
	withHost(t, &scriptHost{records: 1 << 30})
	b := batchOf("a", "b", "c", "d")
	var op Operator = funcOperator{process: func(*Record) error { return nil }}
	if a := testing.AllocsPerRun(100, func() { processBatch(op, b) }); a != 0 {
		t.Fatalf("processBatch allocates %v times per batch", a)
	}
}

func TestInitOperator(t *testing.T) {
	h := &scriptHost{}
	withHost(t, h)
	if code := initOperator(nil, nil); code != abi.ErrGuestInternal || !strings.Contains(h.logs[0], "Register") {
		t.Fatalf("no operator: code %v logs %q", code, h.logs)
	}
	var seen []byte
	cfg := []byte("cfg")
	op := funcOperator{init: func(c []byte) error { seen = c; return nil }}
	if code := initOperator(op, cfg); code != abi.OK {
		t.Fatalf("code %v", code)
	}
	cfg[0] = 'X'
	if string(seen) != "cfg" {
		t.Fatalf("Init got a config aliasing the host buffer: %q", seen)
	}
	initOperator(op, []byte{})
	if seen != nil {
		t.Fatalf("empty config reached Init as %q, want nil", seen)
	}
	failing := funcOperator{init: func([]byte) error { return errors.New("max_cents is negative") }}
	if code := initOperator(failing, nil); code != abi.ErrGuestConfig || !strings.Contains(h.logs[len(h.logs)-1], "max_cents is negative") {
		t.Fatalf("failing Init: code %v logs %q", code, h.logs)
	}
}

// FuzzProcessBatch feeds arbitrary bytes as a batch: the SDK must answer
// OK or GUEST_INTERNAL, never panic, and call Process once per record_next.
func FuzzProcessBatch(f *testing.F) {
	f.Add(batchOf())
	f.Add(batchOf("a", "b"))
	f.Add([]byte{1, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		h := &scriptHost{records: 1 << 30}
		release := hostcall.Install(h)
		defer release()
		calls := 0
		code := processBatch(funcOperator{process: func(*Record) error { calls++; return nil }}, b)
		if code != abi.OK && code != abi.ErrGuestInternal {
			t.Fatalf("code %v", code)
		}
		if calls != h.nexts && calls != h.nexts-1 {
			t.Fatalf("%d Process calls for %d record_next calls", calls, h.nexts)
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
