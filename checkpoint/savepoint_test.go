package checkpoint

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestValidateSavepointName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"sp-7-20260301t123045", true},
		{"before_v2", true},
		{"a", true},
		{strings.Repeat("x", 64), true},
		{"", false},
		{strings.Repeat("x", 65), false},
		{"Before", false},
		{"a/b", false},
		{"..", false},
		{".tmp-sp-x", false},
		{"a b", false},
		{"é", false},
	} {
		err := ValidateSavepointName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("%q: error %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrSavepointName) {
			t.Errorf("%q: %v does not wrap ErrSavepointName", tc.name, err)
		}
	}
}

func TestDefaultSavepointName(t *testing.T) {
	at := time.Date(2026, 3, 1, 13, 30, 45, 999, time.FixedZone("CET", 3600))
	if got, want := DefaultSavepointName(42, at), "sp-42-20260301t123045"; got != want {
		t.Fatalf("got %q, want %q (UTC, seconds)", got, want)
	}
	if err := ValidateSavepointName(DefaultSavepointName(^uint64(0), at)); err != nil {
		t.Fatalf("the default name of the largest id is invalid: %v", err)
	}
}

func validSavepointInfo() SavepointInfo {
	return SavepointInfo{Name: "before-v2", Pipeline: "payments", Created: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		CheckpointID: 7, Description: "a <note> & more", ManifestSHA256: strings.Repeat("c", 64),
		Modules: []SavepointModule{{Operator: "fraud", SHA256: strings.Repeat("ab", 32), Size: 10}}}
}

func TestSavepointInfoRoundTrip(t *testing.T) {
	data, err := EncodeSavepointInfo(validSavepointInfo())
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSavepointInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	want := validSavepointInfo()
	want.FormatVersion, want.Checksum = SavepointFormatVersion, got.Checksum
	if len(got.Checksum) != 64 || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestDecodeSavepointInfoRefuses(t *testing.T) {
	good, err := EncodeSavepointInfo(validSavepointInfo())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"a digit of the checkpoint id", edit(`"checkpoint_id": 7`, `"checkpoint_id": 8`), ErrCorruptSavepoint},
		{"a letter of the name", edit(`"before-v2"`, `"before-v3"`), ErrCorruptSavepoint},
		{"unknown field", edit(`"name"`, `"extra": 1, "name"`), ErrCorruptSavepoint},
		{"trailing data", append(append([]byte{}, good...), `{}`...), ErrCorruptSavepoint},
		{"not JSON", good[:len(good)/2], ErrCorruptSavepoint},
		{"no version", edit(`"format_version": 1,`, ``), ErrCorruptSavepoint},
		{"newer version", edit(`"format_version": 1`, `"format_version": 2`), ErrIncompatible},
		{"reindented", bytes.ReplaceAll(good, []byte("  "), []byte("\t")), ErrCorruptSavepoint},
	} {
		if _, err := DecodeSavepointInfo(tc.data); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	bad := validSavepointInfo()
	bad.Name = "Bad Name"
	if _, err := EncodeSavepointInfo(bad); !errors.Is(err, ErrCorruptSavepoint) {
		t.Errorf("encoding an invalid name: %v", err)
	}
}

func TestCreateSavepointIsSelfContained(t *testing.T) {
	f := newSPFixture(t)
	f.checkpoint(t, 1)
	sp := f.savepoint(t, 2, "before-v2")
	want, err := Read(f.CheckpointRoot, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sp.Manifest, want) || sp.Info.CheckpointID != 2 || sp.Info.Pipeline != "payments" {
		t.Fatalf("savepoint %+v does not hold checkpoint 2 %+v", sp.Info, want)
	}
	if sp.StateBytes() != want.Metrics.BytesTotal || sp.ModuleBytes() != int64(len(checkpointtest.Module)) {
		t.Errorf("bytes: state %d module %d", sp.StateBytes(), sp.ModuleBytes())
	}
	read, err := ReadSavepoint(f.SavepointRoot, "before-v2")
	if err != nil || !reflect.DeepEqual(read, sp) {
		t.Fatalf("ReadSavepoint = %+v, %v; want %+v", read, err, sp)
	}
	mod, err := os.ReadFile(filepath.Join(sp.Dir, "modules", checkpointtest.ModuleSHA256+".wasm"))
	if err != nil || !bytes.Equal(mod, checkpointtest.Module) {
		t.Fatalf("module in the savepoint: %q, %v", mod, err)
	}
	// Retention, the loss of every checkpoint and of the module file
	// leave the savepoint whole.
	if _, err := Retain(f.CheckpointRoot, 1); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.CheckpointRoot); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f.ModuleFile); err != nil {
		t.Fatal(err)
	}
	if err := VerifySavepoint(f.SavepointRoot, "before-v2"); err != nil {
		t.Fatalf("the savepoint depends on its source: %v", err)
	}
	if names, err := ListSavepoints(f.SavepointRoot); err != nil || !reflect.DeepEqual(names, []string{"before-v2"}) {
		t.Fatalf("ListSavepoints = %v, %v", names, err)
	}
}

func TestCreateSavepointDefaultName(t *testing.T) {
	f := newSPFixture(t)
	f.checkpoint(t, 3)
	spec := f.spec("")
	sp, err := CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 3, spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sp-3-20260301t123045"; sp.Info.Name != want || filepath.Base(sp.Dir) != want {
		t.Fatalf("name %q dir %s, want %q", sp.Info.Name, sp.Dir, want)
	}
}

