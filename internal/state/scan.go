package state

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Scan calls fn for every committed state entry of operator in the key
// groups of r, in key order (key group, then name length, name, key). It
// reads the store only: writes still in a backend's cache are not seen.
// This is the range scan a rescale or a restore performs; tools and tests
// use it too. The slices passed to fn are valid only during the call.
// An error from fn stops the scan and is returned as is.
//
// Scan passes values whether or not they have expired (FORMAT.md §3.1): an
// expired value stays in the store until cleanup reaches it. A tool that
// shows state as a guest would see it uses ScanValues and checks the expiry.
func (s *Store) Scan(operator string, r KeyGroupRange, fn func(kg int, name, key, value []byte) error) error {
	return s.ScanValues(operator, r, func(kg int, name, key []byte, v Value) error {
		return fn(kg, name, key, v.Data)
	})
}

// ScanValues is Scan with the decoded value, expiry included.
func (s *Store) ScanValues(operator string, r KeyGroupRange, fn func(kg int, name, key []byte, v Value) error) error {
	if err := validOperator(operator); err != nil {
		return err
	}
	if err := r.validate(MaxMaxParallelism); err != nil {
		return err
	}
	lo, hi := groupSpan(operator, r)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("state: scan operator %q %s in %s: %w", operator, r, s.dir, err)
	}
	err = scanIter(it, fn)
	return errors.Join(err, it.Close())
}

func scanIter(it *pebble.Iterator, fn func(kg int, name, key []byte, v Value) error) error {
	for valid := it.First(); valid; valid = it.Next() {
		sk, err := DecodeStateKey(it.Key())
		if err != nil {
			return err
		}
		raw, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		v, err := DecodeValue(raw)
		if err != nil {
			return fmt.Errorf("key group %d, state %q: %w", sk.KeyGroup, sk.Name, err)
		}
		if err := fn(sk.KeyGroup, sk.Name, sk.Key, v); err != nil {
			return err
		}
	}
	return it.Error()
}
