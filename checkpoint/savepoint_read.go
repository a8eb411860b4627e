package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ListSavepoints returns the names of the savepoints under root, sorted.
// Temporary directories and other files are not savepoints; a missing root
// holds none.
func ListSavepoints(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("savepoints: list %s: %w", root, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && ValidateSavepointName(e.Name()) == nil {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// ReadSavepoint reads SAVEPOINT.json and MANIFEST.json of savepoint name
// and checks that they belong together. It does not read the state files:
// VerifySavepoint does.
func ReadSavepoint(root, name string) (Savepoint, error) {
	if err := ValidateSavepointName(name); err != nil {
		return Savepoint{}, err
	}
	dir := SavepointDir(root, name)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return Savepoint{}, fmt.Errorf("%w: %q (%s)", ErrSavepointNotFound, name, dir)
	}
	sp, err := readSavepointDir(dir)
	if err != nil {
		return Savepoint{}, fmt.Errorf("savepoint %q (%s): %w", name, dir, err)
	}
	if sp.Info.Name != name {
		return Savepoint{}, fmt.Errorf("%w: savepoint %q (%s): %s names it %q (rename the directory back, or re-import it with another name)",
			ErrCorruptSavepoint, name, dir, savepointFile, sp.Info.Name)
	}
	return sp, nil
}

func readSavepointDir(dir string) (Savepoint, error) {
	data, err := os.ReadFile(filepath.Join(dir, savepointFile))
	if errors.Is(err, os.ErrNotExist) {
		return Savepoint{}, fmt.Errorf("%w: %s missing", ErrCorruptSavepoint, savepointFile)
	}
	if err != nil {
		return Savepoint{}, err
	}
	info, err := DecodeSavepointInfo(data)
	if err != nil {
		return Savepoint{}, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return Savepoint{}, fmt.Errorf("%w: %s missing", ErrCorruptManifest, manifestFile)
	}
	if err != nil {
		return Savepoint{}, err
	}
	m, err := Decode(raw)
	if err != nil {
		return Savepoint{}, err
	}
	if err := info.matches(m, raw); err != nil {
		return Savepoint{}, fmt.Errorf("%w: %v", ErrCorruptSavepoint, err)
	}
	return Savepoint{Info: info, Manifest: m, Dir: dir}, nil
}

// VerifySavepoint checks every byte of savepoint name: its two JSON files,
// every checkpoint file (size and SHA-256, as Verify does), every module
// (its hash) and that no other file exists. The error names the savepoint
// and each bad file, and wraps ErrCorruptSavepoint, ErrCorruptManifest,
// ErrMissingFile or ErrCorrupt.
func VerifySavepoint(root, name string) error {
	sp, err := ReadSavepoint(root, name)
	if err != nil {
		return err
	}
	listed := slices.Clone(sp.Manifest.Files)
	for _, mod := range sp.Info.moduleFiles() {
		listed = append(listed, FileEntry{Path: modulePath(mod.SHA256), Size: mod.Size, SHA256: mod.SHA256})
	}
	errs := []error{verifyListed(sp.Dir, listed)}
	errs = append(errs, extraFiles(sp.Dir, append(listed, FileEntry{Path: savepointFile}))...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("savepoint %q (%s): %w", name, sp.Dir, err)
	}
	return nil
}

// RemoveSavepoint deletes savepoint name. It is first renamed to a
// temporary name (and root synced), so an interrupted removal never leaves
// a half-deleted directory that looks like a savepoint.
func RemoveSavepoint(root, name string) error {
	if err := ValidateSavepointName(name); err != nil {
		return err
	}
	lock, err := lockSavepoints(root)
	if err != nil {
		return err
	}
	defer lock.unlock()
	dir := SavepointDir(root, name)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %q (%s)", ErrSavepointNotFound, name, dir)
	}
	doomed := filepath.Join(root, savepointDel+name)
	if err := os.Rename(dir, doomed); err != nil {
		return fmt.Errorf("savepoint %q: remove: %w", name, err)
	}
	if err := syncDir(root); err != nil {
		return fmt.Errorf("savepoint %q: remove: %w", name, err)
	}
	if err := os.RemoveAll(doomed); err != nil {
		return fmt.Errorf("savepoint %q: delete %s: %w", name, doomed, err)
	}
	return nil
}
