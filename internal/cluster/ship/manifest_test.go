package ship

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/state"
)

func validManifest() TaskManifest {
	t := Task{Operator: "risk", MaxParallelism: 128, Index: 1, Range: state.KeyGroupRange{Start: 32, End: 64},
		MetaNames: []string{"engine/deadletters/risk"}}
	return newManifest(t, []File{
		{Path: "000005.sst", Size: 100, SHA256: strings.Repeat("a", 64)},
		{Path: "MANIFEST-000001", Size: 0, SHA256: strings.Repeat("b", 64)},
	})
}

func encoded(t *testing.T, m TaskManifest) []byte {
	t.Helper()
	data, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestManifestRoundTrip(t *testing.T) {
	data := encoded(t, validManifest())
	m, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if again := encoded(t, m); !bytes.Equal(again, data) {
		t.Fatalf("re-encoding differs:\n%s\n%s", data, again)
	}
}

// Every rule of the decoder, each broken once by a manifest that is
// otherwise valid (its checksum recomputed), or by its bytes.
func TestDecodeRefuses(t *testing.T) {
	edit := func(f func(*TaskManifest)) []byte {
		m := validManifest()
		f(&m)
		return encoded(t, m)
	}
	good := encoded(t, validManifest())
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"newer version", edit(func(m *TaskManifest) { m.FormatVersion = 2 }), ErrIncompatible},
		{"no version", bytes.Replace(good, []byte(`"format_version": 1,`), nil, 1), ErrCorruptManifest},
		{"not json", []byte("{"), ErrCorruptManifest},
		{"unknown field", bytes.Replace(good, []byte(`"operator"`), []byte(`"x": 1, "operator"`), 1), ErrCorruptManifest},
		{"trailing data", append(append([]byte(nil), good...), "{}"...), ErrCorruptManifest},
		{"reindented", bytes.ReplaceAll(good, []byte("  "), []byte(" ")), ErrCorruptManifest},
		{"checksum", bytes.Replace(good, []byte(`"size": 100`), []byte(`"size": 101`), 1), ErrCorruptManifest},
		{"empty operator", edit(func(m *TaskManifest) { m.Operator = "" }), ErrCorruptManifest},
		{"range past max parallelism", edit(func(m *TaskManifest) { m.End = 129 }), ErrCorruptManifest},
		{"empty range", edit(func(m *TaskManifest) { m.End = m.Start }), ErrCorruptManifest},
		{"task index", edit(func(m *TaskManifest) { m.Index = 128 }), ErrCorruptManifest},
		{"state format", edit(func(m *TaskManifest) { m.StateFormatVersion = 0 }), ErrCorruptManifest},
		{"meta names null", unnormalized(t, func(m *TaskManifest) { m.MetaNames = nil }), ErrCorruptManifest},
		{"meta name reserved", edit(func(m *TaskManifest) { m.MetaNames = []string{"format_version"} }), ErrCorruptManifest},
		{"meta names unsorted", edit(func(m *TaskManifest) { m.MetaNames = []string{"b", "a"} }), ErrCorruptManifest},
		{"spans widened", edit(func(m *TaskManifest) { m.Spans[0].End = "74" }), ErrCorruptManifest},
		{"spans dropped", edit(func(m *TaskManifest) { m.Spans = m.Spans[:1] }), ErrCorruptManifest},
		{"no files", edit(func(m *TaskManifest) { m.Files = nil }), ErrCorruptManifest},
		{"path with a slash", edit(func(m *TaskManifest) { m.Files[0].Path = "../000005.sst" }), ErrCorruptManifest},
		{"path dot dot", edit(func(m *TaskManifest) { m.Files[0].Path = ".." }), ErrCorruptManifest},
		{"files unsorted", edit(func(m *TaskManifest) { m.Files[0], m.Files[1] = m.Files[1], m.Files[0] }), ErrCorruptManifest},
		{"files twice", edit(func(m *TaskManifest) { m.Files[1].Path = m.Files[0].Path }), ErrCorruptManifest},
		{"negative size", edit(func(m *TaskManifest) { m.Files[0].Size = -1 }), ErrCorruptManifest},
		{"sha256 upper case", edit(func(m *TaskManifest) { m.Files[0].SHA256 = strings.Repeat("A", 64) }), ErrCorruptManifest},
		{"sha256 short", edit(func(m *TaskManifest) { m.Files[0].SHA256 = "abc" }), ErrCorruptManifest},
		{"too large", bytes.Repeat([]byte(" "), MaxManifestBytes+1), ErrCorruptManifest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.data); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// unnormalized encodes an edited valid manifest with a correct checksum,
// bypassing what Encode normalizes.
func unnormalized(t *testing.T, f func(*TaskManifest)) []byte {
	t.Helper()
	m := validManifest()
	f(&m)
	sum, err := m.checksum()
	if err != nil {
		t.Fatal(err)
	}
	m.Checksum = sum
	data, err := marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
