package state

import (
	"bytes"
	"errors"
	"testing"
)

func TestValueRoundTrip(t *testing.T) {
	tests := []Value{
		{Data: []byte{}},
		{Data: []byte("hello")},
		{Data: []byte{}, ExpiresAt: 1, HasExpiry: true},
		{Data: []byte("ttl"), ExpiresAt: 1_700_000_000_000_000_000, HasExpiry: true},
		{Data: []byte("neg"), ExpiresAt: -5, HasExpiry: true},
	}
	for _, v := range tests {
		got, err := DecodeValue(AppendValue(nil, v))
		if err != nil {
			t.Fatalf("DecodeValue(AppendValue(%+v)): %v", v, err)
		}
		if !bytes.Equal(got.Data, v.Data) || got.HasExpiry != v.HasExpiry || got.ExpiresAt != v.ExpiresAt {
			t.Errorf("round trip of %+v gave %+v", v, got)
		}
	}
}

// The layout is part of the format: pin the bytes.
func TestValueGoldenBytes(t *testing.T) {
	if got, want := AppendValue(nil, Value{Data: []byte("v")}), []byte{0, 'v'}; !bytes.Equal(got, want) {
		t.Errorf("no expiry: %x, want %x", got, want)
	}
	got := AppendValue(nil, Value{Data: []byte("v"), ExpiresAt: 0x0102030405060708, HasExpiry: true})
	if want := []byte{1, 1, 2, 3, 4, 5, 6, 7, 8, 'v'}; !bytes.Equal(got, want) {
		t.Errorf("expiry: %x, want %x", got, want)
	}
}

func TestDecodeValueRejects(t *testing.T) {
	tests := map[string][]byte{
		"empty":           nil,
		"unknown flag":    {2, 'v'},
		"high flag":       {0x80},
		"short expiry":    {1, 0, 0, 0},
		"expiry, 7 bytes": {1, 1, 2, 3, 4, 5, 6, 7},
	}
	for what, b := range tests {
		if _, err := DecodeValue(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeValue(%x) = %v, want ErrCorrupt", what, b, err)
		}
	}
}

func FuzzDecodeValue(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, 'v', 'a', 'l'})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 9, 'v'})
	f.Add([]byte{1, 0})
	f.Add([]byte{0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeValue(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if again := AppendValue(nil, v); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding %x gave %x", b, again)
		}
	})
}
