//go:build !wasip1

package sdktest_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

var count = wasmstream.NewValueState("count", wasmstream.Int64Codec)

// counter counts records per key and emits the value; values starting
// with "bad" fail, "panic" panics. calls counts Process calls per value.
type counter struct {
	calls map[string]int
	init  func() error
}

func newCounter() *counter { return &counter{calls: map[string]int{}} }

func (c *counter) Init([]byte) error {
	if c.init != nil {
		return c.init()
	}
	return nil
}

func (c *counter) Process(r *wasmstream.Record) error {
	c.calls[string(r.Value)]++
	n, _, err := count.Get()
	if err != nil {
		return err
	}
	if err := count.Put(n + 1); err != nil {
		return err
	}
	if err := wasmstream.Emit("out", r.Key, r.Value); err != nil {
		return err
	}
	switch v := string(r.Value); {
	case strings.HasPrefix(v, "bad"):
		return fmt.Errorf("record %s is bad", v)
	case v == "panic":
		panic("boom")
	}
	return nil
}

func rec(key, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(key), Value: []byte(value)}
}

func countOf(t *testing.T, h *sdktest.Harness, key string) int64 {
	t.Helper()
	raw, ok := h.State(key, "count")
	if !ok {
		return 0
	}
	n, err := wasmstream.Int64Codec.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDeadLettersAreIsolatedAndTheRestCommitted(t *testing.T) {
	op := newCounter()
	h, err := sdktest.New(op, sdktest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(rec("a", "ok1"), rec("a", "bad1"), rec("b", "ok2"), rec("a", "bad2"), rec("a", "ok3"))
	if err != nil {
		t.Fatal(err)
	}
	var dead, out []string
	for _, d := range res.DeadLetters {
		dead = append(dead, string(d.Record.Value))
		if !strings.Contains(d.Reason, "record "+string(d.Record.Value)+" is bad") {
			t.Errorf("dead letter %s has reason %q", d.Record.Value, d.Reason)
		}
	}
	for _, o := range res.Outputs {
		out = append(out, string(o.Value))
	}
	if fmt.Sprint(dead) != "[bad1 bad2]" || fmt.Sprint(out) != "[ok1 ok2 ok3]" {
		t.Fatalf("dead letters %v, outputs %v; want [bad1 bad2] and [ok1 ok2 ok3] once each", dead, out)
	}
	// The failed attempts' writes are gone: a counts ok1 and ok3 only.
	if a, b := countOf(t, h, "a"), countOf(t, h, "b"); a != 2 || b != 1 {
		t.Fatalf("count a=%d b=%d, want 2 and 1", a, b)
	}
	// ok1 ran in all three attempts, as the host re-runs the batch.
	if op.calls["ok1"] != 3 || op.calls["bad1"] != 1 || op.calls["ok3"] != 1 {
		t.Fatalf("Process calls %v", op.calls)
	}
}

func TestTrapRollsBackTheBatch(t *testing.T) {
	h, err := sdktest.New(newCounter(), sdktest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(rec("a", "ok"), rec("a", "panic"))
	var trap *sdktest.TrapError
	if !errors.Is(err, sdktest.ErrTrap) || !errors.As(err, &trap) || trap.Record != 1 || trap.Value != "boom" || len(trap.Stack) == 0 {
		t.Fatalf("error %v, want a TrapError for record 1", err)
	}
	if len(res.Outputs) != 0 || h.StateLen() != 0 {
		t.Fatalf("a trapped batch left %d outputs and %d state values", len(res.Outputs), h.StateLen())
	}
}

func TestStateCallsOutsideARecordAbort(t *testing.T) {
	op := newCounter()
	op.init = func() error {
		_, _, err := count.Get()
		return err
	}
	_, err := sdktest.New(op, sdktest.Options{})
	var ab *sdktest.AbortError
	if !errors.Is(err, sdktest.ErrAbort) || !errors.As(err, &ab) || ab.Code != abi.ErrNoRecord {
		t.Fatalf("state_get in Init: %v, want an AbortError with NO_RECORD", err)
	}
}

func TestInitFailures(t *testing.T) {
	op := newCounter()
	op.init = func() error { return errors.New("max_cents must be positive") }
	if _, err := sdktest.New(op, sdktest.Options{}); !errors.Is(err, sdktest.ErrInit) || !strings.Contains(err.Error(), "max_cents must be positive") {
		t.Fatalf("failing Init: %v", err)
	}
	if _, err := sdktest.New(nil, sdktest.Options{}); !errors.Is(err, sdktest.ErrInit) || !strings.Contains(err.Error(), "Register") {
		t.Fatalf("nil operator: %v", err)
	}
}

func TestSeededState(t *testing.T) {
	h, err := sdktest.New(newCounter(), sdktest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h.SetState("a", "count", wasmstream.Int64Codec.Encode(nil, 41))
	h.SetState("a", "m\x00k", []byte("v"))
	if _, err := h.Process(rec("a", "x")); err != nil {
		t.Fatal(err)
	}
	if n := countOf(t, h, "a"); n != 42 {
		t.Fatalf("count = %d, want 41 seeded + 1", n)
	}
	if v, ok := h.MapState("a", "m", "k"); !ok || string(v) != "v" {
		t.Fatalf("MapState = %q %v", v, ok)
	}
	if h.StateLen() != 2 {
		t.Fatalf("StateLen = %d, want 2", h.StateLen())
	}
}

func TestEmptyProcess(t *testing.T) {
	h, err := sdktest.New(newCounter(), sdktest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.Process(); err != nil || len(res.Outputs)+len(res.DeadLetters)+len(res.Logs) != 0 {
		t.Fatalf("empty batch: %+v, %v", res, err)
	}
}

// Harnesses in parallel goroutines take turns; their state never mixes.
func TestParallelHarnesses(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := sdktest.New(newCounter(), sdktest.Options{})
			if err != nil {
				errs <- err
				return
			}
			for range 50 {
				if _, err := h.Process(rec("k", "v")); err != nil {
					errs <- err
					return
				}
			}
			if raw, _ := h.State("k", "count"); string(raw) != string(wasmstream.Int64Codec.Encode(nil, 50)) {
				errs <- fmt.Errorf("harness %d: count %x, want 50", i, raw)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
