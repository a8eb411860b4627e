package global

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxRecordBytes bounds an ack or a manifest: about 1 KiB per task part,
// for tens of thousands of tasks. A larger object is not one of ours, and
// the bound keeps a hostile object from exhausting memory.
const MaxRecordBytes = 64 << 20

// sealable is a record with a checksum field over its own encoding.
type sealable[T any] interface {
	*T
	checksumField() *string
}

// seal returns v with its checksum filled and its canonical encoding: the
// SHA-256 of the encoding with the checksum empty, so that a flipped bit
// that leaves valid JSON (a digit of a position) is detected without a
// reference from elsewhere.
func seal[T any, P sealable[T]](v T) (T, []byte, error) {
	*P(&v).checksumField() = ""
	data, err := marshal(v)
	if err != nil {
		return v, nil, err
	}
	*P(&v).checksumField() = hexSum(data)
	data, err = marshal(v)
	return v, data, err
}

// checkSeal compares v's checksum and data with what seal writes for v.
func checkSeal[T any, P sealable[T]](v T, data []byte) error {
	sealed, canonical, err := seal[T, P](v)
	if err != nil {
		return err
	}
	if got, want := *P(&v).checksumField(), *P(&sealed).checksumField(); got != want {
		return fmt.Errorf("checksum mismatch: the record says %q, its content hashes to %s (changed or damaged)", got, want)
	}
	if !bytes.Equal(canonical, data) {
		return errors.New("the bytes differ from the record's canonical encoding (changed or damaged)")
	}
	return nil
}

// marshal is the canonical encoding: two-space indented, newline-terminated.
func marshal(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// checkVersion reads format_version alone, so that a newer record says
// "incompatible" rather than failing on a field this build does not know.
func checkVersion(data []byte, what string, want int) error {
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("%w: %s of %d bytes, more than %d", ErrCorrupt, what, len(data), MaxRecordBytes)
	}
	var probe struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
	}
	switch {
	case probe.FormatVersion == nil:
		return fmt.Errorf("%w: %s: format_version missing", ErrCorrupt, what)
	case *probe.FormatVersion != want:
		return fmt.Errorf("%w: %s format_version %d, this build reads %d; use the wasmstream version that wrote it",
			ErrIncompatible, what, *probe.FormatVersion, want)
	}
	return nil
}

// decodeStrict refuses unknown fields and trailing data: both mean the
// bytes are not what this version wrote.
func decodeStrict[T any](data []byte) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return v, errors.New("trailing data after the record")
	}
	return v, nil
}

// isSHA256Hex reports 64 lowercase hex digits, the form every SHA-256 of
// the checkpoint formats has (one spelling, one encoding).
func isSHA256Hex(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && strings.ToLower(s) == s
}
