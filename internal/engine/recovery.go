package engine

import (
	"fmt"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/state"
)

// planRecovery chooses the checkpoint to restore (nil: start empty) and
// checks it fully before anything is touched (recovery.Choose), including
// that each operator's module, ABI and state format fit.
func (p *Pipeline) planRecovery() (*recovery.Plan, uint64, error) {
	ro := p.opts.Recovery
	return recovery.Choose(CheckpointRoot(p.cfg), recovery.Options{FromCheckpoint: ro.FromCheckpoint, EmptyState: ro.EmptyState}, p.logger, p.checkOperators)
}

// restoredID is the checkpoint this run restored; 0 when it started empty.
// Retention keeps it over the checkpoints the restore skipped.
func (p *Pipeline) restoredID() uint64 {
	if p.restored == nil {
		return 0
	}
	return p.restored.Manifest.ID
}

// checkOperators refuses a checkpoint whose state the configured operators
// cannot read: other ABI, state format or key-group count; another module
// whose declared state versions differ without a migration (whatever the
// flags), or, when neither module declares versions, another module unless
// --allow-operator-change or an equal state_version allows it.
func (p *Pipeline) checkOperators(m checkpoint.Manifest) error {
	for _, op := range p.operators {
		e, ok := recovery.Operator(m, op.cfg.Name)
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
	case len(e.StateVersions) > 0 || len(op.stateVersions()) > 0:
		// Declared versions decide before any flag: a flag cannot make
		// old values readable under a new version (the next checkpoint
		// would label them with it).
		changes, err := p.versionedRestore(id, op, e)
		if err != nil && (p.opts.Recovery.AllowOperatorChange || e.StateVersion != "" && e.StateVersion == op.cfg.StateVersion) {
			err = fmt.Errorf("%w (neither --allow-operator-change nor an unchanged state_version overrides declared state versions)", err)
		}
		op.migrations = changes
		return err
	case p.opts.Recovery.AllowOperatorChange:
		p.logger.Warn("restoring state written by another module version (--allow-operator-change)", "operator", op.cfg.Name,
			"checkpoint", id, "old_sha256", e.ModuleSHA256[:16], "new_sha256", op.module.Hash()[:16])
		return nil
	case e.StateVersion != "" && e.StateVersion == op.cfg.StateVersion:
		p.logger.Info("module changed; state_version unchanged, restoring", "operator", op.cfg.Name, "state_version", e.StateVersion)
		return nil
	}
	return fmt.Errorf("the module changed (checkpoint has sha256 %s, %s has %s); run with --allow-operator-change if the new module reads the old state, "+
		"or declare the same state_version for both", e.ModuleSHA256[:16], op.cfg.Module, op.module.Hash()[:16])
}
