package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

var (
	// ErrCorrupt: a checkpoint file differs from its manifest entry (size or
	// SHA-256), is not a regular file, or is not listed at all.
	ErrCorrupt = errors.New("checkpoint: corrupt checkpoint file")
	// ErrMissingFile: a file listed in the manifest is gone.
	ErrMissingFile = errors.New("checkpoint: checkpoint file missing")
)

// FileError is one bad file that Verify found: Path is the file's path
// as the manifest names it (slash-separated, relative to the checkpoint's
// directory) and Err says what is wrong, wrapping ErrMissingFile or
// ErrCorrupt when the file is gone or differs. Verify's error holds one
// per bad file (errors.As finds the first).
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Verify checks checkpoint id against its manifest: every listed file is
// present with the recorded size and SHA-256, and no other file exists. It
// reads every byte, so it costs a full read of the checkpoint. The error
// names the checkpoint and each bad file (a *FileError each), and wraps
// ErrCorruptManifest, ErrMissingFile or ErrCorrupt.
func Verify(root string, id uint64) error {
	m, err := Read(root, id)
	if err != nil {
		return err
	}
	dir := Dir(root, id)
	var errs []error
	for _, f := range m.Files {
		if err := verifyFile(dir, f); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, extraFiles(dir, m.Files)...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("checkpoint %d (%s): %w", id, dir, err)
	}
	return nil
}

// verifyFile compares one file with its manifest entry; size first, so a
// truncated file is reported without hashing it.
func verifyFile(dir string, f FileEntry) error {
	if err := checkFile(dir, f); err != nil {
		return &FileError{Path: f.Path, Err: err}
	}
	return nil
}

func checkFile(dir string, f FileEntry) error {
	p := filepath.Join(dir, filepath.FromSlash(f.Path))
	info, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s", ErrMissingFile, f.Path)
	case err != nil:
		return fmt.Errorf("file %s: %w", f.Path, err)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%w: %s: not a regular file", ErrCorrupt, f.Path)
	case info.Size() != f.Size:
		return fmt.Errorf("%w: %s: size %d, manifest says %d", ErrCorrupt, f.Path, info.Size(), f.Size)
	}
	_, sum, err := hashFile(p)
	if err != nil {
		return fmt.Errorf("file %s: %w", f.Path, err)
	}
	if sum != f.SHA256 {
		return fmt.Errorf("%w: %s: sha256 %s, manifest says %s", ErrCorrupt, f.Path, sum, f.SHA256)
	}
	return nil
}

// extraFiles reports files the manifest does not list: a restore would open
// them (Pebble reads every file its MANIFEST names), so they are untrusted.
func extraFiles(dir string, listed []FileEntry) []error {
	want := map[string]bool{}
	for _, f := range listed {
		want[f.Path] = true
	}
	found, err := hashTreeNames(dir)
	if err != nil {
		return []error{fmt.Errorf("list files: %w", err)}
	}
	var errs []error
	for _, name := range found {
		if !want[name] {
			errs = append(errs, &FileError{Path: name, Err: fmt.Errorf("%w: %s: not listed in the manifest", ErrCorrupt, name)})
		}
	}
	return errs
}

// hashTreeNames lists the slash paths of all non-directory entries under
// dir except the manifest, without hashing them.
func hashTreeNames(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); err == nil && rel != manifestFile {
			names = append(names, rel)
		}
		return err
	})
	return names, err
}
