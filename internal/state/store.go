package state

import (
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// Store is the keyed state of every operator task of a process: one Pebble
// DB per data dir. Its methods are safe for concurrent use; the Backends it
// hands out are not.
type Store struct {
	dir  string
	opts Options
	db   *pebble.DB

	mu     sync.Mutex
	owners map[string][]KeyGroupRange // key-group ranges of open backends, by operator
}

// Open opens (creating if needed) the state store in dir. A new store is
// stamped with FormatVersion; an existing one must carry exactly that
// version (ErrFormatTooNew, ErrFormatUnsupported, ErrNotStateStore otherwise).
func Open(dir string, o Options) (*Store, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	db, err := pebble.Open(dir, pebbleOptions(o))
	if err != nil {
		return nil, fmt.Errorf("state: open store in %s: %w", dir, err)
	}
	if err := checkFormat(db, dir, o.ReadOnly); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{dir: dir, opts: o, db: db, owners: map[string][]KeyGroupRange{}}, nil
}

// pebbleOptions turns Options into Pebble's, with bloom filters on every
// level: a backend miss is a point Get, mostly for keys that do not exist
// yet. The store holds every state value in the clear, so Pebble writes it
// through privatefs: files 0600, directories 0700.
func pebbleOptions(o Options) *pebble.Options {
	po := &pebble.Options{
		CacheSize:          o.CacheSizeBytes,
		ReadOnly:           o.ReadOnly,
		Logger:             o.Logger,
		FS:                 privatefs.Wrap(o.FS),
		FormatMajorVersion: pebble.FormatNewest,
	}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(bloomBitsPerKey)
	}
	return po
}

// Close closes the DB. Backends of the store must not be used afterwards.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("state: close store in %s: %w", s.dir, err)
	}
	return nil
}

// Dir returns the data dir of the store.
func (s *Store) Dir() string { return s.dir }

// DB returns the Pebble DB, for checkpoints and tools.
func (s *Store) DB() *pebble.DB { return s.db }

// NewBatch returns a batch for FlushTo and PutMeta.
func (s *Store) NewBatch() *pebble.Batch { return s.db.NewBatch() }

// Commit commits b durably (pebble.Sync, which also makes every earlier
// unsynced write durable) and closes it, whether or not the commit succeeded.
func (s *Store) Commit(b *pebble.Batch) error {
	err := b.Commit(pebble.Sync)
	b.Close()
	if err != nil {
		return fmt.Errorf("state: commit batch in %s: %w", s.dir, err)
	}
	return nil
}

// claim records that a backend owns r of operator, refusing overlaps.
func (s *Store) claim(operator string, r KeyGroupRange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.owners[operator] {
		if o.Overlaps(r) {
			return fmt.Errorf("%w: operator %q range %s overlaps open backend range %s; close the old backend first",
				ErrRangeInUse, operator, r, o)
		}
	}
	s.owners[operator] = append(s.owners[operator], r)
	return nil
}

// release forgets the claim of operator on r.
func (s *Store) release(operator string, r KeyGroupRange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.owners[operator]
	for i, o := range rs {
		if o == r {
			s.owners[operator] = append(rs[:i], rs[i+1:]...)
			break
		}
	}
	if len(s.owners[operator]) == 0 {
		delete(s.owners, operator)
	}
}
