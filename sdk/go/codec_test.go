package wasmstream

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// roundTrip encodes v after a prefix, to check that Encode appends, and
// decodes it back.
func roundTrip[T any](t *testing.T, c Codec[T], v T) T {
	t.Helper()
	prefix := []byte("pre")
	b := c.Encode(append([]byte(nil), prefix...), v)
	if !bytes.HasPrefix(b, prefix) {
		t.Fatalf("Encode(%v) overwrote dst: %q", v, b)
	}
	got, err := c.Decode(b[len(prefix):])
	if err != nil {
		t.Fatalf("Decode(Encode(%v)): %v", v, err)
	}
	return got
}

func TestCodecRoundTrips(t *testing.T) {
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64} {
		if got := roundTrip(t, Int64Codec, v); got != v {
			t.Errorf("Int64Codec: %d became %d", v, got)
		}
	}
	for _, v := range []uint64{0, 1, math.MaxUint64} {
		if got := roundTrip(t, Uint64Codec, v); got != v {
			t.Errorf("Uint64Codec: %d became %d", v, got)
		}
	}
	for _, v := range []float64{0, -0.5, math.Inf(1), math.MaxFloat64} {
		if got := roundTrip(t, Float64Codec, v); got != v {
			t.Errorf("Float64Codec: %v became %v", v, got)
		}
	}
	for _, v := range []bool{false, true} {
		if got := roundTrip(t, BoolCodec, v); got != v {
			t.Errorf("BoolCodec: %v became %v", v, got)
		}
	}
	for _, v := range []string{"", "héllo", "a\x00b"} {
		if got := roundTrip(t, StringCodec, v); got != v {
			t.Errorf("StringCodec: %q became %q", v, got)
		}
	}
	type point struct{ X, Y int }
	if got := roundTrip(t, JSONCodec[point](), point{1, 2}); got != (point{1, 2}) {
		t.Errorf("JSONCodec: got %v", got)
	}
}

// The encodings are part of checkpointed state: pin them.
func TestCodecEncodingsArePinned(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"Int64Codec", Int64Codec.Encode(nil, -2), []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"Uint64Codec", Uint64Codec.Encode(nil, 258), []byte{2, 1, 0, 0, 0, 0, 0, 0}},
		{"Float64Codec", Float64Codec.Encode(nil, 1), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{"BoolCodec", BoolCodec.Encode(nil, true), []byte{1}},
		{"StringCodec", StringCodec.Encode(nil, "ab"), []byte("ab")},
		{"JSONCodec", JSONCodec[map[string]int]().Encode(nil, map[string]int{"a": 1}), []byte(`{"a":1}`)},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("%s encodes as %x, want %x", tt.name, tt.got, tt.want)
		}
	}
}

func TestCodecDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"Int64Codec short", second(Int64Codec.Decode([]byte{1, 2, 3}))},
		{"Int64Codec long", second(Int64Codec.Decode(make([]byte, 9)))},
		{"Uint64Codec empty", second(Uint64Codec.Decode(nil))},
		{"Float64Codec short", second(Float64Codec.Decode([]byte{1}))},
		{"BoolCodec 2", second(BoolCodec.Decode([]byte{2}))},
		{"BoolCodec empty", second(BoolCodec.Decode(nil))},
		{"JSONCodec", second(JSONCodec[int]().Decode([]byte("{")))},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, ErrDecode) {
			t.Errorf("%s: error %v does not wrap ErrDecode", tt.name, tt.err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestBytesCodecDecodeCopies(t *testing.T) {
	b := []byte("abc")
	got, _ := BytesCodec.Decode(b)
	b[0] = 'X'
	if string(got) != "abc" {
		t.Fatalf("BytesCodec.Decode aliases its input: %q", got)
	}
}

func TestJSONCodecEncodeFailure(t *testing.T) {
	enc := newEncoder(JSONCodec[float64]())
	if _, err := enc.encode(nil, math.NaN()); !errors.Is(err, ErrEncode) {
		t.Fatalf("encode(NaN) = %v, want ErrEncode", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("JSONCodec.Encode(NaN) did not panic")
		}
	}()
	JSONCodec[float64]().Encode(nil, math.NaN())
}

func TestFixedCodecsDoNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 16)
	allocs := testing.AllocsPerRun(100, func() {
		b := Int64Codec.Encode(buf[:0], 42)
		if _, err := Int64Codec.Decode(b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Int64Codec allocates %v times per round trip", allocs)
	}
}

// FuzzCodecDecode feeds stored bytes, which the guest cannot trust to come
// from the same codec, to every built-in decoder: they must not panic, and
// whatever decodes must encode back to the same bytes.
func FuzzCodecDecode(f *testing.F) {
	for _, seed := range [][]byte{nil, {1}, {0, 0, 0, 0, 0, 0, 0, 0}, []byte(`"x"`), []byte(`{"a":1}`), {0xff, 0xfe}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzCanonical(t, Int64Codec, b)
		fuzzCanonical(t, Uint64Codec, b)
		fuzzCanonical(t, BoolCodec, b)
		fuzzCanonical(t, StringCodec, b)
		fuzzCanonical(t, BytesCodec, b)
		if v, err := Float64Codec.Decode(b); err == nil && !math.IsNaN(v) {
			if !bytes.Equal(Float64Codec.Encode(nil, v), b) {
				t.Fatalf("Float64Codec: %x decodes to %v which encodes differently", b, v)
			}
		}
		if v, err := JSONCodec[map[string]any]().Decode(b); err == nil {
			if _, err := newEncoder(JSONCodec[map[string]any]()).encode(nil, v); err != nil {
				t.Fatalf("JSONCodec: decoded %v does not encode: %v", v, err)
			}
		}
	})
}

func fuzzCanonical[T any](t *testing.T, c Codec[T], b []byte) {
	v, err := c.Decode(b)
	if err != nil {
		return
	}
	if got := c.Encode(nil, v); !bytes.Equal(got, b) {
		t.Fatalf("%T: %x decodes to %v which encodes as %x", c, b, v, got)
	}
}
