package scaffold

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestCargoLibName(t *testing.T) {
	tests := []struct{ manifest, want string }{
		{"[package]\nname = \"pay-totals\"\n", "pay_totals"},
		{"[package]\nname = \"pay-totals\"\n\n[lib]\nname = \"totals\"\ncrate-type = [\"cdylib\"]\n", "totals"},
		{"[lib]\nname = \"x\"\n[package]\nname = \"y\"\n", "x"},
		{"[dependencies]\nname = \"z\"\n[package]\nname=\"w\"\n", "w"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"Cargo.toml": tt.manifest})
		got, err := cargoLibName(filepath.Join(dir, "Cargo.toml"))
		if err != nil || got != tt.want {
			t.Errorf("cargoLibName(%q) = %q, %v; want %q", tt.manifest, got, err, tt.want)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"Cargo.toml": "[workspace]\n"})
	if _, err := cargoLibName(filepath.Join(dir, "Cargo.toml")); !errors.Is(err, ErrNoProject) {
		t.Errorf("a workspace manifest: %v, want ErrNoProject", err)
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"GOOS=wasip1"}, "go", []string{"build", "-o", "my op.wasm", "."})
	if want := `GOOS=wasip1 go build -o "my op.wasm" .`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}

// Without the toolchain on PATH, Build names what to install instead of
// failing somewhere inside a command.
func TestBuildNamesTheMissingToolchain(t *testing.T) {
	tests := []struct {
		lang Lang
		want []string
	}{
		{Go, []string{"the go command", "https://go.dev/dl/"}},
		{C, []string{"clang-19", "apt-get install -y clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc"}},
		{AssemblyScript, []string{"node", "Node.js 20 or newer"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.lang), func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Init(InitOptions{Lang: tt.lang, Name: "totals", Dir: dir}); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", t.TempDir())
			t.Setenv("CC", "")
			_, err := Build(context.Background(), BuildOptions{Dir: dir})
			if !errors.Is(err, ErrToolchainMissing) {
				t.Fatalf("Build: %v, want ErrToolchainMissing", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestBuildRefusesWhatIsNoProject(t *testing.T) {
	if _, err := Build(context.Background(), BuildOptions{Dir: t.TempDir()}); !errors.Is(err, ErrNoProject) {
		t.Errorf("empty directory: %v, want ErrNoProject", err)
	}
	missingDir := filepath.Join(t.TempDir(), "nothing")
	if _, err := Build(context.Background(), BuildOptions{Dir: missingDir}); !errors.Is(err, ErrNoProject) {
		t.Errorf("missing directory: %v, want ErrNoProject", err)
	}
	if _, err := Build(context.Background(), BuildOptions{Dir: t.TempDir(), Lang: Lang("zig")}); !errors.Is(err, ErrUnknownLang) {
		t.Errorf("unknown language: %v, want ErrUnknownLang", err)
	}
}

func TestHasWasmStdIsFalseForNoCompiler(t *testing.T) {
	if hasWasmStd(filepath.Join(t.TempDir(), "rustc")) {
		t.Error("a missing rustc has a wasm32 standard library")
	}
}
