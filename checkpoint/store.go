package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/wasmstream/wasmstream/internal/atomicfile"
)

// Checkpoint directory layout under a root:
//
//	<root>/chk-<id, 20 digits>/MANIFEST.json   written last: marks completion
//	<root>/chk-<id, 20 digits>/state/...       the Pebble checkpoint
//	<root>/.tmp-chk-...                        a checkpoint being written
//	<root>/.del-chk-...                        a checkpoint being removed
//
// Twenty digits hold any uint64, so names sort like ids.
const (
	dirPrefix  = "chk-"
	idDigits   = 20
	stateDir   = "state"
	tempPrefix = ".tmp-chk-"
	delPrefix  = ".del-chk-"
)

// ErrCheckpointNotFound: no checkpoint directory has the requested id.
var ErrCheckpointNotFound = errors.New("checkpoint: checkpoint not found")

// Dir returns the directory of checkpoint id under root.
func Dir(root string, id uint64) string {
	return filepath.Join(root, fmt.Sprintf("%s%0*d", dirPrefix, idDigits, id))
}

// StateDir returns the directory of the Pebble checkpoint of checkpoint id:
// open it with pebble.Open (read-only, or after copying it) to restore.
func StateDir(root string, id uint64) string {
	return filepath.Join(Dir(root, id), stateDir)
}

// parseDirName returns the id of a checkpoint directory name.
func parseDirName(name string) (uint64, bool) {
	digits, ok := strings.CutPrefix(name, dirPrefix)
	if !ok || len(digits) != idDigits {
		return 0, false
	}
	id, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || id == 0 {
		return 0, false
	}
	return id, true
}

// List returns the ids of the checkpoints under root, newest first. Temporary
// directories (a write or a removal in progress, or left by a crash) are not
// checkpoints and are skipped. A checkpoint directory is listed even if its
// manifest is gone: Write and Retain never leave one without it, so that is
// damage, and Read must report it rather than the caller silently falling
// back to an older checkpoint. A missing root holds no checkpoints.
func List(root string) ([]uint64, error) { return list(vfs.Default, root) }

func list(fs vfs.FS, root string) ([]uint64, error) {
	names, err := fs.List(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: list %s: %w", root, err)
	}
	var ids []uint64
	for _, name := range names {
		id, ok := parseDirName(name)
		if !ok {
			continue
		}
		if fi, err := fs.Stat(fs.PathJoin(root, name)); err == nil && fi.IsDir() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids, nil
}

// Read returns the manifest of checkpoint id. A missing or unreadable
// manifest is ErrCorruptManifest, a manifest of another id too.
func Read(root string, id uint64) (Manifest, error) { return read(vfs.Default, root, id) }

func read(fs vfs.FS, root string, id uint64) (Manifest, error) {
	dir := Dir(root, id)
	if _, err := fs.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d (%s)", ErrCheckpointNotFound, id, dir)
	}
	data, err := readFile(fs, fs.PathJoin(dir, manifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d (%s): %s missing",
			ErrCorruptManifest, id, dir, manifestFile)
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("checkpoint %d (%s): %w", id, dir, err)
	}
	m, err := Decode(data)
	if err != nil {
		return Manifest{}, fmt.Errorf("checkpoint %d (%s): %w", id, dir, err)
	}
	if m.ID != id {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d (%s): manifest has id %d",
			ErrCorruptManifest, id, dir, m.ID)
	}
	return m, nil
}

func readFile(fs vfs.FS, name string) ([]byte, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// InProgress reports whether path lies in the temporary directory of a
// checkpoint being written: nothing there is part of a checkpoint yet.
func InProgress(path string) bool {
	return strings.Contains(path, string(filepath.Separator)+tempPrefix)
}

// IsManifestTemp reports whether path is the temporary file of a manifest
// being written.
func IsManifestTemp(path string) bool {
	return InProgress(path) && atomicfile.IsTempOf(path, manifestFile)
}
