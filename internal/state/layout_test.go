package state

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"testing"
)

func TestStateKeyRoundTrip(t *testing.T) {
	tests := []struct {
		op        string
		kg        int
		name, key string
	}{
		{"counter", 0, "n", ""},
		{"counter", 37, "count", "user-42"},
		{strings.Repeat("o", MaxOperatorLen), MaxMaxParallelism - 1, strings.Repeat("n", MaxStateNameLen), "k"},
		{"map-op", 300, "m\x00entry", "\x00\xff\x00"},
	}
	for _, tt := range tests {
		k := AppendStateKey([]byte("junk"), tt.op, tt.kg, []byte(tt.name), []byte(tt.key))[4:]
		got, err := DecodeStateKey(k)
		if err != nil {
			t.Fatalf("DecodeStateKey(%q): %v", k, err)
		}
		if string(got.Operator) != tt.op || got.KeyGroup != tt.kg || string(got.Name) != tt.name || string(got.Key) != tt.key {
			t.Errorf("round trip of %+v gave %+v", tt, got)
		}
	}
}

// The layout is part of the format: pin the bytes of one key.
func TestStateKeyGoldenBytes(t *testing.T) {
	got := AppendStateKey(nil, "op", 258, []byte("nm"), []byte("K"))
	want := []byte{'s', 2, 'o', 'p', 0x01, 0x02, 0x00, 0x02, 'n', 'm', 'K'}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendStateKey = %x, want %x", got, want)
	}
}

func TestDecodeStateKeyRejects(t *testing.T) {
	long := AppendStateKey(nil, "op", 1, []byte("n"), nil)
	long[7] = 5 // name length 5, one byte left
	tests := map[string][]byte{
		"empty":          nil,
		"meta prefix":    []byte("mformat_version"),
		"no operator":    {'s', 0, 0, 1, 0, 1, 'n'},
		"short operator": {'s', 5, 'o', 'p'},
		"no key group":   {'s', 2, 'o', 'p', 0},
		"empty name":     {'s', 2, 'o', 'p', 0, 1, 0, 0, 'k'},
		"short name":     long,
		"name too long":  append([]byte{'s', 1, 'o', 0, 1, 0x04, 0x01}, bytes.Repeat([]byte("n"), 1025)...),
		"key group high": {'s', 1, 'o', 0x80, 0x00, 0, 1, 'n'},
	}
	for what, k := range tests {
		if _, err := DecodeStateKey(k); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeStateKey(%x) = %v, want ErrCorrupt", what, k, err)
		}
	}
}

// Every key of one operator in a key-group range sorts inside groupSpan,
// and keys of other ranges or operators sort outside: rescale is one scan.
func TestGroupSpanIsContiguous(t *testing.T) {
	ops := []string{"a", "ab", "b", "op\xff"}
	names := []string{"n", "count", strings.Repeat("z", 300)}
	keys := []string{"", "k", "\xff\xff"}
	r := KeyGroupRange{3, 255}
	lo, hi := groupSpan("ab", r)
	var all [][]byte
	for _, op := range ops {
		for _, kg := range []int{0, 2, 3, 4, 254, 255, 256, MaxMaxParallelism - 1} {
			for _, n := range names {
				for _, k := range keys {
					all = append(all, AppendStateKey(nil, op, kg, []byte(n), []byte(k)))
				}
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return bytes.Compare(all[i], all[j]) < 0 })
	for _, k := range all {
		sk, _ := DecodeStateKey(k)
		want := string(sk.Operator) == "ab" && r.Contains(sk.KeyGroup)
		in := bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0
		if in != want {
			t.Errorf("key %x (op %q kg %d): inside span = %t, want %t", k, sk.Operator, sk.KeyGroup, in, want)
		}
	}
}

func FuzzDecodeStateKey(f *testing.F) {
	f.Add(AppendStateKey(nil, "counter", 37, []byte("count"), []byte("user-42")))
	f.Add(AppendStateKey(nil, "m", 0, []byte("n\x00k"), nil))
	f.Add([]byte{'s', 0})
	f.Add([]byte{'s', 255, 0, 0})
	f.Add([]byte("mformat_version"))
	f.Fuzz(func(t *testing.T, k []byte) {
		sk, err := DecodeStateKey(k)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		// A key that decodes re-encodes to the same bytes: the layout has
		// one spelling per entry.
		again := AppendStateKey(nil, string(sk.Operator), sk.KeyGroup, sk.Name, sk.Key)
		if !bytes.Equal(again, k) {
			t.Fatalf("re-encoding %x gave %x", k, again)
		}
	})
}
