package checkpoint

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// Adoption is a savepoint made a completed checkpoint of a checkpoint root.
type Adoption struct {
	// ID is the checkpoint's id under the root: restore it like any other.
	ID uint64
	// Reused: the root already held exactly this checkpoint (same manifest,
	// verified) under ID, so nothing was written.
	Reused bool
	// Renumbered: the savepoint's own id was taken by another checkpoint, so
	// it was stored under the newest id + 1 with its manifest rewritten.
	Renumbered bool
	// Info describes the savepoint.
	Info SavepointInfo
	// Manifest is the checkpoint's manifest as stored under the root.
	Manifest Manifest
}

// AdoptSavepoint copies savepoint name of root into checkpointRoot as a
// completed checkpoint (see adopt for the id it gets) after verifying every
// copied byte. The caller must own checkpointRoot, as for RemoveLeftovers:
// no pipeline may run on it meanwhile.
func AdoptSavepoint(root, name, checkpointRoot string) (Adoption, error) {
	sp, err := ReadSavepoint(root, name)
	if err != nil {
		return Adoption{}, err
	}
	tmp, err := adoptionTemp(checkpointRoot)
	if err != nil {
		return Adoption{}, err
	}
	a, err := fillAdoption(tmp, sp)
	if err == nil {
		a, err = adopt(checkpointRoot, tmp, a)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return Adoption{}, fmt.Errorf("savepoint %q (%s): %w; no checkpoint was added to %s", name, sp.Dir, err, checkpointRoot)
	}
	return a, nil
}

// adoptionTemp makes a temporary directory under checkpointRoot with the
// prefix of an interrupted Write, so RemoveLeftovers cleans it up after a
// crash and List never sees it.
func adoptionTemp(checkpointRoot string) (string, error) {
	if err := os.MkdirAll(checkpointRoot, privatefs.DirMode); err != nil {
		return "", fmt.Errorf("checkpoints %s: %w", checkpointRoot, err)
	}
	return os.MkdirTemp(checkpointRoot, tempPrefix+"import-")
}

func fillAdoption(tmp string, sp Savepoint) (Adoption, error) {
	m := sp.Manifest
	if err := copyListed(sp.Dir, tmp, m.Files); err != nil {
		return Adoption{}, err
	}
	if err := verifyListed(tmp, m.Files); err != nil {
		return Adoption{}, err
	}
	raw, err := Encode(m)
	if err != nil {
		return Adoption{}, err
	}
	if err := writeFileSync(tmp, manifestFile, raw); err != nil {
		return Adoption{}, err
	}
	return Adoption{Info: sp.Info, Manifest: m}, nil
}

// adopt moves tmp, a verified checkpoint whose manifest is a.Manifest, into
// checkpointRoot. It keeps the checkpoint's own id when that is free (or
// already holds exactly this checkpoint, which then stays as it is); else
// it takes the newest id + 1 and rewrites the manifest's id and checksum
// with Encode. An existing checkpoint is never touched.
func adopt(checkpointRoot, tmp string, a Adoption) (Adoption, error) {
	ids, err := List(checkpointRoot)
	if err != nil {
		return a, err
	}
	id := a.Manifest.ID
	if slices.Contains(ids, id) {
		if sameCheckpoint(checkpointRoot, a.Manifest) {
			a.ID, a.Reused = id, true
			return a, os.RemoveAll(tmp)
		}
		if ids[0] == math.MaxUint64 {
			return a, fmt.Errorf("checkpoint ids exhausted in %s", checkpointRoot)
		}
		id, a.Renumbered = ids[0]+1, true
		if a.Manifest, err = renumber(tmp, a.Manifest, id); err != nil {
			return a, err
		}
	}
	if err := renameIntoPlace(tmp, Dir(checkpointRoot, id)); err != nil {
		return a, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	a.ID = id
	return a, nil
}

// sameCheckpoint reports whether checkpoint m.ID under root has exactly
// m's manifest and passes Verify. A damaged copy is not the same: the
// savepoint then gets a fresh id and the damaged one stays for the user.
func sameCheckpoint(root string, m Manifest) bool {
	want, err := Encode(m)
	if err != nil {
		return false
	}
	have, err := os.ReadFile(filepath.Join(Dir(root, m.ID), manifestFile))
	return err == nil && bytes.Equal(have, want) && Verify(root, m.ID) == nil
}

// renumber rewrites tmp's manifest for id, durably.
func renumber(tmp string, m Manifest, id uint64) (Manifest, error) {
	m.ID = id
	m, data, err := encodeSummed(m)
	if err != nil {
		return m, err
	}
	return m, writeFileSync(tmp, manifestFile, data)
}
