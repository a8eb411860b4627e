package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  Lang
		err   error
	}{
		{"go.mod", map[string]string{"go.mod": "module x\n"}, Go, nil},
		{"Cargo.toml", map[string]string{"Cargo.toml": "[package]\n"}, Rust, nil},
		{"assemblyscript", map[string]string{"package.json": `{"devDependencies":{"assemblyscript":"0.28.20"}}`}, AssemblyScript, nil},
		{"other package.json", map[string]string{"package.json": `{"name":"web"}`}, "", ErrNoProject},
		{"src/*.c", map[string]string{"src/op.c": ""}, C, nil},
		{"*.c", map[string]string{"op.c": ""}, C, nil},
		{"only the C SDK", map[string]string{SDKDir + "/wasmstream.c": ""}, "", ErrNoProject},
		{"empty", nil, "", ErrNoProject},
		{"go and rust", map[string]string{"go.mod": "", "Cargo.toml": ""}, "", ErrAmbiguousProject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			got, err := Detect(dir)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Fatalf("Detect = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// Every project init writes is detected as its own language.
func TestDetectKnowsEveryScaffoldedProject(t *testing.T) {
	for _, l := range Langs {
		dir := t.TempDir()
		if _, err := Init(InitOptions{Lang: l, Name: "totals", Dir: dir}); err != nil {
			t.Fatal(err)
		}
		if got, err := Detect(dir); got != l || err != nil {
			t.Errorf("%s project detected as %q, %v", l, got, err)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
