package checkpoint

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// archiveEntry is one file of an archive, for tests that rebuild archives.
type archiveEntry struct {
	hdr  tar.Header
	data []byte
}

func splitArchive(t testing.TB, b []byte) []archiveEntry {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	var out []archiveEntry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archiveEntry{hdr: *hdr, data: data})
	}
}

func joinArchive(t testing.TB, entries []archiveEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := e.hdr
		hdr.Size = int64(len(e.data))
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestArchiveRoundTrip(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 5, "before-v2")
	data := archiveOf(t, f.SavepointRoot, "before-v2")
	if again := archiveOf(t, f.SavepointRoot, "before-v2"); !bytes.Equal(again, data) {
		t.Fatal("two exports of one savepoint differ")
	}
	var names []string
	for _, e := range splitArchive(t, data) {
		names = append(names, e.hdr.Name)
	}
	want := []string{"SAVEPOINT.json", "MANIFEST.json"}
	for _, fe := range sp.Manifest.Files {
		want = append(want, fe.Path)
	}
	want = append(want, "modules/"+checkpointtest.ModuleSHA256+".wasm")
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("archive entries %v, want %v", names, want)
	}

	other := filepath.Join(t.TempDir(), "savepoints")
	got, already, err := ImportArchive(bytes.NewReader(data), other, "")
	if err != nil || already {
		t.Fatalf("import: %v (already %v)", err, already)
	}
	if !reflect.DeepEqual(got.Info, sp.Info) || !reflect.DeepEqual(got.Manifest, sp.Manifest) {
		t.Fatalf("imported %+v, want %+v", got.Info, sp.Info)
	}
	if err := VerifySavepoint(other, "before-v2"); err != nil {
		t.Fatal(err)
	}
	sameDirDigest(t, "imported savepoint", dirDigest(t, sp.Dir), dirDigest(t, got.Dir))
	noTemporaries(t, other)
}

