package ship

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/state"
)

// place puts every file of m into dir under its name, as a hard link to
// its cache file (files, by SHA-256), or a copy across filesystems.
func place(m TaskManifest, files map[string]string, dir string) error {
	for _, f := range m.Files {
		if err := linkOrCopy(files[f.SHA256], filepath.Join(dir, f.Path)); err != nil {
			return fmt.Errorf("ship: place %s (object %s) in %s: %w", f.Path, ObjectName(f.SHA256), dir, err)
		}
	}
	return nil
}

// linkOrCopy hard-links src to dst, copying when links are not possible.
// Pebble opened read-only never writes the files, so sharing the cache's
// inode is safe.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, privatefs.FileMode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// openReadOnly opens a task checkpoint directory for reading.
func openReadOnly(dir string) (*pebble.DB, error) {
	db, err := pebble.Open(dir, &pebble.Options{ReadOnly: true, Logger: quietLogger{}})
	if err != nil {
		return nil, fmt.Errorf("ship: open task checkpoint in %s read-only: %w", dir, err)
	}
	return db, nil
}

// quietLogger drops Pebble's informational lines (one per open and WAL).
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf(format, args...)
}

// checkFormat requires the checkpoint's format_version entry to be this
// build's state format: the bytes imported are copied as they are.
func checkFormat(db *pebble.DB) error {
	span := metaSpan(metaFormatVersion)
	v, closer, err := db.Get(span.start)
	if errors.Is(err, pebble.ErrNotFound) {
		return fmt.Errorf("%w: the task checkpoint has no state format version; it is no wasmstream state", ErrIncompatible)
	}
	if err != nil {
		return err
	}
	defer closer.Close()
	if len(v) != 4 || binary.BigEndian.Uint32(v) != state.FormatVersion {
		return fmt.Errorf("%w: the task checkpoint's state format entry is %x, this build reads format %d", ErrIncompatible, v, state.FormatVersion)
	}
	return nil
}

// readMeta returns the task checkpoint's entries of m.MetaNames.
func readMeta(db *pebble.DB, m TaskManifest) ([]MetaValue, error) {
	var out []MetaValue
	for _, name := range m.MetaNames {
		v, closer, err := db.Get(metaSpan(name).start)
		if errors.Is(err, pebble.ErrNotFound) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("ship: read metadata %q: %w", name, err)
		}
		out = append(out, MetaValue{Name: name, Value: append([]byte(nil), v...), From: m.Range()})
		closer.Close()
	}
	return out, nil
}
