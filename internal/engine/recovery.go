package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
)

// ErrRecovery marks a run that refused to start because the checkpoint it
// must restore is damaged or does not fit the pipeline. Nothing was changed.
var ErrRecovery = errors.New("cannot restore checkpoint")

// restorePlan is what a run restores: a verified checkpoint that fits the
// pipeline, and where each source resumes.
type restorePlan struct {
	root     string
	manifest checkpoint.Manifest
	// resume: source name -> first sequence to deliver.
	resume map[string]uint64
}

// planRecovery chooses the checkpoint to restore (nil: start empty) and
// checks it fully before anything is touched: manifest, every file's
// checksum, and that each operator's module, ABI and state format fit.
func (p *Pipeline) planRecovery() (*restorePlan, uint64, error) {
	root := CheckpointRoot(p.cfg)
	if removed, err := checkpoint.RemoveLeftovers(root); err != nil {
		return nil, 0, fmt.Errorf("%w: clean %s: %v", ErrRecovery, root, err)
	} else if len(removed) > 0 {
		p.logger.Info("removed what interrupted checkpoint writes left", "dirs", removed)
	}
	ids, err := checkpoint.List(root)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: list checkpoints in %s: %v", ErrRecovery, root, err)
	}
	var newest uint64
	if len(ids) > 0 {
		newest = ids[0]
	}
	ro := p.opts.Recovery
	switch {
	case ro.EmptyState:
		if len(ids) > 0 {
			p.logger.Warn("starting from empty state although checkpoints exist (they are kept)", "newest_checkpoint", newest, "dir", root)
		}
		return nil, newest, nil
	case len(ids) == 0 && ro.FromCheckpoint != 0:
		return nil, 0, fmt.Errorf("%w %d: no checkpoints in %s", ErrRecovery, ro.FromCheckpoint, root)
	case len(ids) == 0:
		p.logger.Info("no checkpoint yet: starting from empty state", "dir", root)
		return nil, 0, nil
	}
	id := newest
	if ro.FromCheckpoint != 0 {
		if !slices.Contains(ids, ro.FromCheckpoint) {
			return nil, 0, fmt.Errorf("%w %d: not retained in %s; retained: %s", ErrRecovery, ro.FromCheckpoint, root, idList(ids))
		}
		id = ro.FromCheckpoint
	}
	m, err := p.readVerified(root, id, ids)
	if err != nil {
		return nil, 0, err
	}
	if err := p.checkOperators(m); err != nil {
		return nil, 0, err
	}
	return &restorePlan{root: root, manifest: m, resume: resumePoints(m)}, newest, nil
}

func (p *Pipeline) readVerified(root string, id uint64, ids []uint64) (checkpoint.Manifest, error) {
	hint := recoveryHint(id, ids)
	m, err := checkpoint.Read(root, id)
	if err == nil {
		err = checkpoint.Verify(root, id)
	}
	if err != nil {
		// err names the checkpoint's directory and the bad file.
		return m, fmt.Errorf("%w %d: %v; the pipeline did not start and nothing was changed. %s", ErrRecovery, id, err, hint)
	}
	return m, nil
}

// recoveryHint tells the user the explicit choices a refused restore leaves.
func recoveryHint(id uint64, ids []uint64) string {
	var older []uint64
	for _, o := range ids {
		if o < id {
			older = append(older, o)
		}
	}
	if len(older) > 0 {
		return fmt.Sprintf("To roll back to an older checkpoint run with --from-checkpoint %d (retained: %s); to start from empty state run with --empty-state.", older[0], idList(older))
	}
	return "No older checkpoint is retained; to start from empty state run with --empty-state."
}

func idList(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// checkOperators refuses a checkpoint whose state the configured operators
// cannot read: other module (unless allowed or declared compatible), ABI,
// state format or key-group count.
func (p *Pipeline) checkOperators(m checkpoint.Manifest) error {
	for _, op := range p.operators {
		e, ok := manifestOperator(m, op.cfg.Name)
		if !ok {
			p.logger.Warn("operator has no state in the checkpoint; it starts empty", "operator", op.cfg.Name, "checkpoint", m.ID)
			continue
		}
		if err := p.checkOperator(m.ID, op, e); err != nil {
			return fmt.Errorf("%w %d: operator %q: %v; the pipeline did not start and nothing was changed", ErrRecovery, m.ID, op.cfg.Name, err)
		}
	}
	return nil
}

func (p *Pipeline) checkOperator(id uint64, op *operator, e checkpoint.OperatorEntry) error {
	switch {
	case e.ABIVersion != abi.Version:
		return fmt.Errorf("the state was written by a module for ABI v%d, this host speaks v%d (use the wasmstream version that wrote it)", e.ABIVersion, abi.Version)
	case e.StateFormatVersion != state.FormatVersion:
		return fmt.Errorf("state format v%d, this build reads v%d (use the wasmstream version that wrote it)", e.StateFormatVersion, state.FormatVersion)
	case e.MaxParallelism != op.cfg.MaxParallelism:
		return fmt.Errorf("the state has %d key groups but max_parallelism is %d; max_parallelism is fixed for the life of the state (set it back to %d)",
			e.MaxParallelism, op.cfg.MaxParallelism, e.MaxParallelism)
	case e.ModuleSHA256 == op.module.Hash():
		return nil
	case p.opts.Recovery.AllowOperatorChange:
		p.logger.Warn("restoring state written by another module version (--allow-operator-change)", "operator", op.cfg.Name,
			"checkpoint", id, "old_sha256", e.ModuleSHA256[:16], "new_sha256", op.module.Hash()[:16])
		return nil
	case e.StateVersion != "" && e.StateVersion == op.cfg.StateVersion:
		p.logger.Info("module changed; state_version unchanged, restoring", "operator", op.cfg.Name, "state_version", e.StateVersion)
		return nil
	case len(e.StateVersions) > 0 || len(op.stateVersions()) > 0:
		changes, err := p.versionedRestore(id, op, e)
		op.migrations = changes
		return err
	}
	return fmt.Errorf("the module changed (checkpoint has sha256 %s, %s has %s); run with --allow-operator-change if the new module reads the old state, "+
		"or declare the same state_version for both", e.ModuleSHA256[:16], op.cfg.Module, op.module.Hash()[:16])
}

func manifestOperator(m checkpoint.Manifest, name string) (checkpoint.OperatorEntry, bool) {
	for _, e := range m.Operators {
		if e.Name == name {
			return e, true
		}
	}
	return checkpoint.OperatorEntry{}, false
}

func manifestSource(m checkpoint.Manifest, name string) (checkpoint.SourcePosition, bool) {
	for _, s := range m.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return checkpoint.SourcePosition{}, false
}

// resumePoints computes where each source of the manifest resumes: after the
// lowest position any task's snapshot holds for it.
func resumePoints(m checkpoint.Manifest) map[string]uint64 {
	sources := map[string]uint64{}
	for _, s := range m.Sources {
		sources[s.Name] = s.LastSequence
	}
	var ranges []protocol.RangePositions
	for _, op := range m.Operators {
		ranges = append(ranges, rangePositions(op.Tasks)...)
	}
	return protocol.ResumePoints(sources, ranges)
}