func TestImportArchiveNames(t *testing.T) {
	f := newSPFixture(t)
	f.savepoint(t, 1, "x")
	data := archiveOf(t, f.SavepointRoot, "x")
	// The same savepoint again: nothing to do.
	before := dirDigest(t, f.SavepointRoot)
	if _, already, err := ImportArchive(bytes.NewReader(data), f.SavepointRoot, ""); err != nil || !already {
		t.Fatalf("re-import: already %v, %v", already, err)
	}
	sameDirDigest(t, "savepoints", before, dirDigest(t, f.SavepointRoot))
	// Under another name: a new savepoint that says so.
	sp, _, err := ImportArchive(bytes.NewReader(data), f.SavepointRoot, "y")
	if err != nil {
		t.Fatal(err)
	}
	if sp.Info.Name != "y" || VerifySavepoint(f.SavepointRoot, "y") != nil {
		t.Fatalf("renamed import: %+v", sp.Info)
	}
	// Another savepoint under a taken name is refused.
	f.savepoint(t, 2, "z")
	if err := RemoveSavepoint(f.SavepointRoot, "x"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(SavepointDir(f.SavepointRoot, "z"), SavepointDir(f.SavepointRoot, "x")); err != nil {
		t.Fatal(err)
	}
	_, _, err = ImportArchive(bytes.NewReader(data), f.SavepointRoot, "")
	testutil.WantErr(t, err, ErrSavepointExists, `"x"`, "--name")
	_, _, err = ImportArchive(bytes.NewReader(data), f.SavepointRoot, "Bad")
	testutil.WantErr(t, err, ErrSavepointName)
	noTemporaries(t, f.SavepointRoot)
}

// TestArchiveDamageIsRefused damages a good archive in every way a
// transfer or a hand could, and checks that import and adoption refuse it,
// name the file, and write nothing.
func TestArchiveDamageIsRefused(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 1, "x")
	good := archiveOf(t, f.SavepointRoot, "x")
	entries := splitArchive(t, good)
	state := largest(sp.Manifest.Files).Path
	module := "modules/" + checkpointtest.ModuleSHA256 + ".wasm"
	index := func(name string) int {
		for i, e := range entries {
			if e.hdr.Name == name {
				return i
			}
		}
		t.Fatalf("no entry %s", name)
		return -1
	}
	edited := func(edit func(es []archiveEntry) []archiveEntry) []byte {
		es := make([]archiveEntry, len(entries))
		for i, e := range entries {
			es[i] = archiveEntry{hdr: e.hdr, data: bytes.Clone(e.data)}
		}
		return joinArchive(t, edit(es))
	}
	flip := func(name string) []byte {
		return edited(func(es []archiveEntry) []archiveEntry {
			e := &es[index(name)]
			e.data[len(e.data)/2] ^= 1
			return es
		})
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		want  error
		names string
	}{
		{"flipped SAVEPOINT.json", flip("SAVEPOINT.json"), ErrCorruptArchive, "SAVEPOINT.json"},
		{"flipped MANIFEST.json", flip("MANIFEST.json"), ErrCorruptArchive, "MANIFEST.json"},
		{"flipped state file", flip(state), ErrCorruptArchive, state},
		{"flipped module", flip(module), ErrCorruptArchive, module},
		{"truncated in a state file", good[:int(float64(len(good))*0.6)], ErrCorruptArchive, "truncated"},
		{"only the first entry", good[:1024], ErrCorruptArchive, "MANIFEST.json"},
		{"empty", nil, ErrCorruptArchive, "SAVEPOINT.json"},
		{"module missing", edited(func(es []archiveEntry) []archiveEntry { return es[:len(es)-1] }), ErrCorruptArchive, module},
		{"state file missing", edited(func(es []archiveEntry) []archiveEntry {
			i := index(state)
			return append(es[:i], es[i+1:]...)
		}), ErrCorruptArchive, state},
		{"entries swapped", edited(func(es []archiveEntry) []archiveEntry {
			es[2], es[3] = es[3], es[2]
			return es
		}), ErrCorruptArchive, es2(entries)},
		{"extra entry", edited(func(es []archiveEntry) []archiveEntry {
			return append(es, archiveEntry{hdr: tar.Header{Name: "state/000999.sst", Typeflag: tar.TypeReg, Mode: 0o644}, data: []byte("x")})
		}), ErrCorruptArchive, "000999.sst"},
		{"path escape", edited(func(es []archiveEntry) []archiveEntry {
			es[index(state)].hdr.Name = "../../" + state
			return es
		}), ErrCorruptArchive, state},
		{"symlink", edited(func(es []archiveEntry) []archiveEntry {
			e := &es[index(state)]
			e.hdr.Typeflag, e.hdr.Linkname, e.data = tar.TypeSymlink, "/etc/passwd", nil
			return es
		}), ErrCorruptArchive, state},
		{"grown state file", edited(func(es []archiveEntry) []archiveEntry {
			e := &es[index(state)]
			e.data = append(e.data, 0)
			return es
		}), ErrCorruptArchive, state},
		{"newer format", edited(func(es []archiveEntry) []archiveEntry {
			es[0].data = bytes.Replace(es[0].data, []byte(`"format_version": 1`), []byte(`"format_version": 2`), 1)
			return es
		}), ErrIncompatible, "SAVEPOINT.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spRoot := filepath.Join(t.TempDir(), "savepoints")
			_, _, err := ImportArchive(bytes.NewReader(tc.data), spRoot, "")
			testutil.WantErr(t, err, tc.want, tc.names, "nothing was imported")
			if names, _ := ListSavepoints(spRoot); len(names) != 0 {
				t.Errorf("savepoints after a refused import: %v", names)
			}
			noTemporaries(t, spRoot)
			ckRoot := filepath.Join(t.TempDir(), "checkpoints")
			_, err = AdoptArchive(bytes.NewReader(tc.data), ckRoot)
			testutil.WantErr(t, err, tc.want, tc.names, "no checkpoint was added")
			if ids, _ := List(ckRoot); len(ids) != 0 {
				t.Errorf("checkpoints after a refused adoption: %v", ids)
			}
			noTemporaries(t, ckRoot)
		})
	}
}

// es2 is the name of the entry at index 2, which a swap displaces.
func es2(entries []archiveEntry) string { return entries[2].hdr.Name }

// TestArchiveAnyFlippedByteIsCaught flips bytes all over an archive (every
// fourth; every one costs seconds): each result is refused, or decodes to
// exactly the original content (a flip in tar padding or in header fields
// the format ignores). Offsets 0..3 of a file all reach it the same way.
func TestArchiveAnyFlippedByteIsCaught(t *testing.T) {
	f := newSPFixture(t)
	f.savepoint(t, 1, "x")
	good := archiveOf(t, f.SavepointRoot, "x")
	want := decodeToMemory(t, good)
	step := 4
	if testing.Short() {
		step = 29
	}
	accepted := 0
	for i := 0; i < len(good); i += step {
		bad := bytes.Clone(good)
		bad[i] ^= 0x04
		files := memSink{}
		if _, err := decodeArchive(bytes.NewReader(bad), files.sink); err != nil {
			continue
		}
		accepted++
		if !reflect.DeepEqual(files.content(), want) {
			t.Fatalf("byte %d flipped: the archive decoded to other content", i)
		}
	}
	t.Logf("%d of %d flips decoded to the original content (padding, ignored header fields)", accepted, len(good)/step)
}

func TestAdoptArchive(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 3, "x")
	ckRoot := filepath.Join(t.TempDir(), "checkpoints")
	a, err := AdoptArchive(bytes.NewReader(archiveOf(t, f.SavepointRoot, "x")), ckRoot)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 3 || a.Reused || a.Renumbered || !reflect.DeepEqual(a.Info, sp.Info) {
		t.Fatalf("adoption %+v", a)
	}
	adopted(t, ckRoot, a, sp)
	if a, err = AdoptArchive(bytes.NewReader(archiveOf(t, f.SavepointRoot, "x")), ckRoot); err != nil || !a.Reused {
		t.Fatalf("second adoption %+v, %v; want reused", a, err)
	}
	noTemporaries(t, ckRoot)
}

