package abi

import (
	"bytes"
	"errors"
	"testing"
)

func TestBatchRoundTrip(t *testing.T) {
	recs := []Record{
		{EventTime: 1700000000000000000, Input: 0, Key: []byte("acct-47"), Value: []byte(`{"cents":1200}`), Headers: AppendHeader(nil, "event-id", "evt-47")},
		{EventTime: -1, Input: 3, Key: nil, Value: nil, Headers: nil},
		{EventTime: 0, Input: 1, Key: []byte{0, 1, 2}, Value: bytes.Repeat([]byte("v"), 1000)},
	}
	buf := AppendBatchHeader(nil, uint32(len(recs)))
	for i := range recs {
		before := len(buf)
		buf = AppendRecord(buf, &recs[i])
		if got := len(buf) - before; got != EncodedRecordLen(&recs[i]) {
			t.Fatalf("record %d: encoded %d bytes, EncodedRecordLen says %d", i, got, EncodedRecordLen(&recs[i]))
		}
	}
	br, err := NewBatchReader(buf)
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	for i := range recs {
		more, err := br.Next(&r)
		if err != nil || !more {
			t.Fatalf("record %d: more=%v err=%v", i, more, err)
		}
		w := recs[i]
		if r.EventTime != w.EventTime || r.Input != w.Input || !bytes.Equal(r.Key, w.Key) || !bytes.Equal(r.Value, w.Value) || !bytes.Equal(r.Headers, w.Headers) {
			t.Fatalf("record %d: got %+v, want %+v", i, r, w)
		}
	}
	if more, err := br.Next(&r); more || err != nil {
		t.Fatalf("after the last record: more=%v err=%v", more, err)
	}
}

// A golden encoding: the layout is a contract with every SDK.
func TestBatchGoldenBytes(t *testing.T) {
	buf := AppendBatchHeader(nil, 1)
	buf = AppendRecord(buf, &Record{EventTime: 2, Input: 1, Key: []byte("k"), Value: []byte("vv"), Headers: AppendHeader(nil, "h", "x")})
	want := []byte{
		1, 0, 0, 0, // count
		2, 0, 0, 0, 0, 0, 0, 0, // event time
		1, 0, 0, 0, // input
		1, 0, 0, 0, 'k', // key
		2, 0, 0, 0, 'v', 'v', // value
		10, 0, 0, 0, 1, 0, 0, 0, 'h', 1, 0, 0, 0, 'x', // headers
	}
	if !bytes.Equal(buf, want) {
		t.Fatalf("got  %v\nwant %v", buf, want)
	}
}

func TestMalformedBatches(t *testing.T) {
	good := AppendRecord(AppendBatchHeader(nil, 1), &Record{Key: []byte("k"), Value: []byte("v")})
	cases := map[string][]byte{
		"empty":              nil,
		"short header":       {1, 0},
		"count too large":    AppendBatchHeader(nil, 1000),
		"truncated record":   good[:len(good)-1],
		"trailing bytes":     append(append([]byte{}, good...), 0),
		"key length overrun": append(AppendBatchHeader(nil, 1), append(make([]byte, 12), 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0)...),
	}
	for name, buf := range cases {
		t.Run(name, func(t *testing.T) {
			if err := decodeAll(buf); !errors.Is(err, ErrMalformed) {
				t.Fatalf("got %v, want ErrMalformed", err)
			}
		})
	}
}

func decodeAll(buf []byte) error {
	br, err := NewBatchReader(buf)
	if err != nil {
		return err
	}
	var r Record
	for {
		more, err := br.Next(&r)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if err := ValidateHeaders(r.Headers); err != nil {
			return err
		}
	}
}

func TestHeadersRoundTrip(t *testing.T) {
	buf := AppendHeader(nil, "a", "1")
	buf = AppendHeader(buf, "a", "2")
	buf = AppendHeader(buf, "", "")
	hr := NewHeaderReader(buf)
	var got []string
	for {
		n, v, more, err := hr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		got = append(got, string(n)+"="+string(v))
	}
	if want := "[a=1 a=2 =]"; fmtList(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if ValidateHeaders(buf[:len(buf)-1]) == nil {
		t.Fatal("truncated header list accepted")
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func TestCodeNames(t *testing.T) {
	if ErrNotFound.String() != "NOT_FOUND" || Code(-42).String() != "CODE(-42)" {
		t.Fatal(ErrNotFound.String(), Code(-42).String())
	}
	if !ErrBadPointer.Fatal() || ErrNotFound.Fatal() {
		t.Fatal("fatal classification")
	}
}

// FuzzBatchReader: the decoder of the bytes the host hands the guest never
// panics and never reads past the buffer, whatever the bytes.
func FuzzBatchReader(f *testing.F) {
	f.Add(AppendRecord(AppendBatchHeader(nil, 1), &Record{Key: []byte("k"), Value: []byte("v"), Headers: AppendHeader(nil, "h", "x")}))
	f.Add(AppendBatchHeader(nil, 0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, buf []byte) {
		err := decodeAll(buf)
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("unexpected error type: %v", err)
		}
	})
}

// FuzzHeaderReader: same for header lists, which guests hand the host.
func FuzzHeaderReader(f *testing.F) {
	f.Add(AppendHeader(AppendHeader(nil, "a", "b"), "c", ""))
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, buf []byte) {
		hr := NewHeaderReader(buf)
		total := 0
		for {
			n, v, more, err := hr.Next()
			if err != nil || !more {
				break
			}
			total += 8 + len(n) + len(v)
		}
		if total > len(buf) {
			t.Fatalf("decoded %d bytes from %d", total, len(buf))
		}
	})
}
