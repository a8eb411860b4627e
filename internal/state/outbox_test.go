package state

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
)

func TestOutboxKeyRoundTripAndOrder(t *testing.T) {
	keys := []OutboxKey{
		{Epoch: 1, Operator: "b", Task: 0, Seq: 0},
		{Epoch: 1, Operator: "b", Task: 0, Seq: 1},
		{Epoch: 1, Operator: "b", Task: 1, Seq: 0},
		{Epoch: 1, Operator: "bb", Task: 0, Seq: 0},
		{Epoch: 2, Operator: "a", Task: 0, Seq: 0},
		{Epoch: math.MaxUint64, Operator: "a", Task: math.MaxUint16, Seq: math.MaxUint32},
	}
	var prev []byte
	for _, k := range keys {
		b := AppendOutboxKey(nil, k)
		got, err := DecodeOutboxKey(b)
		if err != nil || got != k {
			t.Fatalf("round trip %+v: %+v %v", k, got, err)
		}
		if prev != nil && string(prev) >= string(b) {
			t.Fatalf("key of %+v does not sort after the previous one", k)
		}
		prev = b
	}
}

func TestOutboxValueRoundTrip(t *testing.T) {
	for _, m := range []OutboxMessage{
		{},
		{Subject: "risk.totals", MsgID: "p/op/e-1/0", Headers: []byte{0, 1}, Data: []byte(`{"x":1}`)},
	} {
		got, err := DecodeOutboxValue(AppendOutboxValue(nil, m))
		if err != nil {
			t.Fatal(err)
		}
		if got.Subject != m.Subject || got.MsgID != m.MsgID || string(got.Headers) != string(m.Headers) || string(got.Data) != string(m.Data) {
			t.Fatalf("round trip %+v: %+v", m, got)
		}
	}
}

func TestOutboxDecodeRejectsDamage(t *testing.T) {
	good := AppendOutboxValue(nil, OutboxMessage{Subject: "s", MsgID: "id", Data: []byte("d")})
	for name, b := range map[string][]byte{
		"empty":       nil,
		"version":     append([]byte{2}, good[1:]...),
		"truncated":   good[:len(good)-1],
		"trailing":    append(append([]byte{}, good...), 0),
		"huge length": {1, 0xff, 0xff, 0xff, 0xff},
	} {
		if _, err := DecodeOutboxValue(b); !errors.Is(err, ErrCorruptOutbox) {
			t.Errorf("%s: %v, want ErrCorruptOutbox", name, err)
		}
	}
	for name, b := range map[string][]byte{
		"empty":      nil,
		"state key":  AppendStateKey(nil, "op", 0, []byte("n"), nil),
		"no op":      append(AppendOutboxKey(nil, OutboxKey{Epoch: 1, Operator: "x"})[:9], 0, 0, 0, 0, 0, 0, 0),
		"truncated":  AppendOutboxKey(nil, OutboxKey{Epoch: 1, Operator: "x"})[:14],
		"extra byte": append(AppendOutboxKey(nil, OutboxKey{Epoch: 1, Operator: "x"}), 0),
	} {
		if _, err := DecodeOutboxKey(b); !errors.Is(err, ErrCorruptOutbox) {
			t.Errorf("key %s: %v, want ErrCorruptOutbox", name, err)
		}
	}
}

// TestOutboxScanAndDelete: a scan sees the epochs up to its bound in key
// order; a delete removes exactly those; state keys are untouched.
func TestOutboxScanAndDelete(t *testing.T) {
	s := openStore(t)
	b := s.NewBatch()
	for epoch := uint64(1); epoch <= 3; epoch++ {
		for seq := uint32(0); seq < 2; seq++ {
			k := OutboxKey{Epoch: epoch, Operator: "op", Seq: seq}
			if err := PutOutbox(b, k, OutboxMessage{Subject: "out", MsgID: fmt.Sprintf("%d-%d", epoch, seq)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Set(AppendStateKey(nil, "op", 0, []byte("n"), []byte("k")), AppendValue(nil, Value{Data: []byte("v")}), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	ids := func(max uint64) []string {
		var out []string
		if err := s.ScanOutbox(max, func(_ OutboxKey, m OutboxMessage) error { out = append(out, m.MsgID); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := ids(2); !reflect.DeepEqual(got, []string{"1-0", "1-1", "2-0", "2-1"}) {
		t.Fatalf("scan ≤ 2: %v", got)
	}
	if err := s.DeleteOutbox(2); err != nil {
		t.Fatal(err)
	}
	if got := ids(math.MaxUint64); !reflect.DeepEqual(got, []string{"3-0", "3-1"}) {
		t.Fatalf("after delete ≤ 2: %v", got)
	}
	n := 0
	if err := s.Scan("op", KeyGroupRange{0, DefaultMaxParallelism}, func(int, []byte, []byte, []byte) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("state entries after outbox delete: %d %v", n, err)
	}
}

func FuzzDecodeOutbox(f *testing.F) {
	f.Add(AppendOutboxKey(nil, OutboxKey{Epoch: 7, Operator: "op", Task: 1, Seq: 2}), AppendOutboxValue(nil, OutboxMessage{Subject: "s", MsgID: "m", Data: []byte("d")}))
	f.Add([]byte{'o'}, []byte{1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, key, val []byte) {
		if k, err := DecodeOutboxKey(key); err == nil {
			if string(AppendOutboxKey(nil, k)) != string(key) {
				t.Fatalf("key %x decodes to %+v, which encodes differently", key, k)
			}
		}
		if m, err := DecodeOutboxValue(val); err == nil {
			if string(AppendOutboxValue(nil, m)) != string(val) {
				t.Fatalf("value %x decodes to %+v, which encodes differently", val, m)
			}
		}
	})
}
