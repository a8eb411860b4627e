package checkpoint

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// WriteArchive writes savepoint name of root to w as one archive (FORMAT.md
// §6): a tar of SAVEPOINT.json, MANIFEST.json, the checkpoint's files in
// manifest order and the modules. Every file is checked against its
// recorded size and SHA-256 as it is written; on a mismatch WriteArchive
// stops with an error naming the file, and the caller must discard what w
// received.
func WriteArchive(w io.Writer, root, name string) error {
	sp, err := ReadSavepoint(root, name)
	if err != nil {
		return err
	}
	if err := writeArchive(w, sp); err != nil {
		return fmt.Errorf("savepoint %q (%s): archive: %w", name, sp.Dir, err)
	}
	return nil
}

// WriteSavepointArchive is WriteArchive of a savepoint already read with
// ReadSavepoint, so that what the caller records from sp.Info (its
// checksum, in an object's metadata) describes the archive it writes.
// Errors are not prefixed with the savepoint's name.
func WriteSavepointArchive(w io.Writer, sp Savepoint) error { return writeArchive(w, sp) }

func writeArchive(w io.Writer, sp Savepoint) error {
	info, err := EncodeSavepointInfo(sp.Info)
	if err != nil {
		return err
	}
	raw, err := Encode(sp.Manifest)
	if err != nil {
		return err
	}
	// A fixed time and owner make two exports of one savepoint identical.
	aw := archiveWriter{tw: tar.NewWriter(w), mtime: sp.Info.Created.UTC().Truncate(time.Second), dir: sp.Dir}
	if err := aw.bytes(savepointFile, info); err != nil {
		return err
	}
	if err := aw.bytes(manifestFile, raw); err != nil {
		return err
	}
	for _, f := range sp.Manifest.Files {
		if err := aw.file(f); err != nil {
			return err
		}
	}
	for _, mod := range sp.Info.moduleFiles() {
		if err := aw.file(FileEntry{Path: modulePath(mod.SHA256), Size: mod.Size, SHA256: mod.SHA256}); err != nil {
			return err
		}
	}
	return aw.tw.Close()
}

type archiveWriter struct {
	tw    *tar.Writer
	mtime time.Time
	dir   string
}

func (a archiveWriter) header(name string, size int64) error {
	return a.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: a.mtime})
}

func (a archiveWriter) bytes(name string, data []byte) error {
	if err := a.header(name, int64(len(data))); err != nil {
		return err
	}
	_, err := io.Copy(a.tw, bytes.NewReader(data))
	return err
}

// file copies one listed file of the savepoint, checking it on the way.
func (a archiveWriter) file(f FileEntry) error {
	in, err := os.Open(filepath.Join(a.dir, filepath.FromSlash(f.Path)))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMissingFile, f.Path, err)
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
		return fmt.Errorf("%w: %s: not a regular file of %d bytes", ErrCorrupt, f.Path, f.Size)
	}
	if err := a.header(f.Path, f.Size); err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.CopyN(io.MultiWriter(a.tw, h), in, f.Size); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != f.SHA256 {
		return fmt.Errorf("%w: %s: sha256 %s, recorded %s", ErrCorrupt, f.Path, sum, f.SHA256)
	}
	return nil
}
