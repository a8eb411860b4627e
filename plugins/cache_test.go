package plugins

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFetchWritesAndReusesCacheFile(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	wasm := fixture(t, "good.wasm")
	e := mustPush(t, r, "risk", wasm)
	dir := filepath.Join(t.TempDir(), "cache", "modules") // created on demand

	path, got, err := r.Fetch(ctx, mustRef(t, "risk"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, e.Hash+".wasm") || path != CachePath(dir, e.Hash) || got.Hash != e.Hash {
		t.Fatalf("fetch: %s, %+v", path, got)
	}
	assertFile(t, path, wasm)
	before, _ := os.Stat(path)

	again, _, err := r.Fetch(ctx, mustRef(t, "risk@"+e.Hash[:8]), dir)
	if err != nil || again != path {
		t.Fatalf("second fetch: %s, %v", again, err)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Fatal("a valid cache file was rewritten instead of reused")
	}
	assertNoTempFiles(t, dir)
}

// A damaged cache file (other bytes, truncated, empty) is replaced by the
// registry's bytes, never returned.
func TestFetchReplacesCorruptCacheFile(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	wasm := fixture(t, "good.wasm")
	e := mustPush(t, r, "risk", wasm)
	dir := t.TempDir()
	path := CachePath(dir, e.Hash)
	for name, damaged := range map[string][]byte{
		"other bytes": fixture(t, "version2.wasm"),
		"truncated":   wasm[:len(wasm)-1],
		"empty":       {},
		"bit flip":    append(append([]byte{}, wasm[:20]...), append([]byte{wasm[20] ^ 1}, wasm[21:]...)...),
	} {
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := r.Fetch(ctx, e.Ref(), dir)
		if err != nil || got != path {
			t.Fatalf("%s: fetch %s, %v", name, got, err)
		}
		assertFile(t, path, wasm)
	}
	assertNoTempFiles(t, dir)
}

func TestFetchErrors(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	dir := t.TempDir()
	if _, _, err := r.Fetch(ctx, mustRef(t, "op/risk.wasm"), dir); !errors.Is(err, ErrLocalRef) {
		t.Fatalf("local ref: %v", err)
	}
	if _, _, err := r.Fetch(ctx, mustRef(t, "risk"), dir); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty registry: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("failed fetches left %d files", len(entries))
	}
}

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes (want %d), %v", path, len(got), len(want), err)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) != 0 {
		t.Fatalf("temporary files left behind: %v", tmp)
	}
}