func TestWriteArchiveRefusesDamagedSavepoint(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 1, "x")
	bad := largest(sp.Manifest.Files).Path
	flipByte(t, filepath.Join(sp.Dir, bad), 2)
	err := WriteArchive(io.Discard, f.SavepointRoot, "x")
	testutil.WantErr(t, err, ErrCorrupt, bad, `savepoint "x"`)
	if err := os.Remove(filepath.Join(sp.Dir, bad)); err != nil {
		t.Fatal(err)
	}
	testutil.WantErr(t, WriteArchive(io.Discard, f.SavepointRoot, "x"), ErrMissingFile, bad)
}

// memSink keeps decoded files in memory.
type memSink map[string]*bytes.Buffer

func (m memSink) sink(path string) (io.WriteCloser, error) {
	if _, dup := m[path]; dup {
		return nil, errors.New("file written twice: " + path)
	}
	b := &bytes.Buffer{}
	m[path] = b
	return nopWriteCloser{b}, nil
}

func (m memSink) content() map[string]string {
	out := map[string]string{}
	for p, b := range m {
		out[p] = b.String()
	}
	return out
}

func decodeToMemory(t testing.TB, data []byte) map[string]string {
	t.Helper()
	files := memSink{}
	if _, err := decodeArchive(bytes.NewReader(data), files.sink); err != nil {
		t.Fatal(err)
	}
	return files.content()
}

// FuzzDecodeArchive feeds arbitrary bytes to the archive decoder: it must
// not panic, and whatever it accepts must be exactly what the accepted
// manifest and SAVEPOINT.json describe.
func FuzzDecodeArchive(f *testing.F) {
	fx := newSPFixture(f)
	fx.savepoint(f, 1, "x")
	good := archiveOf(f, fx.SavepointRoot, "x")
	tiny := tinyArchive(f)
	f.Add(tiny)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:1536])
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0}, 1024))
	f.Fuzz(func(t *testing.T, data []byte) {
		files := memSink{}
		d, err := decodeArchive(bytes.NewReader(data), files.sink)
		if err != nil {
			if !errors.Is(err, ErrCorruptArchive) && !errors.Is(err, ErrIncompatible) {
				t.Fatalf("error %v is neither ErrCorruptArchive nor ErrIncompatible", err)
			}
			return
		}
		got := files.content()
		for _, fe := range d.manifest.Files {
			if c, ok := got[fe.Path]; !ok || int64(len(c)) != fe.Size || sha256Hex([]byte(c)) != fe.SHA256 {
				t.Fatalf("accepted %s that does not match its manifest entry", fe.Path)
			}
		}
		for _, m := range d.info.Modules {
			if c := got[modulePath(m.SHA256)]; sha256Hex([]byte(c)) != m.SHA256 {
				t.Fatalf("accepted module %s with other bytes", m.SHA256)
			}
		}
		if len(got) != len(d.manifest.Files)+len(d.info.moduleFiles())+2 {
			t.Fatalf("accepted %d files for %d listed", len(got), len(d.manifest.Files))
		}
	})
}

// tinyArchive is a valid archive of a hand-made two-file checkpoint: a
// small seed lets the fuzzer mutate the structure rather than state bytes.
func tinyArchive(tb testing.TB) []byte {
	tb.Helper()
	dir := tb.TempDir()
	module := []byte("m")
	m := validManifest(1)
	m.Operators[0].ModuleSHA256 = sha256Hex(module)
	m.Files = nil
	for _, name := range []string{"state/a", "state/b"} {
		data := []byte(name)
		m.Files = append(m.Files, FileEntry{Path: name, Size: int64(len(data)), SHA256: sha256Hex(data)})
		if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "modules"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, modulePath(sha256Hex(module))), module, 0o644); err != nil {
		tb.Fatal(err)
	}
	raw, err := Encode(m)
	if err != nil {
		tb.Fatal(err)
	}
	info := SavepointInfo{Name: "t", Pipeline: "p", Created: m.Created, CheckpointID: 1, ManifestSHA256: sha256Hex(raw),
		Modules: []SavepointModule{{Operator: m.Operators[0].Name, SHA256: sha256Hex(module), Size: 1}}}
	data, err := EncodeSavepointInfo(info)
	if err != nil {
		tb.Fatal(err)
	}
	info, _ = DecodeSavepointInfo(data)
	m, _ = Decode(raw)
	var buf bytes.Buffer
	if err := writeArchive(&buf, Savepoint{Info: info, Manifest: m, Dir: dir}); err != nil {
		tb.Fatal(err)
	}
	decodeToMemory(tb, buf.Bytes()) // a valid seed, or the fuzz target's success path goes untested
	return buf.Bytes()
}
