package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
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

// NameMatches reports whether the entry name n belongs to the state want:
// its value (n == want) or one of its map entries (want, a 0 byte, the map
// key: how the SDKs name a map state's entries). Every name matches "".
func NameMatches(n []byte, want string) bool {
	if want == "" || string(n) == want {
		return true
	}
	return len(n) > len(want) && string(n[:len(want)]) == want && n[len(want)] == 0
}

// ReadKey returns the state entries of record key that belong to the state
// want (NameMatches; "" for all) as the backend sees them now: the cache
// (written or read since the last flush) over the entries evicted since
// then over the store. It is for queries from outside the guest (wasmstream
// state get --live) and changes nothing: no entry is cached or evicted, no
// expiry moves and no delete is recorded, so a query cannot change what the
// guest or a checkpoint sees. Expired entries that cleanup has not removed
// are returned with their expiry.
//
// Its cost does not grow with the cache: the store is read with one seek
// per matching name in the key's key group, the cache probed once per
// state name it has held. Only a state that has map entries in the cache
// (or a backend with more names than it tracks) makes it walk the cache.
//
// Like every Backend method it runs on the task's goroutine; it fails with
// ErrInBatch inside a guest batch, whose writes may still be rolled back,
// and with ErrKeyOutOfRange for a key of another task. The entries come in
// store order (by name length, then name).
func (b *Backend) ReadKey(key []byte, want string) ([]KeyEntry, error) {
	if err := b.checkReadKey(key); err != nil {
		return nil, err
	}
	kg := KeyGroup(key, b.opts.MaxParallelism)
	found := map[string]Value{}
	if err := b.readStoredKey(kg, key, want, found); err != nil {
		return nil, err
	}
	b.overlayCache(kg, key, want, found)
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

// readStoredKey adds key's entries of state want in the store, read
// through the spill batch, to found.
func (b *Backend) readStoredKey(kg int, key []byte, want string, found map[string]Value) error {
	lo, hi := groupSpan(b.opts.Operator, KeyGroupRange{Start: kg, End: kg + 1})
	it, err := b.reader().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("state: operator %q: read key group %d: %w", b.opts.Operator, kg, err)
	}
	seek := nameSeeker{prefix: lo, want: want}
	err = seek.entriesOf(it, key, found)
	return errors.Join(err, it.Close())
}

// nameSeeker finds one record key's entries in one key group. Within a key
// group the store orders entries by name length, then name, then record
// key, so instead of reading the group it seeks: to the key under each
// matching name, and from a name that does not match to the next place a
// matching name can start.
type nameSeeker struct {
	prefix []byte // the key group's first key: operator prefix and u16 key group
	want   string
	target []byte
}

func (s *nameSeeker) entriesOf(it *pebble.Iterator, key []byte, found map[string]Value) error {
	valid := it.First()
	if s.want != "" {
		valid = it.SeekGE(s.head(len(s.want), s.want))
	}
	for valid {
		sk, err := DecodeStateKey(it.Key())
		if err != nil {
			return err
		}
		if next := s.nextCandidate(sk.Name); next != nil {
			valid = it.SeekGE(next)
			continue
		}
		head := len(it.Key()) - len(sk.Key)
		// The iterator's key may be reused by a seek: keep a copy.
		s.target = append(append(s.target[:0], it.Key()[:head]...), key...)
		if !bytes.Equal(it.Key(), s.target) && !it.SeekGE(s.target) {
			break
		}
		if bytes.Equal(it.Key(), s.target) {
			if err := addStored(it, s.target[head-len(sk.Name):head], found); err != nil {
				return err
			}
		}
		// Every key of this name starts with target[:head]; its prefix
		// successor is the first key of the next name.
		valid = it.SeekGE(prefixSuccessor(s.target[:head]))
	}
	return it.Error()
}

// nextCandidate returns nil when name matches, else the first key where a
// matching name can follow it.
func (s *nameSeeker) nextCandidate(name []byte) []byte {
	if NameMatches(name, s.want) {
		return nil
	}
	w := len(s.want)
	mapPrefix := s.want + "\x00"
	// The seeks start at the value's key, so a name of want's length is
	// past it.
	switch {
	case len(name) < w:
		return s.head(w, s.want)
	case len(name) == w: // past the value: the map entries are longer
		return s.head(w+1, mapPrefix)
	case string(name[:w+1]) < mapPrefix:
		return s.head(len(name), mapPrefix)
	default: // past this length's map entries
		return s.head(len(name)+1, mapPrefix)
	}
}

// head returns the key group's first key of a name of length n that
// starts with namePrefix.
func (s *nameSeeker) head(n int, namePrefix string) []byte {
	k := binary.BigEndian.AppendUint16(bytes.Clone(s.prefix), uint16(n))
	return append(k, namePrefix...)
}

// addStored decodes the value at it into found under name.
func addStored(it *pebble.Iterator, name []byte, found map[string]Value) error {
	raw, err := it.ValueAndErr()
	if err != nil {
		return err
	}
	v, err := DecodeValue(raw)
	if err != nil {
		return fmt.Errorf("state %q: %w", name, err)
	}
	v.Data = bytes.Clone(v.Data)
	found[string(name)] = v
	return nil
}

// prefixSuccessor returns the smallest key greater than every key that
// starts with p (p is never all 0xff: it starts with the state prefix).
func prefixSuccessor(p []byte) []byte {
	s := bytes.Clone(p)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xff {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}
