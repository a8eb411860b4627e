package plugins

import (
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// objectFor is the ObjectInfo the server would return for what objectMeta
// stores, with the digest of wasm.
func objectFor(e Entry, wasm []byte, at time.Time) *jetstream.ObjectInfo {
	h := sha256.New()
	h.Write(wasm)
	return &jetstream.ObjectInfo{ObjectMeta: objectMeta(e), Size: uint64(len(wasm)), ModTime: at, Digest: jetstream.GetObjectDigestValue(h)}
}

func TestEntryMetadataRoundTrip(t *testing.T) {
	wasm := []byte("module bytes")
	max := uint32(16)
	at := time.Date(2025, 3, 4, 5, 6, 7, 8, time.FixedZone("x", 3600))
	for _, in := range []Entry{
		{Name: "risk", Description: "payment risk", Info: Info{Hash: HashBytes(wasm), Size: int64(len(wasm)), ABIVersion: 1,
			Imports: []string{"emit", "record_next"}, MemoryMinPages: 2, MemoryMaxPages: &max}},
		{Name: "bare", Info: Info{Hash: HashBytes(wasm), Size: int64(len(wasm)), ABIVersion: 1, Imports: []string{}}},
	} {
		out, err := entryFromObject(objectFor(in, wasm, at))
		if err != nil {
			t.Fatal(err)
		}
		if out.Name != in.Name || out.Hash != in.Hash || out.Size != in.Size || out.ABIVersion != in.ABIVersion ||
			out.Description != in.Description || !slices.Equal(out.Imports, in.Imports) || out.MemoryMinPages != in.MemoryMinPages ||
			(out.MemoryMaxPages == nil) != (in.MemoryMaxPages == nil) || !out.PushedAt.Equal(at) || out.PushedAt.Location() != time.UTC {
			t.Fatalf("round trip:\n in %+v\nout %+v", in, out)
		}
		if in.MemoryMaxPages != nil && *out.MemoryMaxPages != *in.MemoryMaxPages {
			t.Fatalf("max %d, want %d", *out.MemoryMaxPages, *in.MemoryMaxPages)
		}
	}
}

func TestEntryFromForeignObjects(t *testing.T) {
	wasm := []byte("module bytes")
	good := Entry{Name: "risk", Info: Info{Hash: HashBytes(wasm), ABIVersion: 1}}
	for name, mutate := range map[string]func(o *jetstream.ObjectInfo){
		"no slash":       func(o *jetstream.ObjectInfo) { o.Name = "README" },
		"bad name":       func(o *jetstream.ObjectInfo) { o.Name = "a.b/" + good.Hash },
		"short hash":     func(o *jetstream.ObjectInfo) { o.Name = "risk/abc" },
		"upper hash":     func(o *jetstream.ObjectInfo) { o.Name = "risk/" + strings.ToUpper(good.Hash) },
		"abi not number": func(o *jetstream.ObjectInfo) { o.Metadata[metaABIVersion] = "one" },
		"no metadata":    func(o *jetstream.ObjectInfo) { o.Metadata = nil },
		"bad max":        func(o *jetstream.ObjectInfo) { o.Metadata[metaMemoryMax] = "-1" },
		"bad min":        func(o *jetstream.ObjectInfo) { o.Metadata[metaMemoryMin] = "99999999999" },
	} {
		o := objectFor(good, wasm, time.Now())
		mutate(o)
		if _, err := entryFromObject(o); err == nil {
			t.Errorf("%s: accepted %+v", name, o)
		}
	}
	// Other bytes under a version's name: the digest gives it away.
	o := objectFor(good, []byte("other bytes"), time.Now())
	if _, err := entryFromObject(o); !errors.Is(err, ErrCorrupt) {
		t.Errorf("digest mismatch: got %v, want ErrCorrupt", err)
	}
}

// Object names and metadata come from a shared bucket: reading any of them
// either fails or gives an entry whose name and hash are valid.
func FuzzEntryFromObject(f *testing.F) {
	wasm := []byte("m")
	f.Add("risk/"+HashBytes(wasm), "1", "record_next,emit", "2", "16", true)
	f.Add("x", "", "", "", "", false)
	f.Fuzz(func(t *testing.T, name, abiVersion, imports, memMin, memMax string, withMax bool) {
		o := objectFor(Entry{}, wasm, time.Unix(0, 0))
		o.Name = name
		o.Metadata = map[string]string{metaABIVersion: abiVersion, metaImports: imports, metaMemoryMin: memMin}
		if withMax {
			o.Metadata[metaMemoryMax] = memMax
		}
		e, err := entryFromObject(o)
		if err != nil {
			return
		}
		if ValidateName(e.Name) != nil || e.Hash != HashBytes(wasm) || objectName(e.Name, e.Hash) != name {
			t.Fatalf("entry %+v from object %q", e, name)
		}
	})
}
