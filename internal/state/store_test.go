package state

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func TestOpenStampsFormatVersion(t *testing.T) {
	s := openStore(t)
	v, ok, err := s.GetMeta(metaFormatVersion)
	if err != nil || !ok {
		t.Fatalf("GetMeta(format_version) = %v, %t, %v", v, ok, err)
	}
	if got := binary.BigEndian.Uint32(v); got != FormatVersion {
		t.Fatalf("format version %d, want %d", got, FormatVersion)
	}
}

func TestOpenExistingStore(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	s.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open: %v", err)
	}
	defer ro.Close()
	if _, err := ro.Backend(BackendOptions{Operator: "op", Range: KeyGroupRange{0, 1}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Backend on a read-only store: %v, want ErrInvalidOptions", err)
	}
}

// rawDB writes keys straight into a Pebble DB in dir, as another program
// or a future format would.
func rawDB(t *testing.T, dir string, kv map[string][]byte) {
	t.Helper()
	db, err := pebble.Open(dir, &pebble.Options{Logger: errorsOnlyLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		if err := db.Set([]byte(k), v, pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		what string
		kv   map[string][]byte
		want error
	}{
		{"newer format", map[string][]byte{"mformat_version": {0, 0, 0, 2}}, ErrFormatTooNew},
		{"older format", map[string][]byte{"mformat_version": {0, 0, 0, 0}}, ErrFormatUnsupported},
		{"malformed version", map[string][]byte{"mformat_version": {1}}, ErrCorrupt},
		{"foreign data", map[string][]byte{"hello": []byte("world")}, ErrNotStateStore},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		rawDB(t, dir, tt.kv)
		s, err := Open(dir, Options{})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Open = %v, want %v", tt.what, err, tt.want)
		}
		if s != nil {
			s.Close()
		}
	}
}

func TestOpenReadOnlyEmptyStore(t *testing.T) {
	dir := t.TempDir()
	rawDB(t, dir, nil)
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrNotStateStore) {
		t.Errorf("read-only open of an empty DB: %v, want ErrNotStateStore", err)
	}
}

func TestOpenRejectsBadOptions(t *testing.T) {
	if _, err := Open(t.TempDir(), Options{CacheSizeBytes: -1}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Open with a negative cache: %v", err)
	}
}

func TestMeta(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.GetMeta("source/payments"); ok || err != nil {
		t.Fatalf("GetMeta of a missing entry = %t, %v", ok, err)
	}
	b := s.NewBatch()
	if err := PutMeta(b, "source/payments", []byte{0, 0, 0, 100}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", metaFormatVersion, string(make([]byte, MaxMetaNameLen+1))} {
		if err := PutMeta(b, bad, nil); !errors.Is(err, ErrInvalidName) {
			t.Errorf("PutMeta(%.20q) = %v, want ErrInvalidName", bad, err)
		}
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, ok, err := s.GetMeta("source/payments")
	if err != nil || !ok || string(v) != "\x00\x00\x00\x64" {
		t.Fatalf("GetMeta after reopen = %q, %t, %v", v, ok, err)
	}
}

// Metadata is outside every operator's state span.
func TestMetaIsNotState(t *testing.T) {
	s := openStore(t)
	b := s.NewBatch()
	if err := PutMeta(b, "x", []byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	if got := committed(t, s, "x"); len(got) != 0 {
		t.Fatalf("Scan found metadata as state: %v", got)
	}
}
