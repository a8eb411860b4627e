package ship

import (
	"fmt"
	"slices"

	"github.com/wasmstream/wasmstream/internal/state"
)

// cover returns the manifests of target's operator that overlap its
// range, by start, after checking that they give each key group of the
// range once and that their formats are this build's.
func cover(manifests []TaskManifest, t Target) ([]TaskManifest, error) {
	var parts []TaskManifest
	for _, m := range manifests {
		if m.Operator == t.Operator && m.Range().Overlaps(t.Range) {
			parts = append(parts, m)
		}
	}
	slices.SortFunc(parts, func(a, b TaskManifest) int { return a.Start - b.Start })
	next := t.Range.Start
	for _, m := range parts {
		if err := compatible(m, t); err != nil {
			return nil, err
		}
		// Manifests may be built in memory rather than decoded: their
		// paths are joined to a directory, so they are checked here too.
		if err := m.validate(); err != nil {
			return nil, fmt.Errorf("%w: operator %q task checkpoint %s: %v", ErrCorruptManifest, t.Operator, m.Range(), err)
		}
		switch start := max(m.Start, t.Range.Start); {
		case start > next:
			return nil, notCovered(t, "no task checkpoint has key groups", next, start)
		case start < next:
			return nil, notCovered(t, "two task checkpoints have key groups", start, min(next, m.End))
		}
		next = min(m.End, t.Range.End)
	}
	if next < t.Range.End {
		return nil, notCovered(t, "no task checkpoint has key groups", next, t.Range.End)
	}
	return parts, nil
}

func notCovered(t Target, what string, start, end int) error {
	return fmt.Errorf("%w: operator %q range %s: %s %s; pass the task manifests of one checkpoint",
		ErrNotCovered, t.Operator, t.Range, what, state.KeyGroupRange{Start: start, End: end})
}

// compatible refuses a task checkpoint whose key groups or state bytes
// mean something else than the target's.
func compatible(m TaskManifest, t Target) error {
	if m.MaxParallelism != t.MaxParallelism {
		return fmt.Errorf("%w: operator %q: task checkpoint %s has max parallelism %d, the target %d; key groups differ, the state cannot be imported",
			ErrIncompatible, t.Operator, m.Range(), m.MaxParallelism, t.MaxParallelism)
	}
	if m.StateFormatVersion != state.FormatVersion {
		return fmt.Errorf("%w: operator %q: task checkpoint %s has state format %d, this build %d; use the wasmstream version that wrote it",
			ErrIncompatible, t.Operator, m.Range(), m.StateFormatVersion, state.FormatVersion)
	}
	return nil
}
