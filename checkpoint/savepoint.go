package checkpoint

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Savepoint layout under a savepoint root (a pipeline's <data_dir>/savepoints):
//
//	<root>/<name>/SAVEPOINT.json          what the savepoint is (SavepointInfo)
//	<root>/<name>/MANIFEST.json           the checkpoint's manifest, byte for byte
//	<root>/<name>/state/...               the checkpoint's files, as the manifest lists them
//	<root>/<name>/modules/<sha256>.wasm   the operator modules that wrote the state
//	<root>/.tmp-sp-<...>                  a savepoint being written (or left by a crash)
//	<root>/.del-sp-<name>                 a savepoint being removed
//	<root>/LOCK                           held while savepoints are written or removed
//
// A savepoint is a completed checkpoint copied out of retention: Retain and
// RemoveLeftovers never look here, so only RemoveSavepoint deletes one.
const (
	savepointFile      = "SAVEPOINT.json"
	modulesDir         = "modules"
	savepointTemp      = ".tmp-sp-"
	savepointDel       = ".del-sp-"
	savepointLockFile  = "LOCK"
	maxSavepointName   = 64
	maxDescriptionLen  = 4096
	maxPipelineNameLen = 255
)

// SavepointFormatVersion is the version of SAVEPOINT.json, the savepoint
// directory layout and the savepoint archive (FORMAT.md §5, §6). Another
// version is refused with ErrIncompatible.
const SavepointFormatVersion = 1

var (
	// ErrSavepointName: a savepoint name is not 1..64 of [a-z0-9_-].
	ErrSavepointName = errors.New("checkpoint: invalid savepoint name")
	// ErrSavepointNotFound: no savepoint has the requested name.
	ErrSavepointNotFound = errors.New("checkpoint: savepoint not found")
	// ErrSavepointExists: a savepoint of that name already exists (with
	// other content). Names are never reused silently: remove it first or
	// choose another name.
	ErrSavepointExists = errors.New("checkpoint: savepoint already exists")
	// ErrCorruptSavepoint: SAVEPOINT.json is missing, unreadable or does not
	// match the checkpoint it describes.
	ErrCorruptSavepoint = errors.New("checkpoint: corrupt savepoint")
	// ErrModuleMissing: CreateSavepoint has no file holding the module of
	// one of the checkpoint's operators, so the savepoint would not be
	// self-contained.
	ErrModuleMissing = errors.New("checkpoint: operator module missing")
)

// SavepointInfo is SAVEPOINT.json: who owns the checkpoint copy and what it
// holds beyond the checkpoint itself.
type SavepointInfo struct {
	// FormatVersion is SavepointFormatVersion.
	FormatVersion int `json:"format_version"`
	// Name is the savepoint's name, 1..64 of [a-z0-9_-].
	Name string `json:"name"`
	// Pipeline is the name of the pipeline whose checkpoint this is.
	Pipeline string `json:"pipeline"`
	// Created is when the savepoint was made.
	Created time.Time `json:"created"`
	// CheckpointID is the id of the checkpoint it copies (the manifest's id).
	CheckpointID uint64 `json:"checkpoint_id"`
	// Description is the user's note (may be empty).
	Description string `json:"description"`
	// ManifestSHA256 is the hex SHA-256 of MANIFEST.json's bytes: it ties
	// the two files together, so neither can be swapped alone.
	ManifestSHA256 string `json:"manifest_sha256"`
	// Modules has one entry per operator of the manifest, in its order.
	Modules []SavepointModule `json:"modules"`
	// Checksum is the hex SHA-256 of the encoding with Checksum empty, like
	// the manifest's.
	Checksum string `json:"checksum"`
}

// SavepointModule is the module one operator's state was written by; its
// bytes are modules/<SHA256>.wasm in the savepoint.
type SavepointModule struct {
	Operator string `json:"operator"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size"`
}

// Savepoint is a savepoint as read from its directory.
type Savepoint struct {
	Info     SavepointInfo
	Manifest Manifest
	// Dir is the savepoint's directory.
	Dir string
}

// StateBytes is the size of the checkpoint's files.
func (s Savepoint) StateBytes() int64 {
	var n int64
	for _, f := range s.Manifest.Files {
		n += f.Size
	}
	return n
}

// ModuleBytes is the size of the distinct module files.
func (s Savepoint) ModuleBytes() int64 {
	var n int64
	for _, m := range s.Info.moduleFiles() {
		n += m.Size
	}
	return n
}

// SavepointDir returns the directory of savepoint name under root.
func SavepointDir(root, name string) string { return filepath.Join(root, name) }

// DefaultSavepointName is the name a savepoint of checkpoint id made at t
// gets when the user gives none: sp-<id>-<yyyymmdd>t<hhmmss> (UTC; the ISO
// "T" in lower case, as names are lower case).
func DefaultSavepointName(id uint64, t time.Time) string {
	return fmt.Sprintf("sp-%d-%s", id, t.UTC().Format("20060102t150405"))
}

// ValidateSavepointName accepts 1..64 of [a-z0-9_-]: safe as a directory
// and an object name on every system, and never a temporary name (those
// start with a dot).
func ValidateSavepointName(name string) error {
	if !validName(name, maxSavepointName) {
		return fmt.Errorf("%w: %q: use 1..%d of a-z, 0-9, _ and -", ErrSavepointName, name, maxSavepointName)
	}
	return nil
}

// ValidPipelineName reports whether s can be the pipeline of a savepoint
// (SavepointInfo.Pipeline): 1..255 of [a-z0-9_-], safe in an object name.
func ValidPipelineName(s string) bool { return validName(s, maxPipelineNameLen) }

func validName(s string, maxLen int) bool {
	if s == "" || len(s) > maxLen {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// modulePath is where a module's bytes are in a savepoint and its archive.
func modulePath(sha string) string { return modulesDir + "/" + sha + ".wasm" }

// moduleFiles returns the distinct modules, in order of first appearance:
// operators that share a module share its file.
func (i SavepointInfo) moduleFiles() []SavepointModule {
	seen := map[string]bool{}
	var out []SavepointModule
	for _, m := range i.Modules {
		if !seen[m.SHA256] {
			seen[m.SHA256] = true
			out = append(out, m)
		}
	}
	return out
}