func TestCreateSavepointRefusesDamagedCheckpoint(t *testing.T) {
	f := newSPFixture(t)
	m := f.checkpoint(t, 1)
	bad := largest(m.Files).Path
	flipByte(t, filepath.Join(Dir(f.CheckpointRoot, 1), filepath.FromSlash(bad)), 0)
	_, err := CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 1, f.spec("x"))
	testutil.WantErr(t, err, ErrCorrupt, "checkpoint 1", bad, "nothing was saved")
	if names, _ := ListSavepoints(f.SavepointRoot); len(names) != 0 {
		t.Errorf("savepoints after a refusal: %v", names)
	}
	noTemporaries(t, f.SavepointRoot)
}

func TestCreateSavepointNeedsEveryModule(t *testing.T) {
	f := newSPFixture(t)
	f.checkpoint(t, 1)
	spec := f.spec("x")
	spec.Modules = nil
	_, err := CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 1, spec)
	testutil.WantErr(t, err, ErrModuleMissing, `operator "fraud"`, checkpointtest.ModuleSHA256)

	other := filepath.Join(t.TempDir(), "other.wasm")
	if err := os.WriteFile(other, []byte("another build"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec.Modules = map[string]string{checkpointtest.ModuleSHA256: other}
	_, err = CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 1, spec)
	testutil.WantErr(t, err, errModuleHash, other)
	if names, _ := ListSavepoints(f.SavepointRoot); len(names) != 0 {
		t.Errorf("savepoints after a refusal: %v", names)
	}
	noTemporaries(t, f.SavepointRoot)
}

func TestCreateSavepointRefusesTakenName(t *testing.T) {
	f := newSPFixture(t)
	f.savepoint(t, 1, "x")
	before := dirDigest(t, f.SavepointRoot)
	f.checkpoint(t, 2)
	_, err := CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 2, f.spec("x"))
	testutil.WantErr(t, err, ErrSavepointExists, `"x"`)
	sameDirDigest(t, "savepoints", before, dirDigest(t, f.SavepointRoot))
	_, err = CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 9, f.spec("y"))
	testutil.WantErr(t, err, ErrCheckpointNotFound, "checkpoint 9")
	long := f.spec("y")
	long.Description = strings.Repeat("x", 4097)
	_, err = CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 2, long)
	testutil.WantErr(t, err, nil, "description has 4097 bytes")
	sameDirDigest(t, "savepoints", before, dirDigest(t, f.SavepointRoot))
}

func TestVerifySavepointFindsDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, sp Savepoint)
		want   error
		says   string
	}{
		{"a state file", func(t *testing.T, sp Savepoint) {
			flipByte(t, filepath.Join(sp.Dir, largest(sp.Manifest.Files).Path), -1)
		}, ErrCorrupt, "state/"},
		{"the module", func(t *testing.T, sp Savepoint) {
			flipByte(t, filepath.Join(sp.Dir, "modules", checkpointtest.ModuleSHA256+".wasm"), 3)
		}, ErrCorrupt, "modules/"},
		{"a missing file", func(t *testing.T, sp Savepoint) {
			_ = os.Remove(filepath.Join(sp.Dir, sp.Manifest.Files[0].Path))
		}, ErrMissingFile, "state/"},
		{"an unlisted file", func(t *testing.T, sp Savepoint) {
			_ = os.WriteFile(filepath.Join(sp.Dir, "state", "000999.sst"), []byte("x"), 0o644)
		}, ErrCorrupt, "000999.sst"},
		{"SAVEPOINT.json", func(t *testing.T, sp Savepoint) {
			flipByte(t, filepath.Join(sp.Dir, "SAVEPOINT.json"), 40)
		}, ErrCorruptSavepoint, "SAVEPOINT.json"},
		{"MANIFEST.json", func(t *testing.T, sp Savepoint) {
			flipByte(t, filepath.Join(sp.Dir, "MANIFEST.json"), 60)
		}, ErrCorruptManifest, "before-v2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSPFixture(t)
			sp := f.savepoint(t, 1, "before-v2")
			tc.damage(t, sp)
			testutil.WantErr(t, VerifySavepoint(f.SavepointRoot, "before-v2"), tc.want, tc.says)
		})
	}
}

func TestRemoveSavepoint(t *testing.T) {
	f := newSPFixture(t)
	f.savepoint(t, 1, "a")
	f.savepoint(t, 2, "b")
	if err := RemoveSavepoint(f.SavepointRoot, "a"); err != nil {
		t.Fatal(err)
	}
	if names, _ := ListSavepoints(f.SavepointRoot); !reflect.DeepEqual(names, []string{"b"}) {
		t.Fatalf("after rm a: %v", names)
	}
	testutil.WantErr(t, RemoveSavepoint(f.SavepointRoot, "a"), ErrSavepointNotFound, `"a"`)
	_, err := ReadSavepoint(f.SavepointRoot, "a")
	testutil.WantErr(t, err, ErrSavepointNotFound)
	// A removal interrupted after its rename is finished by the next writer.
	if err := os.Rename(SavepointDir(f.SavepointRoot, "b"), filepath.Join(f.SavepointRoot, ".del-sp-b")); err != nil {
		t.Fatal(err)
	}
	if names, _ := ListSavepoints(f.SavepointRoot); len(names) != 0 {
		t.Fatalf("a half-removed savepoint is listed: %v", names)
	}
	f.savepoint(t, 3, "c")
	noTemporaries(t, f.SavepointRoot)
}
