package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoProject is returned by Detect for a directory with no operator
// project of a known language.
var ErrNoProject = errors.New("no operator project")

// ErrAmbiguousProject is returned by Detect for a directory that looks like
// projects of several languages.
var ErrAmbiguousProject = errors.New("more than one kind of operator project")

// marker is what tells one language's project apart.
type marker struct {
	lang Lang
	// what is the evidence in a message: "go.mod".
	what string
	// found reports whether dir holds the evidence.
	found func(dir string) bool
}

var markers = []marker{
	{Go, "go.mod", func(dir string) bool { return exists(filepath.Join(dir, "go.mod")) }},
	{Rust, "Cargo.toml", func(dir string) bool { return exists(filepath.Join(dir, "Cargo.toml")) }},
	{AssemblyScript, "package.json with assemblyscript", isAssemblyScript},
	{C, ".c files", func(dir string) bool { return len(cSources(dir)) > 0 }},
}

// Detect returns the language of the project in dir: a go.mod is Go, a
// Cargo.toml Rust, a package.json that names assemblyscript AssemblyScript,
// and .c files (in dir or dir/src) C.
func Detect(dir string) (Lang, error) {
	var hits []marker
	for _, m := range markers {
		if m.found(dir) {
			hits = append(hits, m)
		}
	}
	switch len(hits) {
	case 0:
		return "", fmt.Errorf("%w in %s: found no go.mod, Cargo.toml, package.json naming assemblyscript, or .c files; create a project with wasmstream init --lang LANG NAME",
			ErrNoProject, dir)
	case 1:
		return hits[0].lang, nil
	}
	var seen []string
	for _, h := range hits {
		seen = append(seen, fmt.Sprintf("%s (%s)", h.lang.Title(), h.what))
	}
	return "", fmt.Errorf("%w in %s: it looks like %s; say which with --lang", ErrAmbiguousProject, dir, strings.Join(seen, " and "))
}

func isAssemblyScript(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	return err == nil && strings.Contains(string(b), `"assemblyscript"`)
}

// cSources returns the C operator sources of dir, relative to it: those in
// src/ when there is one, else those in dir itself. The SDK's sources are
// not among them.
func cSources(dir string) []string {
	for _, sub := range []string{"src", "."} {
		found, _ := filepath.Glob(filepath.Join(dir, sub, "*.c"))
		if len(found) == 0 {
			continue
		}
		rel := make([]string, len(found))
		for i, f := range found {
			rel[i] = filepath.ToSlash(filepath.Join(sub, filepath.Base(f)))
		}
		return rel
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
