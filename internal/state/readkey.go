package state

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// KeyEntry is one state entry of a record key, as ReadKey returns it.
type KeyEntry struct {
	KeyGroup int
	Name     []byte
	Value    Value
}

// ReadKey returns every state entry of record key as the backend sees it
// now: the cache (written or read since the last flush) over the entries
// evicted since then over the store. It is for queries from outside the
// guest (wasmstream state get --live) and changes nothing: no entry is
// cached or evicted, no expiry moves and no delete is recorded, so a query
// cannot change what the guest or a checkpoint sees. Expired entries that
// cleanup has not removed are returned with their expiry.
//
// Like every Backend method it runs on the task's goroutine; it fails with
// ErrInBatch inside a guest batch, whose writes may still be rolled back,
// and with ErrKeyOutOfRange for a key of another task. The entries come in
// store order (by name length, then name).
func (b *Backend) ReadKey(key []byte) ([]KeyEntry, error) {
	if err := b.checkReadKey(key); err != nil {
		return nil, err
	}
	kg := KeyGroup(key, b.opts.MaxParallelism)
	found := map[string]Value{}
	if err := b.readStoredKey(kg, key, found); err != nil {
		return nil, err
	}
	b.overlayCache(kg, key, found)
	out := make([]KeyEntry, 0, len(found))
	for name, v := range found {
		out = append(out, KeyEntry{KeyGroup: kg, Name: []byte(name), Value: v})
	}
	slices.SortFunc(out, func(x, y KeyEntry) int {
		return cmp.Or(cmp.Compare(len(x.Name), len(y.Name)), bytes.Compare(x.Name, y.Name))
	})
	return out, nil
}

func (b *Backend) checkReadKey(key []byte) error {
	switch {
	case b.closed:
		return ErrClosed
	case b.undo.open:
		return fmt.Errorf("%w: operator %q: ReadKey inside a guest batch would see writes that may be rolled back", ErrInBatch, b.opts.Operator)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: operator %q: key of %d bytes, the limit is %d", ErrKeyTooLarge, b.opts.Operator, len(key), MaxKeyLen)
	}
	if kg := KeyGroup(key, b.opts.MaxParallelism); !b.opts.Range.Contains(kg) {
		return fmt.Errorf("%w: operator %q: key %s is in key group %d, the task owns %s", ErrKeyOutOfRange, b.opts.Operator, showKey(key), kg, b.opts.Range)
	}
	return nil
}

// readStoredKey adds key's entries in the store, read through the spill
// batch, to found.
func (b *Backend) readStoredKey(kg int, key []byte, found map[string]Value) error {
	lo, hi := groupSpan(b.opts.Operator, KeyGroupRange{Start: kg, End: kg + 1})
	it, err := b.reader().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("state: operator %q: read key group %d: %w", b.opts.Operator, kg, err)
	}
	err = scanIter(it, func(_ int, name, k []byte, v Value) error {
		if bytes.Equal(k, key) {
			v.Data = bytes.Clone(v.Data)
			found[string(name)] = v
		}
		return nil
	})
	return errors.Join(err, it.Close())
}

// overlayCache applies the cache's entries of key to found: a cached
// entry is newer than the store (a clean one equals it).
func (b *Backend) overlayCache(kg int, key []byte, found map[string]Value) {
	prefix := appendGroupKey(nil, kg, nil, nil)[:2]
	for ck, e := range b.cache {
		if len(ck) < 4 || ck[:2] != string(prefix) {
			continue
		}
		name := groupKeyName([]byte(ck))
		if ck[4+len(name):] != string(key) {
			continue
		}
		if !e.present {
			delete(found, string(name))
			continue
		}
		found[string(name)] = Value{Data: bytes.Clone(e.value), ExpiresAt: e.expiresAt, HasExpiry: e.hasExpiry}
	}
}
