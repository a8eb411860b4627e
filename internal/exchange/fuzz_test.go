package exchange

import (
	"bytes"
	"hash/crc32"
	"testing"
)

func crc32Of(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// FuzzDecodeMarker: a marker's bytes come from the network. DecodeMarker never panics, and what
// it accepts is valid and encodes back to exactly the same bytes (one encoding per marker).
func FuzzDecodeMarker(f *testing.F) {
	f.Add(EncodeMarker(Marker{Checkpoint: 42, Generation: 7, Task: 1, Tasks: 4}))
	f.Add(EncodeMarker(Marker{Checkpoint: ^uint64(0), Generation: ^uint64(0), Task: ^uint32(0) - 1, Tasks: ^uint32(0)}))
	f.Add([]byte("WSXM"))
	f.Add([]byte(`{"account":"a"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMarker(b)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid marker %+v: %v", m, err)
		}
		if again := EncodeMarker(m); !bytes.Equal(again, b) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", b, m, again)
		}
	})
}

// FuzzParseMsgID: ParseMsgID never panics, and an id it accepts is the one MsgID writes.
func FuzzParseMsgID(f *testing.F) {
	f.Add("x1:enrich:payments:101:0")
	f.Add("x1:score:enrich.a%3Ab%25c%20d%0A%FF:1:2")
	f.Add("x1:a%:b:1:0")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseMsgID(s)
		if err != nil {
			return
		}
		if again := MsgID(p); again != s {
			t.Fatalf("%q parses to %+v, which MsgID writes as %q", s, p, again)
		}
	})
}

// FuzzDecodeEventTime: an event-time header comes from the network (the consumer reads it off
// the exchange stream). DecodeEventTime never panics, and a value it accepts is the one
// EncodeEventTime writes for the time it returns.
func FuzzDecodeEventTime(f *testing.F) {
	f.Add("1765000000123456789")
	f.Add("-1")
	f.Add("0")
	f.Add("+5")
	f.Add("007")
	f.Add("9223372036854775808")
	f.Fuzz(func(t *testing.T, s string) {
		at, err := DecodeEventTime(s)
		if err != nil {
			return
		}
		if again := EncodeEventTime(at); again != s {
			t.Fatalf("%q decodes to %v, which encodes to %q", s, at, again)
		}
	})
}
