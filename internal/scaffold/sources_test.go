package scaffold

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/sdk"
)

// sdkSourceRules say which files of each SDK folder a project needs: the
// sources that build and test an operator, without the SDK's own tests.
var sdkSourceRules = map[string]func(rel string) bool{
	"go": func(rel string) bool {
		dir := path.Dir(rel)
		return (dir == "." || dir == "internal/hostcall" || dir == "sdktest") &&
			strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	},
	"rust": func(rel string) bool {
		return rel == "Cargo.toml" || strings.HasPrefix(rel, "src/") && strings.HasSuffix(rel, ".rs") && path.Base(rel) != "tests.rs"
	},
	"c": func(rel string) bool {
		dir := path.Dir(rel)
		return (dir == "." || dir == "testing") && (strings.HasSuffix(rel, ".c") || strings.HasSuffix(rel, ".h"))
	},
	"assemblyscript": func(rel string) bool {
		switch {
		case rel == "package.json", rel == "asconfig.json", rel == "test/fakehost.mjs", rel == "testing.mjs":
			return true
		case path.Dir(rel) == "." && strings.HasSuffix(rel, ".ts"):
			return true
		}
		return path.Dir(rel) == "assembly" && (strings.HasSuffix(rel, ".ts") || rel == "assembly/tsconfig.json")
	},
}

// skippedDirs are build outputs and installed packages, never sources.
var skippedDirs = map[string]bool{"node_modules": true, "target": true, "build": true, "testdata": true, "hosttest": true, "tests": true}

// sdk.Sources must hold exactly the files the rules pick from sdk/, so
// that a file added to an SDK reaches the projects init writes.
func TestSDKSourcesAreExactlyTheNeededFiles(t *testing.T) {
	root := filepath.Join(testutil.ModuleRoot(t), "sdk")
	for lang, needed := range sdkSourceRules {
		want := neededFiles(t, filepath.Join(root, lang), needed)
		got := embeddedFiles(t, lang)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("sdk.Sources for %s differs from the SDK's sources; fix the go:embed lines of sdk/embed.go\n got: %v\nwant: %v", lang, got, want)
		}
	}
}

// neededFiles walks an SDK folder for the files needed says.
func neededFiles(t *testing.T, dir string, needed func(string) bool) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skippedDirs[d.Name()] {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() && needed(filepath.ToSlash(rel)) {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

func embeddedFiles(t *testing.T, lang string) []string {
	t.Helper()
	var files []string
	err := fs.WalkDir(sdk.Sources, lang, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, lang+"/"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// goabi/ must be the abi package as it is: the Go SDK copy builds against it.
func TestGoABICopyIsCurrent(t *testing.T) {
	dir := filepath.Join(testutil.ModuleRoot(t), "abi")
	want := neededFiles(t, dir, func(rel string) bool {
		return path.Dir(rel) == "." && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	})
	var got []string
	entries, err := goABI.ReadDir("goabi")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, strings.TrimSuffix(e.Name(), ".copy"))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("goabi holds %v, abi has %v: add a go:generate line in files.go and run go generate ./internal/scaffold", got, want)
	}
	for _, name := range want {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		copied, _ := goABI.ReadFile("goabi/" + name + ".copy")
		if !bytes.Equal(src, copied) {
			t.Errorf("goabi/%s.copy is stale: run go generate ./internal/scaffold", name)
		}
	}
}

// The project's go.mod and the SDK copy's must ask for the Go version the
// repository builds with, or the SDK copy may use what the project's Go
// does not have.
func TestGoVersionIsTheRepositorys(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`)
	want := goLine.Find(b)
	for _, p := range []string{"templates/go/go.mod.tmpl", "templates/go/wasmstream-sdk/go.mod.tmpl"} {
		tmpl, err := templates.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := goLine.Find(tmpl); !bytes.Equal(got, want) {
			t.Errorf("%s says %q, the repository's go.mod %q", p, got, want)
		}
	}
}
