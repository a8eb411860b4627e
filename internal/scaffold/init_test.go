package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitWritesTheFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "totals")
	files, err := Init(InitOptions{Lang: C, Name: "totals", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || string(b) != string(f.Data) {
			t.Fatalf("%s: %v, or its bytes differ", f.Path, err)
		}
	}
}

func TestInitRefusesANonEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Init(InitOptions{Lang: Go, Name: "totals", Dir: dir})
	if !errors.Is(err, ErrDirNotEmpty) || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v, want ErrDirNotEmpty naming notes.txt and --force", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a refused init wrote %d entries", len(entries)-1)
	}
}

// --force replaces init's own files and keeps the others.
func TestInitForceKeepsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	keep, readme := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "README.md")
	for _, p := range []string{keep, readme} {
		if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Init(InitOptions{Lang: Go, Name: "totals", Dir: dir, Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Errorf("notes.txt = %q, want it kept", b)
	}
	if b, _ := os.ReadFile(readme); string(b) == "mine" {
		t.Error("README.md was not replaced")
	}
}

func TestInitRefusesAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "totals")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(InitOptions{Lang: Go, Name: "totals", Dir: p, Force: true}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("err = %v, want one saying the path is a file", err)
	}
}
