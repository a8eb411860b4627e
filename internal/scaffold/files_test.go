package scaffold

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// projectFiles are the files every language's project must have besides
// its SDK copy, by language.
var projectFiles = map[Lang][]string{
	Go:             {"go.mod", "main.go", "operator.go", "operator_test.go", SDKDir + "/go.mod", SDKDir + "/abi/codes.go", SDKDir + "/sdk/go/operator.go", SDKDir + "/sdk/go/sdktest/harness.go"},
	Rust:           {"Cargo.toml", "Cargo.lock", ".cargo/config.toml", "src/lib.rs", "src/tests.rs", SDKDir + "/Cargo.toml", SDKDir + "/src/lib.rs", SDKDir + "/src/testing/mod.rs"},
	C:              {"src/operator.c", "test/operator_test.c", "testdata/cases.jsonl", "testdata/want.jsonl", SDKDir + "/wasmstream.h", SDKDir + "/wasmstream_json.c", SDKDir + "/testing/wasmstream_testing.c"},
	AssemblyScript: {"package.json", "package-lock.json", "asconfig.json", "assembly/index.ts", "assembly/operator.ts", "test/operator.test.mjs", SDKDir + "/index.ts", SDKDir + "/test/fakehost.mjs", SDKDir + "/testing.mjs"},
}

func TestFilesOfEveryLanguage(t *testing.T) {
	for _, l := range Langs {
		t.Run(string(l), func(t *testing.T) {
			files, err := Files(l, "pay-totals")
			if err != nil {
				t.Fatal(err)
			}
			byPath := map[string][]byte{}
			for _, f := range files {
				byPath[f.Path] = f.Data
				if strings.HasSuffix(f.Path, ".tmpl") || strings.HasSuffix(f.Path, ".copy") || strings.Contains(f.Path, "dot-") {
					t.Errorf("%s: a template name reached the project", f.Path)
				}
				if bytes.Contains(f.Data, []byte("__NAME__")) || bytes.Contains(f.Data, []byte("__CRATE__")) {
					t.Errorf("%s: a placeholder is left", f.Path)
				}
			}
			for _, p := range append([]string{"pipeline.hcl", "events.jsonl", "Makefile", "README.md", ".gitignore"}, projectFiles[l]...) {
				if _, ok := byPath[p]; !ok {
					t.Errorf("no %s", p)
				}
			}
			checkPipeline(t, byPath["pipeline.hcl"], "pay-totals")
		})
	}
}

// checkPipeline parses the scaffolded pipeline.hcl as run would.
func checkPipeline(t *testing.T, src []byte, name string) {
	t.Helper()
	dir := t.TempDir()
	cfg, _, err := config.Parse(src, filepath.Join(dir, "pipeline.hcl"))
	if err != nil {
		t.Fatalf("pipeline.hcl: %v", err)
	}
	if cfg.Name != name || len(cfg.Operators) != 1 {
		t.Fatalf("pipeline %q with %d operators, want %q with one", cfg.Name, len(cfg.Operators), name)
	}
	op := cfg.Operators[0]
	if op.Name != name || op.Module != filepath.Join(dir, ModuleName) || op.Key.JSONField != "account" {
		t.Fatalf("operator %q module %s key %q, want %q, %s and the JSON field account", op.Name, op.Module, op.Key.JSONField, name, ModuleName)
	}
}

func TestFilesRefuseBadNamesAndLanguages(t *testing.T) {
	if _, err := Files(Go, "Pay"); err == nil {
		t.Error("upper case accepted")
	}
	if _, err := Files(Lang("zig"), "pay"); err == nil || !strings.Contains(err.Error(), "choose one of go, rust, c, assemblyscript") {
		t.Errorf("unknown language: %v", err)
	}
}

// The Rust library name follows the project name, which cargo turns into
// the module's file name.
func TestRustCrateName(t *testing.T) {
	files, err := Files(Rust, "pay-totals")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "Cargo.toml" && !bytes.Contains(f.Data, []byte(`name = "pay_totals"`)) {
			t.Fatalf("Cargo.toml has no lib name pay_totals:\n%s", f.Data)
		}
	}
}

func TestOutputPath(t *testing.T) {
	for in, want := range map[string]string{
		"main.go.tmpl":               "main.go",
		"dot-gitignore.tmpl":         ".gitignore",
		"dot-cargo/config.toml.tmpl": ".cargo/config.toml",
		"src/lib.rs.tmpl":            "src/lib.rs",
		"a/dot-b/dot-c.tmpl":         "a/.b/.c",
	} {
		if got := outputPath(in); got != want {
			t.Errorf("outputPath(%q) = %q, want %q", in, got, want)
		}
	}
}
