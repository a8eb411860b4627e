//go:build !wasip1

package wasmstream_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestValueStateIsScopedToTheRecordKey(t *testing.T) {
	count := wasmstream.NewValueState("count", wasmstream.Int64Codec)
	h := harness(t, sdktest.Options{}, func(r *wasmstream.Record) error {
		n, _, err := count.Get()
		if err != nil {
			return err
		}
		return count.Put(n + 1)
	})
	mustProcess(t, h, rec("a", ""), rec("b", ""), rec("a", ""))
	mustProcess(t, h, rec("a", ""))
	for key, want := range map[string]int64{"a": 3, "b": 1} {
		raw, ok := h.State(key, "count")
		got, err := wasmstream.Int64Codec.Decode(raw)
		if !ok || err != nil || got != want {
			t.Errorf("count of %s = %d (found %v, %v), want %d", key, got, ok, err, want)
		}
	}
}

func TestValueStateGetMissingAndDelete(t *testing.T) {
	s := wasmstream.NewValueState("s", wasmstream.StringCodec)
	var found []bool
	h := harness(t, sdktest.Options{}, func(r *wasmstream.Record) error {
		_, ok, err := s.Get()
		found = append(found, ok)
		if err != nil {
			return err
		}
		switch string(r.Value) {
		case "put":
			return s.Put("v")
		case "delete":
			return s.Delete()
		}
		return nil
	})
	mustProcess(t, h, rec("k", "get"), rec("k", "put"), rec("k", "delete"), rec("k", "get"), rec("k", "delete"))
	if want := []bool{false, false, true, false, false}; !equalBools(found, want) {
		t.Fatalf("found = %v, want %v", found, want)
	}
	if _, ok := h.State("k", "s"); ok {
		t.Fatal("deleted value still committed")
	}
}

// Values larger than the SDK's first read buffer take the host's
// grow-and-retry path of state_get.
func TestValueStateLargeValues(t *testing.T) {
	s := wasmstream.NewValueState("blob", wasmstream.BytesCodec)
	sizes := []int{0, 255, 256, 257, 4096, 100_000, 1 << 20}
	var got [][]byte
	h := harness(t, sdktest.Options{}, func(r *wasmstream.Record) error {
		if len(r.Value) > 0 {
			return s.Put(r.Value)
		}
		v, _, err := s.Get()
		got = append(got, v)
		return err
	})
	for _, n := range sizes {
		want := bytes.Repeat([]byte{byte(n)}, n)
		mustProcess(t, h, sdktest.Record{Key: []byte("k"), Value: want}, rec("k", ""))
		if n == 0 {
			continue // an empty value is a Get, not a Put
		}
		if last := got[len(got)-1]; !bytes.Equal(last, want) {
			t.Fatalf("value of %d bytes read back as %d bytes", n, len(last))
		}
	}
}

func TestValueStateErrors(t *testing.T) {
	blob := wasmstream.NewValueState("blob", wasmstream.BytesCodec)
	num := wasmstream.NewValueState("num", wasmstream.Int64Codec)
	f := wasmstream.NewValueState("f", wasmstream.JSONCodec[float64]())
	var errs []error
	h := harness(t, sdktest.Options{MaxValueLen: 10}, func(r *wasmstream.Record) error {
		errs = append(errs,
			blob.Put(make([]byte, 11)),
			second(num.Get()),
			f.Put(math.NaN()),
		)
		return nil
	})
	h.SetState("k", "num", []byte("not 8 bytes"))
	mustProcess(t, h, rec("k", ""))
	wants := []error{wasmstream.ErrTooLarge, wasmstream.ErrDecode, wasmstream.ErrEncode}
	names := []string{`"blob"`, `"num"`, `"f"`}
	for i, want := range wants {
		var opErr *wasmstream.OpError
		if !errors.Is(errs[i], want) || !errors.As(errs[i], &opErr) || !strings.Contains(errs[i].Error(), names[i]) {
			t.Errorf("error %d = %v, want an OpError naming %s wrapping %v", i, errs[i], names[i], want)
		}
	}
}

func TestNewValueStateRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", strings.Repeat("n", 1025), "a\x00b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewValueState(%q) did not panic", name)
				}
			}()
			wasmstream.NewValueState(name, wasmstream.Int64Codec)
		}()
	}
	defer func() {
		if recover() == nil {
			t.Error("NewValueState with a nil codec did not panic")
		}
	}()
	wasmstream.NewValueState[int]("x", nil)
}

func second[T any](_ T, _ bool, err error) error { return err }

func equalBools(a, b []bool) bool {
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
