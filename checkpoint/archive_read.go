package checkpoint

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// ErrCorruptArchive: a savepoint archive is truncated, damaged, out of order
// or holds something FORMAT.md §6 does not allow. The error names the file.
var ErrCorruptArchive = errors.New("checkpoint: corrupt savepoint archive")

// Size limits of the two JSON files, checked before they are read, so a
// hostile archive cannot make the decoder allocate what it claims.
const (
	maxSavepointInfoBytes = 1 << 20
	maxManifestBytes      = 64 << 20
)

// archiveSink receives the files of an archive as they are decoded. The
// decoder checks each file's size and hash only after the sink has seen all
// of it, so a sink must treat what it wrote as untrusted until
// decodeArchive returns nil.
type archiveSink func(path string) (io.WriteCloser, error)

// decodedArchive is what an archive says about itself once fully checked.
type decodedArchive struct {
	info     SavepointInfo
	manifest Manifest
}

// decodeArchive reads a savepoint archive in the one order FORMAT.md §6
// fixes and hands every file to sink: SAVEPOINT.json, MANIFEST.json (whose
// hash SAVEPOINT.json records), the checkpoint's files (sizes and hashes
// from the manifest) and the modules (from SAVEPOINT.json). Knowing each
// next name, size and hash in advance, it never follows a path the archive
// chose and never reads more than a file's recorded size.
func decodeArchive(r io.Reader, sink archiveSink) (decodedArchive, error) {
	tr := tar.NewReader(r)
	rawInfo, err := readSmall(tr, savepointFile, maxSavepointInfoBytes)
	if err != nil {
		return decodedArchive{}, err
	}
	info, err := DecodeSavepointInfo(rawInfo)
	if err != nil {
		return decodedArchive{}, archiveError(savepointFile, err)
	}
	raw, err := readSmall(tr, manifestFile, maxManifestBytes)
	if err != nil {
		return decodedArchive{}, err
	}
	m, err := Decode(raw)
	if err == nil {
		err = info.matches(m, raw)
	}
	if err != nil {
		return decodedArchive{}, archiveError(manifestFile, err)
	}
	if err := writeWhole(sink, savepointFile, rawInfo); err != nil {
		return decodedArchive{}, err
	}
	if err := writeWhole(sink, manifestFile, raw); err != nil {
		return decodedArchive{}, err
	}
	if err := decodeFiles(tr, sink, m, info); err != nil {
		return decodedArchive{}, err
	}
	return decodedArchive{info: info, manifest: m}, expectEnd(tr)
}

func decodeFiles(tr *tar.Reader, sink archiveSink, m Manifest, info SavepointInfo) error {
	for _, f := range m.Files {
		if err := copyEntry(tr, sink, f); err != nil {
			return err
		}
	}
	for _, mod := range info.moduleFiles() {
		if err := copyEntry(tr, sink, FileEntry{Path: modulePath(mod.SHA256), Size: mod.Size, SHA256: mod.SHA256}); err != nil {
			return err
		}
	}
	return nil
}

// archiveError marks err as archive damage naming file, unless it says the
// format is another version (not damage: another build reads it).
func archiveError(file string, err error) error {
	if errors.Is(err, ErrIncompatible) {
		return fmt.Errorf("savepoint archive: %s: %w", file, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrCorruptArchive, file, err)
}

// next reads the header of the entry that must be want.
func next(tr *tar.Reader, want string) (*tar.Header, error) {
	hdr, err := tr.Next()
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%w: %s: the archive ends before it (truncated)", ErrCorruptArchive, want)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrCorruptArchive, want, err)
	case hdr.Name != want:
		return nil, fmt.Errorf("%w: entry %q where %s must come", ErrCorruptArchive, hdr.Name, want)
	case hdr.Typeflag != tar.TypeReg:
		return nil, fmt.Errorf("%w: %s: not a regular file (type %q)", ErrCorruptArchive, want, hdr.Typeflag)
	}
	return hdr, nil
}

// readSmall reads one of the JSON entries whole, within limit bytes.
func readSmall(tr *tar.Reader, want string, limit int64) ([]byte, error) {
	hdr, err := next(tr, want)
	if err != nil {
		return nil, err
	}
	if hdr.Size < 0 || hdr.Size > limit {
		return nil, fmt.Errorf("%w: %s: %d bytes, at most %d allowed", ErrCorruptArchive, want, hdr.Size, limit)
	}
	data := make([]byte, hdr.Size)
	if _, err := io.ReadFull(tr, data); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (truncated)", ErrCorruptArchive, want, err)
	}
	return data, nil
}

// copyEntry streams the entry that must be f to the sink and checks its
// size and hash.
func copyEntry(tr *tar.Reader, sink archiveSink, f FileEntry) error {
	hdr, err := next(tr, f.Path)
	if err != nil {
		return err
	}
	if hdr.Size != f.Size {
		return fmt.Errorf("%w: %s: %d bytes, recorded %d", ErrCorruptArchive, f.Path, hdr.Size, f.Size)
	}
	w, err := sink(f.Path)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(w, h), tr)
	if cerr := w.Close(); err == nil && cerr != nil {
		return fmt.Errorf("%s: %w", f.Path, cerr)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v (truncated)", ErrCorruptArchive, f.Path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != f.SHA256 {
		return fmt.Errorf("%w: %s: sha256 %s, recorded %s", ErrCorruptArchive, f.Path, sum, f.SHA256)
	}
	return nil
}

// expectEnd refuses anything after the last file.
func expectEnd(tr *tar.Reader) error {
	hdr, err := tr.Next()
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return fmt.Errorf("%w: after the last file: %v", ErrCorruptArchive, err)
	}
	return fmt.Errorf("%w: unexpected entry %q after the last file", ErrCorruptArchive, hdr.Name)
}

func writeWhole(sink archiveSink, path string, data []byte) error {
	w, err := sink(path)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}
