package state

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// FormatVersion is the state format this package writes and reads
// (FORMAT.md). It is stored under the metadata key "format_version"; a
// store written by a newer version is refused at Open.
const FormatVersion = 1

// MaxMetaNameLen is the longest metadata name.
const MaxMetaNameLen = 1024

// metaFormatVersion names the metadata entry holding the format version,
// a u32 big-endian. It is written by Open only.
const metaFormatVersion = "format_version"

// metaKey returns 'm' | name.
func metaKey(name string) []byte {
	return append([]byte{prefixMeta}, name...)
}

// PutMeta adds the engine metadata entry name (source positions, checkpoint
// ids...) to b, so it commits atomically with the state flushed into b.
func PutMeta(b *pebble.Batch, name string, value []byte) error {
	if len(name) == 0 || len(name) > MaxMetaNameLen {
		return fmt.Errorf("%w: metadata name of %d bytes; names are 1..%d bytes", ErrInvalidName, len(name), MaxMetaNameLen)
	}
	if name == metaFormatVersion {
		return fmt.Errorf("%w: metadata name %q is reserved for the state format version", ErrInvalidName, name)
	}
	return b.Set(metaKey(name), value, nil)
}

// GetMeta returns a copy of the committed metadata entry name.
func (s *Store) GetMeta(name string) ([]byte, bool, error) {
	v, closer, err := s.db.Get(metaKey(name))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state: read metadata %q in %s: %w", name, s.dir, err)
	}
	defer closer.Close()
	return append([]byte{}, v...), true, nil
}

// checkFormat verifies the format version of a freshly opened DB, writing
// it (synced) when the DB is new.
func checkFormat(db *pebble.DB, dir string, readOnly bool) error {
	v, closer, err := db.Get(metaKey(metaFormatVersion))
	if errors.Is(err, pebble.ErrNotFound) {
		return initFormat(db, dir, readOnly)
	}
	if err != nil {
		return fmt.Errorf("state: read format version in %s: %w", dir, err)
	}
	defer closer.Close()
	return compareFormat(v, dir)
}

// compareFormat accepts exactly FormatVersion and names the way out otherwise.
func compareFormat(v []byte, dir string) error {
	if len(v) != 4 {
		return fmt.Errorf("%w: format version entry in %s has %d bytes, want 4", ErrCorrupt, dir, len(v))
	}
	switch got := binary.BigEndian.Uint32(v); {
	case got > FormatVersion:
		return fmt.Errorf("%w: %s has state format %d, this build reads format %d; upgrade wasmstream (never open it with an older build)",
			ErrFormatTooNew, dir, got, FormatVersion)
	case got < FormatVersion:
		return fmt.Errorf("%w: %s has state format %d, this build reads format %d only",
			ErrFormatUnsupported, dir, got, FormatVersion)
	}
	return nil
}

// initFormat stamps an empty DB with FormatVersion. A DB with data but no
// version is refused: it is some other program's store, or damaged.
func initFormat(db *pebble.DB, dir string, readOnly bool) error {
	empty, err := isEmpty(db)
	if err != nil {
		return fmt.Errorf("state: inspect %s: %w", dir, err)
	}
	if !empty || readOnly {
		return fmt.Errorf("%w: %s has no state format version (empty: %t); point the data dir at a wasmstream state store",
			ErrNotStateStore, dir, empty)
	}
	b := db.NewBatch()
	defer b.Close()
	if err := b.Set(metaKey(metaFormatVersion), binary.BigEndian.AppendUint32(nil, FormatVersion), nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("state: write format version in %s: %w", dir, err)
	}
	return nil
}

func isEmpty(db *pebble.DB) (bool, error) {
	it, err := db.NewIter(nil)
	if err != nil {
		return false, err
	}
	empty := !it.First()
	return empty, errors.Join(it.Error(), it.Close())
}
