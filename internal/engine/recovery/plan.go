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
		return m, fmt.Errorf("%w %d: %v; the pipeline did not start and nothing was changed. %s", ErrRecovery, id, err, hint(root, id, ids))
	}
	return m, nil
}

// hint tells the user the explicit choices a refused restore leaves. It
// suggests only a checkpoint that verifies: a table file is hard-linked
// into every checkpoint taken while it lived, so its damage often shows in
// the next older checkpoints too. Those are verified newest first until
// one passes, and the ones that failed are named with the reason in short.
func hint(root string, id uint64, ids []uint64) string {
	var older []uint64
	for _, o := range ids {
		if o < id {
			older = append(older, o)
		}
	}
	if len(older) == 0 {
		return "No older checkpoint is retained; to start from empty state run with --empty-state."
	}
	var failed, reasons []string
	for _, o := range older {
		if err := checkpoint.Verify(root, o); err != nil {
			why := damage(err)
			failed = append(failed, fmt.Sprintf("%d fails verification too: %s", o, why))
			reasons = append(reasons, fmt.Sprintf("%d: %s", o, why))
			continue
		}
		return fmt.Sprintf("To roll back to the newest older checkpoint that verifies run with --from-checkpoint %d (retained: %s); "+
			"to start from empty state run with --empty-state.", o, strings.Join(append([]string{IDList(older)}, failed...), "; "))
	}
	return fmt.Sprintf("No older checkpoint verifies (%s); to start from empty state run with --empty-state.", strings.Join(reasons, "; "))
}

// maxDamagedFiles is how many bad files damage names.
const maxDamagedFiles = 3

// damage says in short why checkpoint.Verify failed: each bad file with
// what is wrong with it ("corrupt file state/000005.sst"), or the
// manifest's fault.
func damage(err error) string {
	var files []string
	eachFileError(err, func(fe *checkpoint.FileError) {
		kind := "unreadable file"
		switch {
		case errors.Is(fe, checkpoint.ErrMissingFile):
			kind = "missing file"
		case errors.Is(fe, checkpoint.ErrCorrupt):
			kind = "corrupt file"
		}
		files = append(files, kind+" "+fe.Path)
	})
	switch {
	case len(files) > maxDamagedFiles:
		return fmt.Sprintf("%s and %d more", strings.Join(files[:maxDamagedFiles], ", "), len(files)-maxDamagedFiles)
	case len(files) > 0:
		return strings.Join(files, ", ")
	case errors.Is(err, checkpoint.ErrCorruptManifest):
		return "corrupt manifest"
	case errors.Is(err, checkpoint.ErrIncompatible):
		return "manifest format this build does not read"
	}
	return "unreadable"
}

// eachFileError calls fn for every *checkpoint.FileError in err's tree.
func eachFileError(err error, fn func(*checkpoint.FileError)) {
	switch e := err.(type) {
	case *checkpoint.FileError:
		fn(e)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			eachFileError(x, fn)
		}
	case interface{ Unwrap() error }:
		eachFileError(e.Unwrap(), fn)
	}
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
