package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want []byte
	}{
		{"", []byte{}},
		{"acct-1", []byte("acct-1")},
		{"東京", []byte("東京")},
		{"seen\x00evt", []byte("seen\x00evt")},
		{"hex:", []byte{}},
		{"hex:00ff", []byte{0, 0xff}},
		{"i64le:1", []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{"i64le:-1", bytes.Repeat([]byte{0xff}, 8)},
		{"text:hex:00", []byte("hex:00")},
		{"hexagon", []byte("hexagon")},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("ParseBytes(%q) = %x, %v; want %x", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"hex:0", "hex:zz", "i64le:", "i64le:1.5", "i64le:99999999999999999999"} {
		if _, err := ParseBytes(bad); !errors.Is(err, ErrBytes) {
			t.Errorf("ParseBytes(%q): %v, want ErrBytes", bad, err)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		in   []byte
		ints bool
		want string
	}{
		{[]byte("acct-1"), false, "acct-1"},
		{[]byte("seen\x00evt"), false, "seen\x00evt"},
		{[]byte{1}, true, "hex:01"},
		{[]byte{1}, false, "hex:01"},
		{[]byte{0xff, 0}, false, "hex:ff00"},
		{[]byte{110, 0, 0, 0, 0, 0, 0, 0}, true, "i64le:110"},
		{[]byte{110, 0, 0, 0, 0, 0, 0, 0}, false, "n\x00\x00\x00\x00\x00\x00\x00"},
		{[]byte("8 bytes!"), true, "8 bytes!"},
		{[]byte("hex:00"), false, "text:hex:00"},
		{[]byte("line\nbreak"), false, "hex:6c696e650a627265616b"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.in, tt.ints); got != tt.want {
			t.Errorf("FormatBytes(%q, %t) = %q, want %q", tt.in, tt.ints, got, tt.want)
		}
	}
}

// Whatever bytes go in, the written form reads back to them, through JSON.
func FuzzBytesRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", "hex:00", "\x00\x01", "i64le:5", "\xff", "東京", "seen\x00e"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, ints bool) {
		var data []byte
		var err error
		if ints {
			data, err = json.Marshal(StateValue(b))
		} else {
			data, err = json.Marshal(Bytes(b))
		}
		if err != nil {
			t.Fatal(err)
		}
		var back Bytes
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%x written as %s does not read back: %v", b, data, err)
		}
		if !bytes.Equal(back, b) {
			t.Fatalf("%x written as %s reads back as %x", b, data, back)
		}
	})
}
