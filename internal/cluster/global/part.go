package global

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
)

// OperatorInfo is what a worker knows of an operator whose tasks it ran:
// checkpoint.OperatorEntry without the tasks, which the workers report
// separately (TaskPart). Every worker must report the same info.
type OperatorInfo struct {
	Name               string           `json:"name"`
	ModuleSHA256       string           `json:"module_sha256"`
	ABIVersion         uint32           `json:"abi_version"`
	StateFormatVersion uint32           `json:"state_format_version"`
	MaxParallelism     int              `json:"max_parallelism"`
	StateVersion       string           `json:"state_version,omitempty"`
	StateVersions      map[string]int32 `json:"state_versions,omitempty"`
}

// InfoOf returns e without its tasks.
func InfoOf(e checkpoint.OperatorEntry) OperatorInfo {
	return OperatorInfo{Name: e.Name, ModuleSHA256: e.ModuleSHA256, ABIVersion: e.ABIVersion,
		StateFormatVersion: e.StateFormatVersion, MaxParallelism: e.MaxParallelism,
		StateVersion: e.StateVersion, StateVersions: e.StateVersions}
}

// entry returns the operator entry of i with tasks.
func (i OperatorInfo) entry(tasks []checkpoint.TaskEntry) checkpoint.OperatorEntry {
	return checkpoint.OperatorEntry{Name: i.Name, ModuleSHA256: i.ModuleSHA256, ABIVersion: i.ABIVersion,
		StateFormatVersion: i.StateFormatVersion, MaxParallelism: i.MaxParallelism,
		StateVersion: i.StateVersion, StateVersions: i.StateVersions, Tasks: tasks}
}

// TaskPart is one task's part of a cluster checkpoint: its manifest entry
// and the uploaded task checkpoint (ship.TaskManifest) that holds its state.
//
// The engine may split one task's entry into several key-group sub-ranges
// with their own positions (after restoring an unaligned cut, where the
// replay had not yet passed the positions of some key groups). Such a task
// has one part per sub-range: the same Index, Object and SHA256, adjacent
// ranges whose union is the task checkpoint's range.
type TaskPart struct {
	// Operator is the operator's name.
	Operator string `json:"operator"`
	// Index is the task's index under the parallelism it ran with: tasks
	// are numbered in key-group order, as the single-process manifest lists them.
	Index int `json:"task"`
	// Entry is the task's manifest entry: its key-group range, the
	// position its snapshot holds per input, its pause metrics.
	Entry checkpoint.TaskEntry `json:"entry"`
	// Object is the task manifest's object in the bucket, SHA256 the hex
	// SHA-256 of its bytes (ship.UploadResult.ManifestObject and .ManifestSHA256).
	Object string `json:"object"`
	SHA256 string `json:"sha256"`
	// Bytes is the size of the task checkpoint's files, BytesNew the part
	// this checkpoint uploaded (ship.UploadResult.BytesTotal, .BytesUploaded).
	Bytes    int64 `json:"bytes"`
	BytesNew int64 `json:"bytes_new"`
}

// Range returns the part's key-group range.
func (p TaskPart) Range() state.KeyGroupRange {
	return state.KeyGroupRange{Start: p.Entry.Start, End: p.Entry.End}
}

// validate checks p alone, against the max parallelism of its operator.
func (p TaskPart) validate(maxParallelism int) error {
	r := p.Range()
	switch {
	case r.Start < 0 || r.Start >= r.End || r.End > maxParallelism:
		return fmt.Errorf("task %d: key-group range %s must be non-empty and inside [0,%d)", p.Index, r, maxParallelism)
	case p.Index < 0 || p.Index >= maxParallelism:
		return fmt.Errorf("task %d: index outside 0..%d", p.Index, maxParallelism-1)
	case p.Object == "" || strings.HasPrefix(p.Object, ship.ObjectPrefix):
		return fmt.Errorf("task %d: task manifest object %q must be a name outside %q", p.Index, p.Object, ship.ObjectPrefix)
	case !isSHA256Hex(p.SHA256):
		return fmt.Errorf("task %d: sha256 %q is not 64 lowercase hex digits", p.Index, p.SHA256)
	case p.Bytes < 0 || p.BytesNew < 0 || p.Entry.PauseNanos < 0 || p.Entry.AlignmentNanos < 0:
		return fmt.Errorf("task %d: negative size or metric", p.Index)
	}
	return nil
}

// samePart reports whether a and b describe one task checkpoint: the
// sub-ranges of a split entry.
func samePart(a, b TaskPart) bool {
	return a.Operator == b.Operator && a.Index == b.Index && a.Object == b.Object &&
		a.SHA256 == b.SHA256 && a.Bytes == b.Bytes && a.BytesNew == b.BytesNew
}

// validateInfos checks the operator infos an ack or a manifest lists: what
// the checks of this package rely on. The remaining rules (module hash,
// versions) are checkpoint's own: Assemble's result passes them.
func validateInfos(infos []OperatorInfo) (map[string]OperatorInfo, error) {
	byName := map[string]OperatorInfo{}
	for _, i := range infos {
		switch {
		case i.Name == "" || len(i.Name) > state.MaxOperatorLen:
			return nil, fmt.Errorf("operator name %q must be 1..%d bytes", i.Name, state.MaxOperatorLen)
		case i.MaxParallelism < 1 || i.MaxParallelism > state.MaxMaxParallelism:
			return nil, fmt.Errorf("operator %q: max parallelism %d outside 1..%d", i.Name, i.MaxParallelism, state.MaxMaxParallelism)
		}
		if _, ok := byName[i.Name]; ok {
			return nil, fmt.Errorf("operator %q listed twice", i.Name)
		}
		byName[i.Name] = i
	}
	return byName, nil
}

// validateParts checks every part against its operator's info.
func validateParts(parts []TaskPart, infos map[string]OperatorInfo) error {
	var errs []error
	for _, p := range parts {
		info, ok := infos[p.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("task %d of operator %q: the operator is not listed", p.Index, p.Operator))
			continue
		}
		if err := p.validate(info.MaxParallelism); err != nil {
			errs = append(errs, fmt.Errorf("operator %q: %w", p.Operator, err))
		}
	}
	return errors.Join(errs...)
}
