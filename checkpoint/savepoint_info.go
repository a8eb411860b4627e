package checkpoint

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

// EncodeSavepointInfo validates i and returns SAVEPOINT.json's bytes, with
// FormatVersion and Checksum filled.
func EncodeSavepointInfo(i SavepointInfo) ([]byte, error) {
	i.FormatVersion = SavepointFormatVersion
	if err := i.validate(); err != nil {
		return nil, fmt.Errorf("%w: savepoint %q: %v", ErrCorruptSavepoint, i.Name, err)
	}
	i.Checksum = ""
	b, err := marshalIndented(i)
	if err != nil {
		return nil, err
	}
	i.Checksum = sha256Hex(b)
	return marshalIndented(i)
}

// DecodeSavepointInfo parses and validates SAVEPOINT.json. Like Decode for
// manifests: another format version is ErrIncompatible; unknown fields,
// trailing data, a wrong checksum or bytes other than the canonical
// encoding are ErrCorruptSavepoint.
func DecodeSavepointInfo(data []byte) (SavepointInfo, error) {
	var probe struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return SavepointInfo{}, fmt.Errorf("%w: %s: %v", ErrCorruptSavepoint, savepointFile, err)
	}
	if probe.FormatVersion == nil {
		return SavepointInfo{}, fmt.Errorf("%w: %s: format_version missing", ErrCorruptSavepoint, savepointFile)
	}
	if v := *probe.FormatVersion; v != SavepointFormatVersion {
		return SavepointInfo{}, fmt.Errorf("%w: %s: savepoint format_version %d, this build reads %d (use the wasmstream version that wrote it)",
			ErrIncompatible, savepointFile, v, SavepointFormatVersion)
	}
	var i SavepointInfo
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&i); err != nil {
		return SavepointInfo{}, fmt.Errorf("%w: %s: %v", ErrCorruptSavepoint, savepointFile, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return SavepointInfo{}, fmt.Errorf("%w: %s: trailing data after the object", ErrCorruptSavepoint, savepointFile)
	}
	if err := i.validate(); err != nil {
		return SavepointInfo{}, fmt.Errorf("%w: %s of savepoint %q: %v", ErrCorruptSavepoint, savepointFile, i.Name, err)
	}
	if canonical, err := EncodeSavepointInfo(i); err != nil || !bytes.Equal(canonical, data) {
		return SavepointInfo{}, fmt.Errorf("%w: %s of savepoint %q: checksum mismatch or non-canonical bytes (the file was changed or damaged)",
			ErrCorruptSavepoint, savepointFile, i.Name)
	}
	return i, nil
}

// validate reports the first field a correct writer could not have produced.
func (i *SavepointInfo) validate() error {
	switch {
	case ValidateSavepointName(i.Name) != nil:
		return fmt.Errorf("name %q is not 1..%d of [a-z0-9_-]", i.Name, maxSavepointName)
	case !validName(i.Pipeline, maxPipelineNameLen):
		return fmt.Errorf("pipeline %q is not 1..%d of [a-z0-9_-]", i.Pipeline, maxPipelineNameLen)
	case i.Created.IsZero():
		return errors.New("created missing")
	case i.CheckpointID == 0:
		return errors.New("checkpoint_id missing (0)")
	case len(i.Description) > maxDescriptionLen:
		return fmt.Errorf("description longer than %d bytes", maxDescriptionLen)
	case !isSHA256Hex(i.ManifestSHA256):
		return errors.New("manifest_sha256 is not 64 lowercase hex digits")
	}
	return validateModules(i.Modules)
}

func validateModules(mods []SavepointModule) error {
	size := map[string]int64{}
	for _, m := range mods {
		if m.Operator == "" || len(m.Operator) > maxOperatorNameLen {
			return fmt.Errorf("module of operator %q: operator name must be 1..%d bytes", m.Operator, maxOperatorNameLen)
		}
		if !isSHA256Hex(m.SHA256) || m.Size < 0 {
			return fmt.Errorf("module of operator %q: sha256 not 64 lowercase hex digits or negative size", m.Operator)
		}
		if s, ok := size[m.SHA256]; ok && s != m.Size {
			return fmt.Errorf("module %s listed with sizes %d and %d", m.SHA256, s, m.Size)
		}
		size[m.SHA256] = m.Size
	}
	return nil
}

// matches checks that i describes manifest m, whose file bytes are raw:
// same checkpoint, same manifest bytes, one module per operator, and no
// checkpoint file where the savepoint keeps its own files.
func (i SavepointInfo) matches(m Manifest, raw []byte) error {
	if sum := sha256Hex(raw); sum != i.ManifestSHA256 {
		return fmt.Errorf("%s hashes to %s, %s says %s", manifestFile, sum, savepointFile, i.ManifestSHA256)
	}
	if m.ID != i.CheckpointID {
		return fmt.Errorf("%s is checkpoint %d, %s says %d", manifestFile, m.ID, savepointFile, i.CheckpointID)
	}
	if len(i.Modules) != len(m.Operators) {
		return fmt.Errorf("%s lists %d module(s) for %d operator(s)", savepointFile, len(i.Modules), len(m.Operators))
	}
	for k, op := range m.Operators {
		if mod := i.Modules[k]; mod.Operator != op.Name || mod.SHA256 != op.ModuleSHA256 {
			return fmt.Errorf("module %d is %s@%s, the manifest's operator %d is %s@%s", k, mod.Operator, mod.SHA256, k, op.Name, op.ModuleSHA256)
		}
	}
	for _, f := range m.Files {
		if f.Path == savepointFile || strings.HasPrefix(f.Path, modulesDir+"/") {
			return fmt.Errorf("the checkpoint's file %s collides with the savepoint's own files", f.Path)
		}
	}
	return nil
}

func marshalIndented(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
