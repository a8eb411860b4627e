package checkpoint

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// validManifest returns a manifest that passes validation, as Write would
// produce it.
func validManifest(id uint64) Manifest {
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	return Manifest{
		FormatVersion: ManifestFormatVersion,
		ID:            id,
		Created:       created,
		Completed:     created.Add(40 * time.Millisecond),
		Sources: []SourcePosition{{
			Name: "payments", Stream: "PAYMENTS",
			StreamCreated: created.Add(-time.Hour), LastSequence: 100,
		}},
		Operators: []OperatorEntry{{
			Name:               "fraud",
			ModuleSHA256:       strings.Repeat("ab", 32),
			ABIVersion:         1,
			StateFormatVersion: 1,
			MaxParallelism:     128,
			Tasks:              []TaskEntry{{KeyGroupRange: KeyGroupRange{0, 64}, Inputs: map[string]uint64{"payments": 120}}, {KeyGroupRange: KeyGroupRange{64, 128}}},
		}},
		Files: []FileEntry{
			{Path: "state/000005.sst", Size: 10, SHA256: strings.Repeat("0", 64)},
			{Path: "state/MANIFEST-000001", Size: 0, SHA256: strings.Repeat("f", 64)},
		},
		Config:  "pipeline \"p\" {}\n",
		Metrics: Metrics{DurationNanos: 40e6, AlignmentNanos: 1e6, BytesTotal: 10, BytesNew: 10},
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := validManifest(7)
	data, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checksum) != 64 {
		t.Fatalf("checksum %q, want 64 hex digits", got.Checksum)
	}
	got.Checksum = ""
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip changed the manifest:\n got %+v\nwant %+v", got, m)
	}
	if !bytes.Contains(data, []byte(`"format_version": 3`)) {
		t.Fatalf("encoding lacks format_version: %s", data)
	}
}

func TestManifestInvalid(t *testing.T) {
	cases := []struct {
		name   string
		change func(m *Manifest)
	}{
		{"no id", func(m *Manifest) { m.ID = 0 }},
		{"no created", func(m *Manifest) { m.Created = time.Time{} }},
		{"completed before created", func(m *Manifest) { m.Completed = m.Created.Add(-1) }},
		{"negative metric", func(m *Manifest) { m.Metrics.BytesNew = -1 }},
		{"source without stream", func(m *Manifest) { m.Sources[0].Stream = "" }},
		{"source without identity", func(m *Manifest) { m.Sources[0].StreamCreated = time.Time{} }},
		{"duplicate source", func(m *Manifest) { m.Sources = append(m.Sources, m.Sources[0]) }},
		{"operator without name", func(m *Manifest) { m.Operators[0].Name = "" }},
		{"operator name too long", func(m *Manifest) { m.Operators[0].Name = strings.Repeat("x", 256) }},
		{"duplicate operator", func(m *Manifest) { m.Operators = append(m.Operators, m.Operators[0]) }},
		{"short module hash", func(m *Manifest) { m.Operators[0].ModuleSHA256 = "abcd" }},
		{"upper-case module hash", func(m *Manifest) { m.Operators[0].ModuleSHA256 = strings.Repeat("AB", 32) }},
		{"no abi version", func(m *Manifest) { m.Operators[0].ABIVersion = 0 }},
		{"no state format", func(m *Manifest) { m.Operators[0].StateFormatVersion = 0 }},
		{"max parallelism 0", func(m *Manifest) { m.Operators[0].MaxParallelism = 0 }},
		{"max parallelism too large", func(m *Manifest) { m.Operators[0].MaxParallelism = 32769 }},
		{"no tasks", func(m *Manifest) { m.Operators[0].Tasks = nil }},
		{"task gap", func(m *Manifest) { m.Operators[0].Tasks[1].Start = 65 }},
		{"task overlap", func(m *Manifest) { m.Operators[0].Tasks[1].Start = 63 }},
		{"tasks short of max", func(m *Manifest) { m.Operators[0].Tasks[1].End = 127 }},
		{"empty task", func(m *Manifest) {
			m.Operators[0].Tasks = []TaskEntry{{KeyGroupRange: KeyGroupRange{0, 0}}, {KeyGroupRange: KeyGroupRange{0, 128}}}
		}},
		{"no files", func(m *Manifest) { m.Files = nil }},
		{"absolute path", func(m *Manifest) { m.Files[0].Path = "/etc/passwd" }},
		{"dot-dot path", func(m *Manifest) { m.Files[0].Path = "../other/000005.sst" }},
		{"inner dot-dot", func(m *Manifest) { m.Files[0].Path = "state/../../x" }},
		{"unclean path", func(m *Manifest) { m.Files[0].Path = "./state/000005.sst" }},
		{"backslash path", func(m *Manifest) { m.Files[0].Path = `state\000005.sst` }},
		{"empty path", func(m *Manifest) { m.Files[0].Path = "" }},
		{"manifest lists itself", func(m *Manifest) { m.Files[0].Path = manifestFile }},
		{"unsorted files", func(m *Manifest) { m.Files[0], m.Files[1] = m.Files[1], m.Files[0] }},
		{"duplicate file", func(m *Manifest) { m.Files[1].Path = m.Files[0].Path }},
		{"negative size", func(m *Manifest) { m.Files[0].Size = -1 }},
		{"bad file hash", func(m *Manifest) { m.Files[0].SHA256 = "zz" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := validManifest(3)
			c.change(&m)
			if _, err := Encode(m); !errors.Is(err, ErrCorruptManifest) {
				t.Fatalf("Encode: got %v, want ErrCorruptManifest", err)
			}
			// Decode must refuse the same bytes if a broken writer wrote them.
			data := mustMarshal(t, m)
			if _, err := Decode(data); !errors.Is(err, ErrCorruptManifest) {
				t.Fatalf("Decode: got %v, want ErrCorruptManifest", err)
			}
		})
	}
}

