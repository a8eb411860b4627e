//go:build !wasip1

package wasmstream_test

import (
	"testing"
	"time"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

// Two dedup sets, as package variables like an operator declares them.
var (
	dedup60  = wasmstream.NewDedup("seen60", 60*time.Second)
	dedup120 = wasmstream.NewDedup("seen120", 120*time.Second)
)

// dedupOperator emits a record unless its value, the event id, is a
// duplicate within d's TTL.
func dedupOperator(d *wasmstream.Dedup) processFunc {
	return func(r *wasmstream.Record) error {
		dup, err := d.IsDuplicate(string(r.Value))
		if err != nil || dup {
			return err
		}
		return wasmstream.Emit("out", r.Key, r.Value)
	}
}

// fakeClock is a settable processing-time clock.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// TestDedupTracedCase is the traced case of the TTL design: the entry of id
// 42 is created at t=0; a redelivery at t=65 s is processed a second time
// with a 60 s TTL and caught with a 120 s TTL.
func TestDedupTracedCase(t *testing.T) {
	for _, tc := range []struct {
		dedup     *wasmstream.Dedup
		processed int
	}{{dedup60, 2}, {dedup120, 1}} {
		t.Run(tc.dedup.Name(), func(t *testing.T) {
			clock := &fakeClock{now: time.Unix(1_000_000, 0)}
			h := harness(t, sdktest.Options{Clock: clock.Now}, dedupOperator(tc.dedup))
			n := len(mustProcess(t, h, rec("acct", "42")).Outputs)
			clock.now = clock.now.Add(30 * time.Second)
			n += len(mustProcess(t, h, rec("acct", "42")).Outputs) // within both TTLs
			clock.now = clock.now.Add(35 * time.Second)            // t = 65 s
			n += len(mustProcess(t, h, rec("acct", "42")).Outputs)
			if n != tc.processed {
				t.Fatalf("id 42 processed %d times, want %d", n, tc.processed)
			}
		})
	}
}

// TestDedupStorageLayout: a remembered id is the map entry name\0id = 0x01,
// the layout of payment-risk's seen set, and the ids are scoped per key.
func TestDedupStorageLayout(t *testing.T) {
	h := harness(t, sdktest.Options{}, dedupOperator(dedup120))
	res := mustProcess(t, h, rec("a", "e1"), rec("b", "e1"), rec("a", "e1"))
	if len(res.Outputs) != 2 {
		t.Fatalf("outputs %d, want 2 (e1 once per key)", len(res.Outputs))
	}
	if v, ok := h.MapState("a", "seen120", "e1"); !ok || string(v) != "\x01" {
		t.Fatalf("stored %q %v, want 0x01", v, ok)
	}
}

// TestDeclarationsReachTheHost: every declared state, with its version and
// TTL, is handed to the host in Init; the dedup sets declare their TTL.
func TestDeclarationsReachTheHost(t *testing.T) {
	wasmstream.NewValueState("decl-total", wasmstream.Int64Codec).Declare(wasmstream.StateOptions{Version: 3, NoTTL: true})
	wasmstream.DeclareState("decl-session", wasmstream.StateOptions{TTL: &wasmstream.TTL{
		Duration: time.Minute, Update: wasmstream.OnReadAndWrite,
		Visibility: wasmstream.ReturnExpiredIfNotCleaned, EventTime: true}})
	h := harness(t, sdktest.Options{}, dedupOperator(dedup60))
	got := map[string]sdktest.Declaration{}
	for _, d := range h.Declarations() {
		got[d.Name] = d
	}
	if d := got["seen60"]; d.Version != 1 || d.TTL == nil || *d.TTL != (wasmstream.TTL{Duration: time.Minute}) {
		t.Errorf("seen60 declared %+v, want version 1, TTL 1m on create and write", d)
	}
	if d := got["decl-total"]; d.Version != 3 || !d.NoTTL || d.TTL != nil {
		t.Errorf("decl-total declared %+v, want version 3, NoTTL", d)
	}
	want := wasmstream.TTL{Duration: time.Minute, Update: wasmstream.OnReadAndWrite,
		Visibility: wasmstream.ReturnExpiredIfNotCleaned, EventTime: true}
	if d := got["decl-session"]; d.TTL == nil || *d.TTL != want {
		t.Errorf("decl-session declared %+v, want %+v", d, want)
	}
}

// TestReadAndWriteKeepsAValueInUse: under OnReadAndWrite a value read
// within its TTL lives on; under OnCreateAndWrite it expires.
func TestReadAndWriteKeepsAValueInUse(t *testing.T) {
	for _, update := range []wasmstream.TTLUpdate{wasmstream.OnCreateAndWrite, wasmstream.OnReadAndWrite} {
		name := "touch-" + string(rune('0'+update))
		st := wasmstream.NewValueState(name, wasmstream.StringCodec).
			Declare(wasmstream.StateOptions{TTL: &wasmstream.TTL{Duration: 10 * time.Second, Update: update}})
		clock := &fakeClock{now: time.Unix(1_000_000, 0)}
		found := false
		h := harness(t, sdktest.Options{Clock: clock.Now}, func(r *wasmstream.Record) error {
			if string(r.Value) == "put" {
				return st.Put("v")
			}
			_, ok, err := st.Get()
			found = ok
			return err
		})
		mustProcess(t, h, rec("k", "put"))
		for range 3 { // three reads 8 s apart: 24 s after the put
			clock.now = clock.now.Add(8 * time.Second)
			mustProcess(t, h, rec("k", "get"))
		}
		if want := update == wasmstream.OnReadAndWrite; found != want {
			t.Errorf("update %d: value found after 24 s of reads = %v, want %v", update, found, want)
		}
	}
}
