package ship

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// MaxManifestBytes bounds a task manifest: a few hundred files of about
// 150 bytes each, with room. A larger object is not a task manifest.
const MaxManifestBytes = 1 << 20

// Decode parses a task manifest, which comes from the network and is not
// trusted. The format version is checked first (ErrIncompatible for
// another one); anything else wrong is ErrCorruptManifest: unknown fields,
// trailing data, a failed rule, spans other than those derived from the
// task, a checksum mismatch, or bytes other than Encode's for the decoded
// manifest.
func Decode(data []byte) (TaskManifest, error) {
	if len(data) > MaxManifestBytes {
		return TaskManifest{}, fmt.Errorf("%w: %d bytes, more than %d", ErrCorruptManifest, len(data), MaxManifestBytes)
	}
	if err := checkVersion(data); err != nil {
		return TaskManifest{}, err
	}
	m, err := decodeStrict(data)
	if err == nil {
		err = m.validate()
	}
	if err == nil {
		err = m.checkIntegrity(data)
	}
	if err != nil {
		return TaskManifest{}, fmt.Errorf("%w: %v", ErrCorruptManifest, err)
	}
	return m, nil
}

// checkVersion reads format_version alone, so that a newer manifest says
// "incompatible" rather than failing on a field this build does not know.
func checkVersion(data []byte) error {
	var probe struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("%w: %v", ErrCorruptManifest, err)
	}
	switch {
	case probe.FormatVersion == nil:
		return fmt.Errorf("%w: format_version missing", ErrCorruptManifest)
	case *probe.FormatVersion != ManifestFormatVersion:
		return fmt.Errorf("%w: task manifest format_version %d, this build reads %d; use the wasmstream version that wrote it",
			ErrIncompatible, *probe.FormatVersion, ManifestFormatVersion)
	}
	return nil
}

func decodeStrict(data []byte) (TaskManifest, error) {
	var m TaskManifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return TaskManifest{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return TaskManifest{}, errors.New("trailing data after the manifest object")
	}
	return m, nil
}

// validate checks every rule of a decoded manifest.
func (m TaskManifest) validate() error {
	if m.StateFormatVersion < 1 {
		return fmt.Errorf("state_format_version %d must be ≥ 1", m.StateFormatVersion)
	}
	if m.MetaNames == nil {
		return errors.New("meta_names missing")
	}
	if err := m.Task().validate(); err != nil {
		return err
	}
	if !slices.Equal(m.Spans, encodeSpans(spansOf(m.Task()))) {
		return fmt.Errorf("operator %q range %s: spans differ from those its task has", m.Operator, m.Range())
	}
	return validateFiles(m.Files)
}

// validateFiles requires at least one file, sorted unique plain names,
// sizes ≥ 0 and lowercase hex SHA-256s.
func validateFiles(files []File) error {
	if len(files) == 0 {
		return errors.New("no files")
	}
	for i, f := range files {
		if err := validatePath(f.Path); err != nil {
			return err
		}
		if i > 0 && files[i-1].Path >= f.Path {
			return fmt.Errorf("file %q: files must be sorted by path and unique", f.Path)
		}
		if f.Size < 0 {
			return fmt.Errorf("file %q: size %d is negative", f.Path, f.Size)
		}
		if !isSHA256Hex(f.SHA256) {
			return fmt.Errorf("file %q: sha256 %q is not 64 lowercase hex digits", f.Path, f.SHA256)
		}
	}
	return nil
}

// validatePath accepts a plain file name only: a restore joins it to its
// temporary directory, and a name from the network must not reach outside.
func validatePath(p string) error {
	if p == "" || p == "." || p == ".." || len(p) > 255 || strings.ContainsAny(p, "/\\\x00") {
		return fmt.Errorf("file %q: a path must be a plain file name of 1..255 bytes", p)
	}
	return nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// checkIntegrity compares the checksum and the exact bytes with Encode's.
func (m TaskManifest) checkIntegrity(data []byte) error {
	sum, err := m.checksum()
	if err != nil {
		return err
	}
	if sum != m.Checksum {
		return fmt.Errorf("checksum mismatch: the manifest says %q, its content hashes to %s (changed or damaged)", m.Checksum, sum)
	}
	canonical, err := marshal(m)
	if err != nil {
		return err
	}
	if !bytes.Equal(canonical, data) {
		return errors.New("the bytes differ from the manifest's canonical encoding (changed or damaged)")
	}
	return nil
}
