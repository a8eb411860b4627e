package recovery

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// ErrRecovery marks a run that refused to start because the checkpoint it
// must restore is damaged or does not fit the pipeline. Nothing was changed.
var ErrRecovery = errors.New("cannot restore checkpoint")

// Options choose the checkpoint a run restores.
type Options struct {
	// FromCheckpoint restores this retained checkpoint instead of the newest.
	FromCheckpoint uint64
	// EmptyState starts from empty state even though checkpoints exist
	// (they are kept).
	EmptyState bool
}

// Plan is what a run restores: a verified checkpoint that fits the
// pipeline, and where each source resumes.
type Plan struct {
	Root     string
	Manifest checkpoint.Manifest
	// Resume: source name -> first sequence to deliver.
	Resume map[string]uint64
}

// Choose picks the checkpoint in root to restore (nil: start empty) and
// checks it fully before anything is touched: manifest, every file's
// checksum, and fits (the engine's check that its operators can read the
// state). newest is the newest retained id, whatever is restored.
func Choose(root string, opts Options, logger hclog.Logger, fits func(checkpoint.Manifest) error) (plan *Plan, newest uint64, err error) {
	if removed, err := checkpoint.RemoveLeftovers(root); err != nil {
		return nil, 0, fmt.Errorf("%w: clean %s: %v", ErrRecovery, root, err)
	} else if len(removed) > 0 {
		logger.Info("removed what interrupted checkpoint writes left", "dirs", removed)
	}
	ids, err := checkpoint.List(root)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: list checkpoints in %s: %v", ErrRecovery, root, err)
	}
	if len(ids) > 0 {
		newest = ids[0]
	}
	switch {
	case opts.EmptyState:
		if len(ids) > 0 {
			logger.Warn("starting from empty state although checkpoints exist (they are kept)", "newest_checkpoint", newest, "dir", root)
		}
		return nil, newest, nil
	case len(ids) == 0 && opts.FromCheckpoint != 0:
		return nil, 0, fmt.Errorf("%w %d: no checkpoints in %s", ErrRecovery, opts.FromCheckpoint, root)
	case len(ids) == 0:
		logger.Info("no checkpoint yet: starting from empty state", "dir", root)
		return nil, 0, nil
	}
	id := newest
	if opts.FromCheckpoint != 0 {
		if !slices.Contains(ids, opts.FromCheckpoint) {
			return nil, 0, fmt.Errorf("%w %d: not retained in %s; retained: %s", ErrRecovery, opts.FromCheckpoint, root, IDList(ids))
		}
		id = opts.FromCheckpoint
	}
	m, err := readVerified(root, id, ids)
	if err != nil {
		return nil, 0, err
	}
	if err := fits(m); err != nil {
		return nil, 0, err
	}
	return &Plan{Root: root, Manifest: m, Resume: ResumePoints(m)}, newest, nil
}

func readVerified(root string, id uint64, ids []uint64) (checkpoint.Manifest, error) {
	m, err := checkpoint.Read(root, id)
	if err == nil {
		err = checkpoint.Verify(root, id)
	}
	if err != nil {
		// err names the checkpoint's directory and the bad file.
		return m, fmt.Errorf("%w %d: %v; the pipeline did not start and nothing was changed. %s", ErrRecovery, id, err, hint(id, ids))
	}
	return m, nil
}

// hint tells the user the explicit choices a refused restore leaves.
func hint(id uint64, ids []uint64) string {
	var older []uint64
	for _, o := range ids {
		if o < id {
			older = append(older, o)
		}
	}
	if len(older) > 0 {
		return fmt.Sprintf("To roll back to an older checkpoint run with --from-checkpoint %d (retained: %s); to start from empty state run with --empty-state.", older[0], IDList(older))
	}
	return "No older checkpoint is retained; to start from empty state run with --empty-state."
}

// IDList prints checkpoint ids for messages: "3, 2, 1".
func IDList(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// Operator returns the manifest's entry of an operator.
func Operator(m checkpoint.Manifest, name string) (checkpoint.OperatorEntry, bool) {
	for _, e := range m.Operators {
		if e.Name == name {
			return e, true
		}
	}
	return checkpoint.OperatorEntry{}, false
}

// Source returns the manifest's position of a source.
func Source(m checkpoint.Manifest, name string) (checkpoint.SourcePosition, bool) {
	for _, s := range m.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return checkpoint.SourcePosition{}, false
}

// RangePositions converts manifest task entries to the protocol's form.
func RangePositions(tasks []checkpoint.TaskEntry) []protocol.RangePositions {
	out := make([]protocol.RangePositions, len(tasks))
	for i, t := range tasks {
		out[i] = protocol.RangePositions{Start: t.Start, End: t.End, Inputs: t.Inputs}
	}
	return out
}

// ResumePoints computes where each source of the manifest resumes: after
// the lowest position any task's snapshot holds for it.
func ResumePoints(m checkpoint.Manifest) map[string]uint64 {
	sources := map[string]uint64{}
	for _, s := range m.Sources {
		sources[s.Name] = s.LastSequence
	}
	var ranges []protocol.RangePositions
	for _, op := range m.Operators {
		ranges = append(ranges, RangePositions(op.Tasks)...)
	}
	return protocol.ResumePoints(sources, ranges)
}
