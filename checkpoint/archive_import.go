package checkpoint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// ImportArchive reads a savepoint archive into a new savepoint under root,
// named as in the archive, or rename when not empty. Everything is written
// to a temporary directory and verified before the savepoint appears, so a
// damaged archive is refused with an error naming the file and leaves
// nothing behind. When root already holds the same savepoint (same
// SAVEPOINT.json, under the final name) nothing is written and already is
// true; a different savepoint of that name is ErrSavepointExists.
func ImportArchive(r io.Reader, root, rename string) (sp Savepoint, already bool, err error) {
	if rename != "" {
		if err := ValidateSavepointName(rename); err != nil {
			return Savepoint{}, false, err
		}
	}
	lock, err := lockSavepoints(root)
	if err != nil {
		return Savepoint{}, false, err
	}
	defer lock.unlock()
	tmp, err := os.MkdirTemp(root, savepointTemp+"import-")
	if err != nil {
		return Savepoint{}, false, err
	}
	sp, already, err = importInto(r, root, tmp, rename)
	if err != nil || already {
		_ = os.RemoveAll(tmp)
	}
	return sp, already, err
}

func importInto(r io.Reader, root, tmp, rename string) (Savepoint, bool, error) {
	d, err := decodeArchive(r, fileSink(tmp, nil))
	if err != nil {
		return Savepoint{}, false, fmt.Errorf("%w; nothing was imported", err)
	}
	info := d.info
	if rename != "" && rename != info.Name {
		info.Name = rename
		data, err := EncodeSavepointInfo(info)
		if err != nil {
			return Savepoint{}, false, err
		}
		if err := writeFileSync(tmp, savepointFile, data); err != nil {
			return Savepoint{}, false, err
		}
		info, _ = DecodeSavepointInfo(data)
	}
	final := SavepointDir(root, info.Name)
	if _, err := os.Lstat(final); err == nil {
		return sameSavepoint(root, info)
	}
	if err := renameIntoPlace(tmp, final); err != nil {
		return Savepoint{}, false, fmt.Errorf("savepoint %q: %w", info.Name, err)
	}
	return Savepoint{Info: info, Manifest: d.manifest, Dir: final}, false, nil
}

// sameSavepoint returns the existing savepoint of info's name when it is
// the one being imported, else ErrSavepointExists.
func sameSavepoint(root string, info SavepointInfo) (Savepoint, bool, error) {
	want, err := EncodeSavepointInfo(info)
	if err != nil {
		return Savepoint{}, false, err
	}
	have, _ := os.ReadFile(filepath.Join(SavepointDir(root, info.Name), savepointFile))
	if !bytes.Equal(have, want) {
		return Savepoint{}, false, fmt.Errorf("%w: %q (%s) holds another savepoint; import under another name (--name) or remove it first",
			ErrSavepointExists, info.Name, SavepointDir(root, info.Name))
	}
	sp, err := ReadSavepoint(root, info.Name)
	return sp, err == nil, err
}

// AdoptArchive makes the checkpoint inside a savepoint archive a completed
// checkpoint of checkpointRoot, like AdoptSavepoint. The modules and
// SAVEPOINT.json are verified but not kept. A damaged archive is refused
// naming the file, and nothing is added.
func AdoptArchive(r io.Reader, checkpointRoot string) (Adoption, error) {
	tmp, err := adoptionTemp(checkpointRoot)
	if err != nil {
		return Adoption{}, err
	}
	keep := func(path string) bool { return path == manifestFile || !isSavepointOwn(path) }
	d, err := decodeArchive(r, fileSink(tmp, keep))
	var a Adoption
	if err == nil {
		a, err = adopt(checkpointRoot, tmp, Adoption{Info: d.info, Manifest: d.manifest})
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return Adoption{}, fmt.Errorf("%w; no checkpoint was added to %s", err, checkpointRoot)
	}
	return a, nil
}

// isSavepointOwn reports whether path is one of the savepoint's own files,
// not the checkpoint's.
func isSavepointOwn(path string) bool {
	return path == savepointFile || strings.HasPrefix(path, modulesDir+"/")
}

// fileSink writes the archive's files under dir (those keep accepts; nil
// keeps all), each synced on close. The paths were validated by the
// manifest and SAVEPOINT.json before the sink sees them: relative, clean,
// inside dir.
func fileSink(dir string, keep func(string) bool) archiveSink {
	return func(path string) (io.WriteCloser, error) {
		if keep != nil && !keep(path) {
			return nopWriteCloser{io.Discard}, nil
		}
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), privatefs.DirMode); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privatefs.FileMode)
		if err != nil {
			return nil, err
		}
		return syncCloser{f}, nil
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// syncCloser fsyncs a file before closing it.
type syncCloser struct{ *os.File }

func (s syncCloser) Close() error {
	err := s.File.Sync()
	if cerr := s.File.Close(); err == nil {
		err = cerr
	}
	return err
}
