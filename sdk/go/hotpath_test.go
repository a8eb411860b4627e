//go:build !wasip1

package wasmstream

import (
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

// valueHost is a scriptHost with fixed state values by name, so that the
// SDK's decode path runs; it allocates nothing itself.
type valueHost struct {
	scriptHost
	values map[string][]byte
}

func (h *valueHost) StateGet(name, out []byte) int32 {
	v, ok := h.values[string(name)]
	if !ok {
		return int32(abi.ErrNotFound)
	}
	if len(v) <= len(out) {
		copy(out, v)
	}
	return int32(len(v))
}

// The per-record path of the benchmark operator: Get, Put, Emit.
func TestHotPathDoesNotAllocate(t *testing.T) {
	withHost(t, &valueHost{values: map[string][]byte{
		"count":         Int64Codec.Encode(nil, 41),
		"seen\x00evt-1": {1},
	}})
	count := NewValueState("count", Int64Codec)
	seen := NewMapState[string]("seen", BoolCodec)
	key, value := []byte("k"), []byte("v")
	allocs := testing.AllocsPerRun(100, func() {
		n, _, err := count.Get()
		if err != nil || n != 41 {
			t.Fatalf("Get = %d, %v", n, err)
		}
		_ = count.Put(n + 1)
		if dup, _, err := seen.Get("evt-1"); !dup || err != nil {
			t.Fatalf("seen.Get = %v, %v", dup, err)
		}
		_ = seen.Put("evt-1", true)
		_ = Emit("out", key, value, Header{Name: "event-id", Value: "evt-1"})
	})
	if allocs != 0 {
		t.Fatalf("state and emit calls allocate %v times per record", allocs)
	}
}

func TestEmitErrorNamesOutput(t *testing.T) {
	withHost(t, &emitCodeHost{code: abi.ErrUnknownOutput})
	err := Emit("outt", nil, nil)
	var opErr *OpError
	if !errorsAs(err, &opErr) || opErr.Name != "outt" || opErr.Err != ErrUnknownOutput {
		t.Fatalf("Emit error = %#v", err)
	}
}

type emitCodeHost struct {
	scriptHost
	code abi.Code
}

func (h *emitCodeHost) Emit(output, key, value, hdr []byte) int32 { return int32(h.code) }
