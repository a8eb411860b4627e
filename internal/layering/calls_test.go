package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// noCallsTo fails t for every use of ident ("importpath.Name", e.g.
// "time.Now") in the non-test .go files of dir: a pure core takes its
// clock, randomness or I/O from its caller.
func noCallsTo(t *testing.T, dir, ident string) {
	t.Helper()
	uses, err := usesOf(dir, ident)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range uses {
		t.Errorf("%s: %s is forbidden in %s; take it from the caller", u, ident, dir)
	}
}

// usesOf returns the positions (file:line) where the non-test .go files of
// dir use ident, however its package is imported. A dot import of the
// package counts as a use: it hides the calls.
func usesOf(dir, ident string) ([]string, error) {
	cut := strings.LastIndex(ident, ".")
	if cut <= 0 {
		return nil, fmt.Errorf("identifier %q is not importpath.Name", ident)
	}
	path, name := ident[:cut], ident[cut+1:]
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var uses []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, pos := range usesIn(f, path, name) {
			uses = append(uses, fset.Position(pos).String())
		}
	}
	return uses, nil
}

// usesIn returns where f refers to name of the package imported from path.
func usesIn(f *ast.File, path, name string) []token.Pos {
	local := map[string]bool{}
	var uses []token.Pos
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != path {
			continue
		}
		switch {
		case imp.Name == nil:
			local[path[strings.LastIndex(path, "/")+1:]] = true
		case imp.Name.Name == ".":
			uses = append(uses, imp.Pos())
		default:
			local[imp.Name.Name] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != name {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && local[x.Name] {
			uses = append(uses, sel.Pos())
		}
		return true
	})
	return uses
}

// The call checker must find a call however time is imported, and ignore
// test files, comments and other packages' Now.
func TestUsesOfFindsCalls(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"core.go":      "package core\n\nimport clock \"time\"\n\n// time.Now in a comment is fine.\nfunc now() int64 { return clock.Now().UnixNano() }\n",
		"plain.go":     "package core\n\nimport \"time\"\n\nvar start = time.Now\n",
		"dot.go":       "package core\n\nimport . \"time\"\n\nvar _ = Second\n",
		"other.go":     "package core\n\ntype clk struct{}\n\nfunc (clk) Now() int { return 0 }\n\nvar time clk\n\nvar _ = time.Now()\n",
		"core_test.go": "package core\n\nimport \"time\"\n\nvar _ = time.Now()\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uses, err := usesOf(dir, "time.Now")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"core.go:6", "dot.go:3", "plain.go:5"}
	if len(uses) != len(want) {
		t.Fatalf("uses %q, want %d at %q", uses, len(want), want)
	}
	for i, u := range uses {
		if !strings.Contains(u, want[i]) {
			t.Errorf("use %d at %s, want %s", i, u, want[i])
		}
	}
	if _, err := usesOf(dir, "Now"); err == nil {
		t.Error("an identifier without its import path was accepted")
	}
}
