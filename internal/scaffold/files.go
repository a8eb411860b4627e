package scaffold

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/wasmstream/wasmstream/sdk"
)

// templates holds one folder per language and common/, the files every
// project gets. Every file ends in ".tmpl" (so that the go tool never
// takes a template for a source file or a nested module), and a path
// element "dot-x" is written as ".x".
//
//go:embed templates
var templates embed.FS

// goABI is a copy of the abi package's sources, which the Go SDK imports
// and package sdk cannot embed (it lives outside sdk/). go generate
// refreshes it; TestGoABICopyIsCurrent fails when it is stale.
//
//go:generate cp ../../abi/abi.go goabi/abi.go.copy
//go:generate cp ../../abi/codes.go goabi/codes.go.copy
//go:generate cp ../../abi/emitlist.go goabi/emitlist.go.copy
//go:generate cp ../../abi/encoding.go goabi/encoding.go.copy
//go:embed goabi/*.go.copy
var goABI embed.FS

// SDKDir is the folder of a project that holds its copy of the SDK.
const SDKDir = "wasmstream-sdk"

// File is one file of a project, its path relative to the project.
type File struct {
	Path string
	Data []byte
}

// Files returns the files of a new project named name in language l,
// sorted by path: the operator, its tests, the pipeline, the sample
// events, the build and test scripts, the README and the SDK copy.
func Files(l Lang, name string) ([]File, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if _, err := ParseLang(string(l)); err != nil {
		return nil, err
	}
	vars := strings.NewReplacer("__NAME__", name, "__CRATE__", crateName(name))
	files, err := templateFiles(string(l), vars)
	if err != nil {
		return nil, err
	}
	common, err := templateFiles("common", vars)
	if err != nil {
		return nil, err
	}
	files = append(files, common...)
	sdkFiles, err := sdkCopy(l)
	if err != nil {
		return nil, err
	}
	files = append(files, sdkFiles...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// templateFiles renders the templates under templates/dir.
func templateFiles(dir string, vars *strings.Replacer) ([]File, error) {
	root := path.Join("templates", dir)
	var files []File
	err := fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		text := vars.Replace(string(b))
		files = append(files, File{Path: outputPath(strings.TrimPrefix(p, root+"/")), Data: []byte(text)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scaffold templates %s: %w", dir, err)
	}
	return files, nil
}

// outputPath turns a template path into the project path: no ".tmpl",
// "dot-" elements made hidden.
func outputPath(p string) string {
	elems := strings.Split(strings.TrimSuffix(p, ".tmpl"), "/")
	for i, e := range elems {
		if rest, ok := strings.CutPrefix(e, "dot-"); ok {
			elems[i] = "." + rest
		}
	}
	return path.Join(elems...)
}

// sdkCopy returns the SDK files of language l under SDKDir: for Go a
// module github.com/wasmstream/wasmstream holding sdk/go and abi (its
// go.mod is a template), for the others the SDK folder as it is.
func sdkCopy(l Lang) ([]File, error) {
	switch l {
	case Go:
		files, err := copyTree(sdk.Sources, "go", path.Join(SDKDir, "sdk", "go"), "")
		if err != nil {
			return nil, err
		}
		abi, err := copyTree(goABI, "goabi", path.Join(SDKDir, "abi"), ".copy")
		return append(files, abi...), err
	case Rust, C, AssemblyScript:
		return copyTree(sdk.Sources, string(l), SDKDir, "")
	}
	return nil, fmt.Errorf("%w %q: choose one of %s", ErrUnknownLang, l, LangList())
}

// copyTree returns the files of fsys under from, moved under to, with
// suffix cut from their names.
func copyTree(fsys fs.FS, from, to, suffix string) ([]File, error) {
	var files []File
	err := fs.WalkDir(fsys, from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, from+"/"), suffix)
		files = append(files, File{Path: path.Join(to, rel), Data: b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scaffold: SDK sources %s: %w", from, err)
	}
	return files, nil
}
