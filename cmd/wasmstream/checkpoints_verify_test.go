package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

func TestCheckpointsVerifyPasses(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	out := mustRunCheckpoints(t, "verify", "--data-dir", dataDir)
	want := ""
	for i := len(written) - 1; i >= 0; i-- {
		m := written[i]
		want += fmt.Sprintf("checkpoint %d: ok (%d files, %d bytes verified)\n", m.ID, len(m.Files), m.Metrics.BytesTotal)
	}
	if out != want {
		t.Fatalf("verify:\n%s\nwant:\n%s", out, want)
	}
	if out := mustRunCheckpoints(t, "verify", "--data-dir", dataDir, "2"); out != strings.Split(want, "\n")[1]+"\n" {
		t.Fatalf("verify 2: %q", out)
	}
}

// verifyAll runs verify over every checkpoint and returns its text output
// and the ids it reported as failed.
func verifyAll(t *testing.T, dataDir string) (string, []uint64, error) {
	t.Helper()
	out, err := runCheckpoints(t, "verify", "--data-dir", dataDir)
	var failed []uint64
	for _, line := range strings.Split(out, "\n") {
		var id uint64
		if _, serr := fmt.Sscanf(line, "checkpoint %d: FAILED", &id); serr == nil {
			failed = append(failed, id)
		}
	}
	if (err == nil) != (len(failed) == 0) || (err != nil && !errors.Is(err, errVerifyFailed)) {
		t.Fatalf("verify printed failures %v but returned %v:\n%s", failed, err, out)
	}
	return out, failed, err
}

// holders returns the ids of the checkpoints holding path's file: Pebble
// hard-links unchanged SSTs, so one flipped bit damages every checkpoint
// that shares the file, and verify must report each of them.
func holders(t *testing.T, root string, ms []checkpoint.Manifest, path string) []uint64 {
	t.Helper()
	target, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for i := len(ms) - 1; i >= 0; i-- {
		for _, f := range append(ms[i].Files, checkpoint.FileEntry{Path: "MANIFEST.json"}) {
			info, err := os.Stat(filepath.Join(checkpoint.Dir(root, ms[i].ID), filepath.FromSlash(f.Path)))
			if err == nil && os.SameFile(info, target) {
				ids = append(ids, ms[i].ID)
				break
			}
		}
	}
	return ids
}

// A flipped bit in any file of checkpoint 2, its manifest included, fails
// verify naming the checkpoint (and every checkpoint sharing that file), and
// verify passes again once the byte is restored.
func TestCheckpointsVerifyDetectsBitFlipInEveryFile(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	root := engine.CheckpointRootIn(dataDir)
	dir := checkpoint.Dir(root, 2)
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"MANIFEST.json"}
	for _, f := range written[1].Files {
		paths = append(paths, f.Path)
	}
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		for _, off := range flipOffsets(t, full, p, manifest) {
			restore := damage(t, full, off)
			out, failed, _ := verifyAll(t, dataDir)
			want := holders(t, root, written, full)
			if !slices.Equal(failed, want) {
				t.Errorf("bit flipped in %s at %d: failed %v, want %v:\n%s", p, off, failed, want, out)
			}
			if p != "MANIFEST.json" && !strings.Contains(out, p) {
				t.Errorf("bit flipped in %s: output does not name the file:\n%s", p, out)
			}
			restore()
			if out, failed, _ := verifyAll(t, dataDir); len(failed) != 0 {
				t.Fatalf("byte of %s restored, verify still fails:\n%s", p, out)
			}
		}
	}
}

// flipOffsets picks where to flip a bit: the first, middle and last byte of
// every file; in the manifest also the last digit of a source position,
// which leaves valid JSON that passes validation, so only the manifest's
// own checksum can catch it. -1 marks an empty file (see damage).
func flipOffsets(t *testing.T, full, rel string, manifest []byte) []int64 {
	t.Helper()
	info, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() == 0 {
		return []int64{-1}
	}
	offs := []int64{0, info.Size() / 2, info.Size() - 1}
	if rel == "MANIFEST.json" {
		pos := []byte(`"last_sequence": 1500`)
		i := bytes.Index(manifest, pos)
		if i < 0 {
			t.Fatalf("manifest lacks %s", pos)
		}
		offs = append(offs, int64(i+len(pos)-1))
	}
	return offs
}

