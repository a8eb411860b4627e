package state

import (
	"encoding/binary"
	"fmt"

	"github.com/wasmstream/wasmstream/abi"
)

// Key prefixes of the Pebble keyspace (FORMAT.md). Every key starts with one.
const (
	prefixState = 's'
	prefixMeta  = 'm'
)

// Limits of state format version 1.
const (
	// MaxOperatorLen is the longest operator name: its length is a u8.
	MaxOperatorLen = 255
	// MaxStateNameLen is the longest state name, the ABI's limit; the layout's
	// u16 length leaves room to raise it without a format change.
	MaxStateNameLen = abi.MaxStateNameLen
	// MaxKeyLen is the longest record key a backend accepts. Pebble keys
	// carry the record key whole, and long keys bloat every index block.
	MaxKeyLen = 64 << 10
)

// StateKey is a decoded state key. Slices alias the decoded bytes.
type StateKey struct {
	Operator []byte
	KeyGroup int
	Name     []byte
	Key      []byte
}

// AppendStateKey appends the Pebble key of one state entry (FORMAT.md):
//
//	's' | u8 len(operator) | operator | u16 keyGroup | u16 len(name) | name | userKey
//
// all big-endian, so the entries of one operator and one key-group range
// form one contiguous key range. Arguments must be valid (see validOperator,
// validName); the caller checks them once, not per record.
func AppendStateKey(dst []byte, operator string, kg int, name, userKey []byte) []byte {
	dst = appendOperatorPrefix(dst, operator)
	return appendGroupKey(dst, kg, name, userKey)
}

// appendOperatorPrefix appends 's' | u8 len(operator) | operator: the part
// of the key that is the same for every entry of an operator.
func appendOperatorPrefix(dst []byte, operator string) []byte {
	dst = append(dst, prefixState, byte(len(operator)))
	return append(dst, operator...)
}

// appendGroupKey appends the part after the operator prefix. A backend uses
// these bytes as its cache key, so a flush only prepends the prefix.
func appendGroupKey(dst []byte, kg int, name, userKey []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(kg))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(name)))
	dst = append(dst, name...)
	return append(dst, userKey...)
}

// groupKeyName returns the state name inside k, a valid appendGroupKey
// encoding (the backend wrote it).
func groupKeyName(k []byte) []byte {
	return k[4 : 4+int(binary.BigEndian.Uint16(k[2:]))]
}

// DecodeStateKey decodes a key written by AppendStateKey. It never panics;
// bytes that do not follow the layout give an error wrapping ErrCorrupt.
func DecodeStateKey(k []byte) (StateKey, error) {
	if len(k) < 2 || k[0] != prefixState {
		return StateKey{}, corruptKey(k, "no state prefix")
	}
	opLen := int(k[1])
	rest := k[2:]
	if opLen == 0 || len(rest) < opLen+4 {
		return StateKey{}, corruptKey(k, "operator name truncated or empty")
	}
	sk := StateKey{Operator: rest[:opLen]}
	rest = rest[opLen:]
	sk.KeyGroup = int(binary.BigEndian.Uint16(rest))
	nameLen := int(binary.BigEndian.Uint16(rest[2:]))
	rest = rest[4:]
	if nameLen == 0 || nameLen > MaxStateNameLen || len(rest) < nameLen {
		return StateKey{}, corruptKey(k, "state name truncated, empty or too long")
	}
	sk.Name, sk.Key = rest[:nameLen], rest[nameLen:]
	if sk.KeyGroup >= MaxMaxParallelism {
		return StateKey{}, corruptKey(k, "key group out of range")
	}
	return sk, nil
}

// groupSpan returns the bounds [lo, hi) of all state keys of operator in
// the key groups of r: the scan a rescale or restore performs.
func groupSpan(operator string, r KeyGroupRange) (lo, hi []byte) {
	p := appendOperatorPrefix(nil, operator)
	lo = binary.BigEndian.AppendUint16(append([]byte(nil), p...), uint16(r.Start))
	// End ≤ MaxMaxParallelism < 1<<16, so End itself is a valid u16 bound.
	hi = binary.BigEndian.AppendUint16(p, uint16(r.End))
	return lo, hi
}

func validOperator(op string) error {
	if len(op) == 0 || len(op) > MaxOperatorLen {
		return fmt.Errorf("%w: operator name %q must be 1..%d bytes", ErrInvalidOptions, op, MaxOperatorLen)
	}
	return nil
}

func validName(name []byte) error {
	if len(name) == 0 || len(name) > MaxStateNameLen {
		return fmt.Errorf("%w: state name of %d bytes; names are 1..%d bytes", ErrInvalidName, len(name), MaxStateNameLen)
	}
	return nil
}

func corruptKey(k []byte, why string) error {
	const show = 64
	if len(k) > show {
		return fmt.Errorf("%w: state key %x… (%d bytes): %s", ErrCorrupt, k[:show], len(k), why)
	}
	return fmt.Errorf("%w: state key %x: %s", ErrCorrupt, k, why)
}
