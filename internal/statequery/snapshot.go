package statequery

import (
	"fmt"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// Get returns key's entries of operator in the checkpoint, only those of
// state name when it is not empty; ErrKeyNotFound when there are none.
func (s *Snapshot) Get(operator string, key []byte, name string) ([]Entry, error) {
	op, err := s.operator(operator)
	if err != nil {
		return nil, err
	}
	entries, err := Get(s.store, operator, op.MaxParallelism, key, name)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", s.ID, err)
	}
	if len(entries) == 0 {
		return nil, s.notFound(operator, key, name)
	}
	return entries, nil
}

// Scan returns operator's entries whose key starts with prefix, at most
// limit (0: all).
func (s *Snapshot) Scan(operator string, prefix []byte, limit int) ([]Entry, error) {
	op, err := s.operator(operator)
	if err != nil {
		return nil, err
	}
	entries, err := Scan(s.store, operator, op.MaxParallelism, prefix, limit)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", s.ID, err)
	}
	return entries, nil
}

// operator returns the manifest entry of name, whose max parallelism maps
// keys to key groups.
func (s *Snapshot) operator(name string) (checkpoint.OperatorEntry, error) {
	names := make([]string, 0, len(s.Manifest.Operators))
	for _, op := range s.Manifest.Operators {
		if op.Name == name {
			return op, nil
		}
		names = append(names, fmt.Sprintf("%q", op.Name))
	}
	return checkpoint.OperatorEntry{}, fmt.Errorf("%w %q in checkpoint %d (%s); its operators: %s",
		ErrUnknownOperator, name, s.ID, s.Dir, strings.Join(names, ", "))
}

func (s *Snapshot) notFound(operator string, key []byte, name string) error {
	what := "no state"
	if name != "" {
		what = fmt.Sprintf("no state %q", name)
	}
	return fmt.Errorf("%w: operator %q has %s for key %q in checkpoint %d (%s); "+
		"wasmstream state scan lists the keys it holds", ErrKeyNotFound, operator, what, key, s.ID, s.Dir)
}
