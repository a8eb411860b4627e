//go:build !wasip1

package wasmstream_test

import (
	"errors"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

type eventID string

func TestMapStateEntriesAndNaming(t *testing.T) {
	seen := wasmstream.NewMapState[eventID]("seen", wasmstream.Int64Codec)
	var found []bool
	h := harness(t, sdktest.Options{}, func(r *wasmstream.Record) error {
		op, id, _ := strings.Cut(string(r.Value), " ")
		switch op {
		case "put":
			return seen.Put(eventID(id), int64(len(id)))
		case "delete":
			return seen.Delete(eventID(id))
		}
		_, ok, err := seen.Get(eventID(id))
		found = append(found, ok)
		return err
	})
	mustProcess(t, h, rec("k", "put e1"), rec("k", "put e22"), rec("k", "get e1"), rec("other", "get e1"),
		rec("k", "delete e1"), rec("k", "get e1"), rec("k", "get e22"))
	if want := []bool{true, false, false, true}; !equalBools(found, want) {
		t.Fatalf("found = %v, want %v", found, want)
	}
	// The host sees one entry per map key, named name NUL key.
	raw, ok := h.State("k", "seen\x00e22")
	if n, _ := wasmstream.Int64Codec.Decode(raw); !ok || n != 3 {
		t.Fatalf("entry seen\\x00e22 = %v %v, want 3", raw, ok)
	}
	if _, ok := h.MapState("k", "seen", "e1"); ok {
		t.Fatal("deleted entry e1 still there")
	}
}

func TestMapStateKeyLength(t *testing.T) {
	m := wasmstream.NewMapState[string]("m", wasmstream.BoolCodec)
	if got := m.MaxKeyLen(); got != 1024-2 {
		t.Fatalf("MaxKeyLen = %d, want 1022", got)
	}
	var putErr, getErr error
	h := harness(t, sdktest.Options{}, func(r *wasmstream.Record) error {
		if putErr = m.Put(strings.Repeat("k", m.MaxKeyLen()), true); putErr != nil {
			return putErr
		}
		_, _, getErr = m.Get(strings.Repeat("k", m.MaxKeyLen()+1))
		return nil
	})
	mustProcess(t, h, rec("k", ""))
	if putErr != nil {
		t.Fatalf("Put with a key of MaxKeyLen bytes: %v", putErr)
	}
	if !errors.Is(getErr, wasmstream.ErrBadArgument) || !strings.Contains(getErr.Error(), "MaxKeyLen") {
		t.Fatalf("Get with a key over MaxKeyLen: %v, want ErrBadArgument naming MaxKeyLen", getErr)
	}
}

func TestNewMapStateRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", strings.Repeat("n", 1024), "a\x00"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewMapState(%q) did not panic", name)
				}
			}()
			wasmstream.NewMapState[string]("x"+name[:0], wasmstream.BoolCodec)
			wasmstream.NewMapState[string](name, wasmstream.BoolCodec)
		}()
	}
}
