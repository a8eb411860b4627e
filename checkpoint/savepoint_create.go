package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// SavepointSpec is what CreateSavepoint saves besides the checkpoint.
type SavepointSpec struct {
	// Name of the savepoint; "" means DefaultSavepointName.
	Name string
	// Pipeline is the name of the pipeline that wrote the checkpoint.
	Pipeline string
	// Description is the user's note, up to 4096 bytes.
	Description string
	// Created is the savepoint's time; zero means now.
	Created time.Time
	// Modules maps a module SHA-256 to a file holding those bytes. Every
	// operator's module must be there: a savepoint restores on a machine
	// that has nothing else.
	Modules map[string]string
}

// CreateSavepoint copies completed checkpoint id of checkpointRoot into a
// new savepoint under root, with the modules of its operators, and returns
// it. Every copied byte is verified against the manifest (and every module
// against its hash) before the savepoint appears: it is written in a
// temporary directory, synced and renamed into place, so a crash leaves
// either no savepoint or a complete one. A damaged checkpoint is refused
// with an error naming it and each bad file; nothing is saved.
func CreateSavepoint(root, checkpointRoot string, id uint64, spec SavepointSpec) (Savepoint, error) {
	m, err := Read(checkpointRoot, id)
	if err != nil {
		return Savepoint{}, err
	}
	info := SavepointInfo{Name: spec.Name, Pipeline: spec.Pipeline, Description: spec.Description,
		Created: spec.Created.UTC(), CheckpointID: id}
	if info.Created.IsZero() {
		info.Created = time.Now().UTC()
	}
	if info.Name == "" {
		info.Name = DefaultSavepointName(id, info.Created)
	}
	if err := ValidateSavepointName(info.Name); err != nil {
		return Savepoint{}, err
	}
	if len(info.Description) > maxDescriptionLen {
		return Savepoint{}, fmt.Errorf("savepoint %q: the description has %d bytes, at most %d are kept", info.Name, len(info.Description), maxDescriptionLen)
	}
	lock, err := lockSavepoints(root)
	if err != nil {
		return Savepoint{}, err
	}
	defer lock.unlock()
	final := SavepointDir(root, info.Name)
	if _, err := os.Lstat(final); err == nil {
		return Savepoint{}, fmt.Errorf("%w: %q (%s); choose another name or remove it first", ErrSavepointExists, info.Name, final)
	}
	tmp, err := os.MkdirTemp(root, savepointTemp+info.Name+"-")
	if err != nil {
		return Savepoint{}, err
	}
	sp, err := fillSavepoint(tmp, Dir(checkpointRoot, id), m, info, spec.Modules)
	if err == nil {
		err = renameIntoPlace(tmp, final)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return Savepoint{}, fmt.Errorf("savepoint %q of checkpoint %d: %w; nothing was saved", info.Name, id, err)
	}
	sp.Dir = final
	return sp, nil
}

// fillSavepoint writes the checkpoint's files, its manifest, the modules and
// SAVEPOINT.json into tmp.
func fillSavepoint(tmp, src string, m Manifest, info SavepointInfo, modules map[string]string) (Savepoint, error) {
	if err := copyListed(src, tmp, m.Files); err != nil {
		return Savepoint{}, fmt.Errorf("copy checkpoint %d (%s): %w (was it removed by retention meanwhile?)", m.ID, src, err)
	}
	if err := verifyListed(tmp, m.Files); err != nil {
		return Savepoint{}, fmt.Errorf("checkpoint %d (%s) is damaged: %w (`wasmstream checkpoints verify` checks them all; save an older one that passes)", m.ID, src, err)
	}
	raw, err := Encode(m) // byte for byte MANIFEST.json: Decode accepted only the canonical bytes
	if err != nil {
		return Savepoint{}, err
	}
	if err := writeFileSync(tmp, manifestFile, raw); err != nil {
		return Savepoint{}, err
	}
	info.ManifestSHA256 = sha256Hex(raw)
	if info.Modules, err = copyModules(tmp, m.Operators, modules); err != nil {
		return Savepoint{}, err
	}
	data, err := EncodeSavepointInfo(info)
	if err != nil {
		return Savepoint{}, err
	}
	if err := writeFileSync(tmp, savepointFile, data); err != nil {
		return Savepoint{}, err
	}
	info, _ = DecodeSavepointInfo(data) // fills FormatVersion and Checksum
	return Savepoint{Info: info, Manifest: m}, nil
}

// copyModules copies each operator's module into tmp/modules, checking its
// hash, and returns the savepoint's module list.
func copyModules(tmp string, ops []OperatorEntry, files map[string]string) ([]SavepointModule, error) {
	mods := make([]SavepointModule, 0, len(ops))
	sizes := map[string]int64{}
	for _, op := range ops {
		size, done := sizes[op.ModuleSHA256]
		if !done {
			src, ok := files[op.ModuleSHA256]
			if !ok {
				return nil, fmt.Errorf("%w: operator %q: no file holds its module (sha256 %s)", ErrModuleMissing, op.Name, op.ModuleSHA256)
			}
			var err error
			if size, err = copyModule(src, filepath.Join(tmp, filepath.FromSlash(modulePath(op.ModuleSHA256))), op.ModuleSHA256); err != nil {
				return nil, fmt.Errorf("operator %q: %w", op.Name, err)
			}
			sizes[op.ModuleSHA256] = size
		}
		mods = append(mods, SavepointModule{Operator: op.Name, SHA256: op.ModuleSHA256, Size: size})
	}
	return mods, nil
}

// errModuleHash: a module file's bytes are not the module the checkpoint
// names.
var errModuleHash = errors.New("module file has another sha256")

// copyModule copies src to dst and checks that the bytes hash to sha.
func copyModule(src, dst, sha string) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), privatefs.DirMode); err != nil {
		return 0, err
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, fmt.Errorf("module: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privatefs.FileMode)
	if err != nil {
		return 0, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("module %s: %w", src, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return 0, fmt.Errorf("%w: %s hashes to %s, the checkpoint names %s", errModuleHash, src, got, sha)
	}
	return n, nil
}
