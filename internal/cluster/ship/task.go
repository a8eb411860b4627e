package ship

import (
	"fmt"
	"slices"

	"github.com/wasmstream/wasmstream/internal/state"
)

// Task names the state one task checkpoint holds: the key groups Range of
// Operator, and the operator's metadata entries MetaNames.
type Task struct {
	// Operator is the operator's name, 1..255 bytes.
	Operator string
	// MaxParallelism is the operator's number of key groups.
	MaxParallelism int
	// Index is the task's index under the parallelism it ran with. The
	// outbox keys of the task carry it (internal/state/FORMAT.md §6), so it
	// says which staged outputs belong to this task.
	Index int
	// Range is the key groups the task owns.
	Range state.KeyGroupRange
	// MetaNames are the metadata entries of the operator to ship with its
	// state, for example the engine's dead-letter list of the operator
	// ("engine/deadletters/<operator>"). They are per operator, not per
	// key group, so every task of the operator ships them and Restore
	// returns them for the caller to merge. "format_version" is always
	// shipped and must not be listed.
	MetaNames []string
}

// validate checks t as Snapshot and the manifest decoder accept it.
func (t Task) validate() error {
	if len(t.Operator) == 0 || len(t.Operator) > state.MaxOperatorLen {
		return fmt.Errorf("%w: operator name %q must be 1..%d bytes", ErrInvalid, t.Operator, state.MaxOperatorLen)
	}
	if t.MaxParallelism < 1 || t.MaxParallelism > state.MaxMaxParallelism {
		return fmt.Errorf("%w: operator %q: max parallelism %d must be in 1..%d", ErrInvalid, t.Operator, t.MaxParallelism, state.MaxMaxParallelism)
	}
	if err := validRange(t.Range, t.MaxParallelism); err != nil {
		return fmt.Errorf("operator %q: %w", t.Operator, err)
	}
	if t.Index < 0 || t.Index >= t.MaxParallelism {
		return fmt.Errorf("%w: operator %q: task index %d must be in 0..%d", ErrInvalid, t.Operator, t.Index, t.MaxParallelism-1)
	}
	return validMetaNames(t.Operator, t.MetaNames)
}

// validRange checks that r is a non-empty range inside [0, maxParallelism).
func validRange(r state.KeyGroupRange, maxParallelism int) error {
	if r.Start < 0 || r.Start >= r.End || r.End > maxParallelism {
		return fmt.Errorf("%w: key-group range %s must be non-empty and inside [0,%d)", ErrInvalid, r, maxParallelism)
	}
	return nil
}

// validMetaNames requires sorted, unique names of 1..MaxMetaNameLen bytes,
// so that one task has one encoding.
func validMetaNames(op string, names []string) error {
	for i, n := range names {
		switch {
		case len(n) == 0 || len(n) > state.MaxMetaNameLen:
			return fmt.Errorf("%w: operator %q: metadata name %q must be 1..%d bytes", ErrInvalid, op, n, state.MaxMetaNameLen)
		case n == metaFormatVersion:
			return fmt.Errorf("%w: operator %q: metadata name %q is always shipped; do not list it", ErrInvalid, op, n)
		case i > 0 && names[i-1] >= n:
			return fmt.Errorf("%w: operator %q: metadata names %q must be sorted and unique", ErrInvalid, op, names)
		}
	}
	return nil
}

// withSortedMeta returns t with a sorted copy of its MetaNames.
func (t Task) withSortedMeta() Task {
	t.MetaNames = slices.Clone(t.MetaNames)
	slices.Sort(t.MetaNames)
	return t
}
