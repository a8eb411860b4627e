package abi

import (
	"bytes"
	"errors"
	"testing"
)

func TestEmitListRoundTrip(t *testing.T) {
	in := []Emit{
		{Record: 0, Output: 1, Key: []byte("k"), Value: []byte("v"), Headers: AppendHeader(nil, "count", "1")},
		{Record: 3, Output: 0},
	}
	var buf []byte
	for i := range in {
		buf = AppendEmit(buf, &in[i])
	}
	if want := EncodedEmitLen(&in[0]) + EncodedEmitLen(&in[1]); len(buf) != want {
		t.Fatalf("encoded %d bytes, EncodedEmitLen says %d", len(buf), want)
	}
	er := NewEmitReader(buf)
	for i := range in {
		var e Emit
		more, err := er.Next(&e)
		if err != nil || !more {
			t.Fatalf("entry %d: more %v, err %v", i, more, err)
		}
		if e.Record != in[i].Record || e.Output != in[i].Output || !bytes.Equal(e.Key, in[i].Key) ||
			!bytes.Equal(e.Value, in[i].Value) || !bytes.Equal(e.Headers, in[i].Headers) {
			t.Fatalf("entry %d: got %+v, want %+v", i, e, in[i])
		}
	}
	if more, err := er.Next(&Emit{}); more || err != nil {
		t.Fatalf("after the last entry: more %v, err %v", more, err)
	}
	for cut := 1; cut < len(buf); cut++ {
		if cut == EncodedEmitLen(&in[0]) {
			continue // a whole first entry is a valid list
		}
		if err := decodeEmits(buf[:cut]); !errors.Is(err, ErrMalformed) {
			t.Errorf("list cut to %d bytes: err %v, want ErrMalformed", cut, err)
		}
	}
}

func decodeEmits(buf []byte) error {
	er := NewEmitReader(buf)
	for {
		var e Emit
		more, err := er.Next(&e)
		if err != nil || !more {
			return err
		}
	}
}

// FuzzEmitReader: the decoder of the emit lists guests hand the host never
// panics, never reads past the buffer and fails only with ErrMalformed.
func FuzzEmitReader(f *testing.F) {
	f.Add(AppendEmit(nil, &Emit{Record: 1, Output: 0, Key: []byte("k"), Value: []byte("v"), Headers: AppendHeader(nil, "h", "x")}))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, buf []byte) {
		er := NewEmitReader(buf)
		total := 0
		for {
			var e Emit
			more, err := er.Next(&e)
			if err != nil && !errors.Is(err, ErrMalformed) {
				t.Fatalf("unexpected error type: %v", err)
			}
			if err != nil || !more {
				break
			}
			total += EncodedEmitLen(&e)
		}
		if total > len(buf) {
			t.Fatalf("decoded %d bytes from %d", total, len(buf))
		}
	})
}
