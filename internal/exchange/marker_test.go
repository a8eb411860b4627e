package exchange

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

// The bytes of a marker are the format (FORMAT.md §5.1); this is the expected encoding written
// out, not a copy of the encoder.
func TestMarkerEncoding(t *testing.T) {
	m := Marker{Checkpoint: 42, Generation: 7, Task: 1, Tasks: 4}
	const want = "5753584d" + "01" + "00" + "0000" + "000000000000002a" + "0000000000000007" + "00000001" + "00000004"
	got := hex.EncodeToString(EncodeMarker(m))
	if got[:64] != want {
		t.Fatalf("EncodeMarker = %s, want %s + crc", got, want)
	}
	back, err := DecodeMarker(EncodeMarker(m))
	if err != nil || back != m {
		t.Fatalf("DecodeMarker = %+v, %v; want %+v", back, err, m)
	}
	if s := m.String(); s != "marker 42/g7 from task 1 of 4" {
		t.Errorf("String = %q", s)
	}
}

func TestDecodeMarkerRefuses(t *testing.T) {
	good := EncodeMarker(Marker{Checkpoint: 1, Generation: 0, Task: 0, Tasks: 1})
	with := func(i int, b byte) []byte {
		out := append([]byte(nil), good...)
		out[i] = b
		return out
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrNotMarker},
		{"a record", []byte(`{"account":"a"}`), ErrNotMarker},
		{"other magic", with(0, 'X'), ErrNotMarker},
		{"newer version", with(4, 2), ErrMarkerVersion},
		{"short", good[:MarkerSize-1], ErrCorruptMarker},
		{"long", append(append([]byte(nil), good...), 0), ErrCorruptMarker},
		{"flipped bit", with(12, good[12]^1), ErrCorruptMarker},
		{"flags", reCRC(with(5, 1)), ErrCorruptMarker},
		{"checkpoint 0", reCRC(with(15, 0)), ErrCorruptMarker},
		{"no tasks", reCRC(with(31, 0)), ErrCorruptMarker},
		{"task out of range", reCRC(with(27, 1)), ErrCorruptMarker},
	} {
		if m, err := DecodeMarker(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: DecodeMarker = %+v, %v; want %v", tc.name, m, err, tc.want)
		}
	}
}

// reCRC rewrites a marker's checksum, so that the field checks behind it are reached.
func reCRC(b []byte) []byte {
	out := append([]byte(nil), b...)
	sum := crc32Of(out[:32])
	out[32], out[33], out[34], out[35] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
	return out
}

func TestEncodeMarkerPanicsOnInvalid(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("EncodeMarker accepted task 2 of 2")
		}
	}()
	EncodeMarker(Marker{Checkpoint: 1, Task: 2, Tasks: 2})
}

func TestReservedHeader(t *testing.T) {
	for name, want := range map[string]bool{
		HeaderMarker: true, "wasmstream-exchange-marker": true, "WASMSTREAM-EXCHANGE-ANYTHING": true,
		HeaderKey: false, HeaderEventTime: false, "Wasmstream-Exchange": false, "Content-Type": false,
	} {
		if got := ReservedHeader(name); got != want {
			t.Errorf("ReservedHeader(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEventTime(t *testing.T) {
	at := time.Date(2026, 12, 7, 18, 0, 0, 123, time.UTC)
	s := EncodeEventTime(at)
	if s != "1796666400000000123" {
		t.Errorf("EncodeEventTime = %q", s)
	}
	if back, err := DecodeEventTime(s); err != nil || !back.Equal(at) {
		t.Errorf("DecodeEventTime(%q) = %v, %v", s, back, err)
	}
	for _, bad := range []string{"", "x", "+1", "01", "1.5", "99999999999999999999"} {
		if _, err := DecodeEventTime(bad); !errors.Is(err, ErrInvalidEventTime) {
			t.Errorf("DecodeEventTime(%q) = %v, want ErrInvalidEventTime", bad, err)
		}
	}
}
