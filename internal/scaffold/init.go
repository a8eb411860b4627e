package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrDirNotEmpty is returned by Init for a directory that holds files,
// unless InitOptions.Force is set.
var ErrDirNotEmpty = errors.New("directory is not empty")

// InitOptions says which project Init writes, and where.
type InitOptions struct {
	// Lang is the operator's language.
	Lang Lang
	// Name names the project, its pipeline and its operator (CheckName).
	Name string
	// Dir is the project directory, created when missing; "" means Name.
	Dir string
	// Force writes into a directory that is not empty: files of the same
	// paths are replaced, the others kept.
	Force bool
}

// Init writes a new project and returns its files (paths relative to the
// project directory), sorted by path.
func Init(o InitOptions) ([]File, error) {
	files, err := Files(o.Lang, o.Name)
	if err != nil {
		return nil, err
	}
	dir := o.Dir
	if dir == "" {
		dir = o.Name
	}
	if err := checkTarget(dir, o.Force); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := writeFile(dir, f); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// checkTarget refuses a directory that holds anything, unless force, and
// a path that is not a directory.
func checkTarget(dir string, force bool) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("project directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("project directory %s is a file; choose another directory with --dir", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("project directory %s: %w", dir, err)
	}
	if len(entries) == 0 || force {
		return nil
	}
	return fmt.Errorf("%w: %s holds %s; choose a new directory with --dir, or add --force to write the project's files into it (files of the same name are replaced, others kept)",
		ErrDirNotEmpty, dir, entryList(entries))
}

// entryList names up to three entries of a directory.
func entryList(entries []os.DirEntry) string {
	const shown = 3
	var names []string
	for i, e := range entries {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(entries)-shown))
			break
		}
		names = append(names, e.Name())
	}
	return strings.Join(names, ", ")
}

// writeFile writes f under dir, creating its parent directories.
func writeFile(dir string, f File) error {
	p := filepath.Join(dir, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("writing the project: %w", err)
	}
	if err := os.WriteFile(p, f.Data, 0o644); err != nil {
		return fmt.Errorf("writing the project: %w", err)
	}
	return nil
}