func TestManifestDecodeErrors(t *testing.T) {
	good, err := Encode(validManifest(5))
	if err != nil {
		t.Fatal(err)
	}
	newer := bytes.Replace(good, []byte(`"format_version": 3`), []byte(`"format_version": 4`), 1)
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorruptManifest},
		{"truncated", good[:len(good)/2], ErrCorruptManifest},
		{"not json", []byte("hello"), ErrCorruptManifest},
		{"no version", []byte(`{"id": 5}`), ErrCorruptManifest},
		{"newer version", newer, ErrIncompatible},
		{"version 0", []byte(`{"format_version": 0}`), ErrIncompatible},
		{"unknown field", bytes.Replace(good, []byte(`"id"`), []byte(`"extra": 1, "id"`), 1), ErrCorruptManifest},
		{"trailing data", append(append([]byte{}, good...), []byte("{}")...), ErrCorruptManifest},
		{"wrong type", bytes.Replace(good, []byte(`"id": 5`), []byte(`"id": "5"`), 1), ErrCorruptManifest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Decode(c.data); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestEncodeRefusesOtherVersion(t *testing.T) {
	m := validManifest(1)
	m.FormatVersion = 0
	if _, err := Encode(m); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("got %v, want ErrIncompatible", err)
	}
}

// FuzzDecodeManifest checks that Decode never panics and that whatever it
// accepts encodes to a stable form that decodes to the same manifest.
func FuzzDecodeManifest(f *testing.F) {
	good, err := Encode(validManifest(9))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add([]byte(`{"format_version": 2}`))
	f.Add([]byte(`{"format_version": 2, "id": 1}`))
	f.Add([]byte(`[]`))
	f.Add(bytes.Replace(good, []byte("state/000005.sst"), []byte("../x"), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorruptManifest) && !errors.Is(err, ErrIncompatible) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatalf("Decode accepted what Encode refuses: %v", err)
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		enc2, _ := Encode(m2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
	})
}

// Every single-bit flip anywhere in a manifest is detected: as invalid
// JSON, as a failed validation, or by the checksum and canonical bytes
// (a digit of a position flipped still parses).
func TestManifestEveryBitFlipDetected(t *testing.T) {
	data, err := Encode(validManifest(7))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		for bit := 0; bit < 8; bit++ {
			flipped := bytes.Clone(data)
			flipped[i] ^= 1 << bit
			if _, err := Decode(flipped); err == nil {
				t.Fatalf("flip of bit %d of byte %d (%q) not detected", bit, i, data[i])
			}
		}
	}
}

// TestManifestFormatVersions: format 2 manifests (written before state
// versions) still read; state versions travel in format 3 and are refused
// in a format 2 manifest or when not positive.
func TestManifestFormatVersions(t *testing.T) {
	v2 := validManifest(3)
	v2.FormatVersion = 2
	data, err := Encode(v2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(data); err != nil || got.FormatVersion != 2 {
		t.Fatalf("format 2: %v %d", err, got.FormatVersion)
	}
	v3 := validManifest(4)
	v3.Operators[0].StateVersions = map[string]int32{"total": 2}
	data, err = Encode(v3)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(data); err != nil || got.Operators[0].StateVersions["total"] != 2 {
		t.Fatalf("format 3 state versions: %v %v", err, got.Operators[0].StateVersions)
	}
	v2.Operators[0].StateVersions = map[string]int32{"total": 2}
	if _, err := Encode(v2); !errors.Is(err, ErrCorruptManifest) {
		t.Fatalf("state versions in format 2: %v", err)
	}
	v3.Operators[0].StateVersions = map[string]int32{"total": 0}
	if _, err := Encode(v3); !errors.Is(err, ErrCorruptManifest) {
		t.Fatalf("version 0: %v", err)
	}
}
