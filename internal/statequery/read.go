package statequery

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/state"
)

// Entry is one state value of a record key.
type Entry struct {
	KeyGroup int
	// Name is the stored state name; a map state's entry is name 0x00 mapKey
	// (internal/state/FORMAT.md §2).
	Name  string
	Key   []byte
	Value []byte
	// ExpiresAt is the TTL expiry in Unix nanoseconds, 0 when it never
	// expires. Expired entries that cleanup has not reached yet are still
	// stored, and returned with their expiry so the reader can tell.
	ExpiresAt int64
}

// errLimit stops a scan that has found enough entries.
var errLimit = errors.New("limit reached")

// Get returns key's entries of operator in st, whose state has
// maxParallelism key groups; only those of state name (and its map entries)
// when name is not empty. The key's key group is the only one read.
func Get(st *state.Store, operator string, maxParallelism int, key []byte, name string) ([]Entry, error) {
	kg := state.KeyGroup(key, maxParallelism)
	var out []Entry
	err := st.ScanValues(operator, state.KeyGroupRange{Start: kg, End: kg + 1}, func(kg int, n, k []byte, v state.Value) error {
		if bytes.Equal(k, key) && NameMatches(n, name) {
			out = append(out, entryOf(kg, n, k, v))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read operator %q key %q: %w", operator, key, err)
	}
	return out, nil
}

// Scan returns the entries of operator in st whose record key starts with
// prefix, in key-group order, at most limit of them (0: all).
func Scan(st *state.Store, operator string, maxParallelism int, prefix []byte, limit int) ([]Entry, error) {
	var out []Entry
	all := state.KeyGroupRange{Start: 0, End: maxParallelism}
	err := st.ScanValues(operator, all, func(kg int, n, k []byte, v state.Value) error {
		if !bytes.HasPrefix(k, prefix) {
			return nil
		}
		out = append(out, entryOf(kg, n, k, v))
		if limit > 0 && len(out) >= limit {
			return errLimit
		}
		return nil
	})
	if err != nil && !errors.Is(err, errLimit) {
		return nil, fmt.Errorf("scan operator %q: %w", operator, err)
	}
	return out, nil
}

// NameMatches reports whether entry name n belongs to the state want
// (state.NameMatches).
func NameMatches(n []byte, want string) bool { return state.NameMatches(n, want) }

// entryOf copies what a scan lends: the callback's slices are reused.
func entryOf(kg int, name, key []byte, v state.Value) Entry {
	e := Entry{KeyGroup: kg, Name: string(name), Key: bytes.Clone(key), Value: bytes.Clone(v.Data)}
	if e.Key == nil {
		e.Key = []byte{}
	}
	if v.HasExpiry {
		e.ExpiresAt = v.ExpiresAt
	}
	return e
}