// damage flips a bit at off, or for off -1 (an empty file, such as Pebble's
// marker files, which carry their value in the name) appends a zero byte:
// the nearest thing to a bit flip a file without content can suffer. It
// returns a function that undoes the damage.
func damage(t *testing.T, path string, off int64) func() {
	t.Helper()
	if off >= 0 {
		return flipBit(t, path, off)
	}
	writeInPlace(t, path, []byte{0})
	return func() { truncate(t, path, 0) }
}

// flipBit flips the lowest bit of the byte at off and returns a function
// that restores it.
func flipBit(t *testing.T, path string, off int64) func() {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	orig := data[off]
	data[off] ^= 1
	writeInPlace(t, path, data)
	return func() {
		data[off] = orig
		writeInPlace(t, path, data)
	}
}

// writeInPlace rewrites path's content without replacing the file, so hard
// links keep sharing it as they would on a disk that flipped a bit.
func writeInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckpointsVerifyDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string, m checkpoint.Manifest) string // returns the expected message
	}{
		{"deleted file", func(t *testing.T, dir string, m checkpoint.Manifest) string {
			f := m.Files[len(m.Files)-1].Path
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				t.Fatal(err)
			}
			return "checkpoint file missing: " + f
		}},
		{"extra file", func(t *testing.T, dir string, _ checkpoint.Manifest) string {
			if err := os.WriteFile(filepath.Join(dir, "state", "000999.sst"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return "state/000999.sst: not listed in the manifest"
		}},
		{"truncated manifest", func(t *testing.T, dir string, _ checkpoint.Manifest) string {
			truncate(t, filepath.Join(dir, "MANIFEST.json"), 100)
			return "corrupt manifest"
		}},
		{"deleted manifest", func(t *testing.T, dir string, _ checkpoint.Manifest) string {
			if err := os.Remove(filepath.Join(dir, "MANIFEST.json")); err != nil {
				t.Fatal(err)
			}
			return "MANIFEST.json missing"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir, written := fixtureDataDir(t)
			root := engine.CheckpointRootIn(dataDir)
			want := tt.damage(t, checkpoint.Dir(root, 2), written[1])

			out, failed, err := verifyAll(t, dataDir)
			if !slices.Equal(failed, []uint64{2}) || !strings.Contains(out, want) ||
				!strings.Contains(out, "checkpoint 3: ok") || !strings.Contains(out, "checkpoint 1: ok") {
				t.Errorf("verify: failed %v, want [2] with %q:\n%s", failed, want, out)
			}
			if err == nil || !strings.Contains(err.Error(), "1 of 3 checkpoint(s) in "+root+" failed (2); a restore refuses them; rolling back to one that passed (3, 1)") {
				t.Errorf("verify error: %v", err)
			}
			if _, err := runCheckpoints(t, "verify", "--data-dir", dataDir, "3"); err != nil {
				t.Errorf("verify 3 fails for damage in 2: %v", err)
			}
			out, err = runCheckpoints(t, "verify", "--data-dir", dataDir, "2")
			if !errors.Is(err, errVerifyFailed) || !strings.Contains(out, want) || strings.Contains(out, "checkpoint 3") {
				t.Errorf("verify 2: %v:\n%s", err, out)
			}
			checkVerifyJSON(t, dataDir, want)
		})
	}
}

// checkVerifyJSON checks the JSON form after checkpoint 2 was damaged.
func checkVerifyJSON(t *testing.T, dataDir, want string) {
	t.Helper()
	out, err := runCheckpoints(t, "verify", "--data-dir", dataDir, "--json")
	if !errors.Is(err, errVerifyFailed) {
		t.Errorf("verify --json returned %v, want errVerifyFailed", err)
	}
	var results []struct {
		ID    uint64 `json:"id"`
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &results); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(results) != 3 || results[1].ID != 2 || results[1].OK || !strings.Contains(results[1].Error, want) ||
		!results[0].OK || !results[2].OK || results[0].Error != "" {
		t.Errorf("verify --json: %+v", results)
	}
}

func TestCheckpointsVerifyNoCheckpoints(t *testing.T) {
	dataDir := t.TempDir()
	if out := mustRunCheckpoints(t, "verify", "--data-dir", dataDir); !strings.Contains(out, "no checkpoints in") {
		t.Fatalf("verify without checkpoints: %q", out)
	}
	if out := mustRunCheckpoints(t, "verify", "--data-dir", dataDir, "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("verify --json without checkpoints: %q", out)
	}
}
