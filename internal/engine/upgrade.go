package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/plugins"
)

// Upgrades (docs/upgrades.md): a running pipeline replaces one operator's
// module at a checkpoint barrier. The new module is validated, its state
// versions compared with the running module's, and its migration tried on
// a copy of the newest checkpoint's state while the old module keeps
// running; only then does the pipeline stop at a final checkpoint and
// restart with the new module, migrating the state during the restore. A
// refusal leaves the old module running untouched; a failure during the
// restart restores the same checkpoint with the old module (rollback).

// plannedUpgrade is an accepted upgrade, carried out by Serve after Run.
type plannedUpgrade struct {
	operator  string
	module    string // path of the new module file
	moduleRef string // registry reference pinned to its hash; "" for a file
	hash      string
	requested time.Time // when the old module was asked to stop
}

// Upgrade checks an upgrade request while the old module runs and, when
// it passes, stops the run at a final checkpoint for it (control.Handler).
func (p *Pipeline) Upgrade(ctx context.Context, req UpgradeRequest) UpgradeReply {
	plan, changes, err := p.prepareUpgrade(ctx, req)
	if err != nil {
		p.logger.Error("upgrade refused; the running module stays", "operator", req.Operator, "module", req.Module, "error", err)
		return UpgradeReply{Error: err.Error()}
	}
	reply := UpgradeReply{Accepted: true, Module: plan.hash, States: describeChanges(changes)}
	p.logger.Info("upgrade accepted: stopping at a checkpoint to restart with the new module",
		"operator", plan.operator, "module", plan.hash[:16], "states", reply.States)
	p.requestUpgrade(plan)
	return reply
}

// requestUpgrade records plan and ends Run at a final checkpoint.
func (p *Pipeline) requestUpgrade(plan *plannedUpgrade) {
	p.upgradeOnce.Do(func() {
		plan.requested = time.Now() // the pause starts: the old module stops here
		p.upgrade = plan
		close(p.upgradeStop)
	})
}

// prepareUpgrade checks everything about an upgrade that can be checked
// while the old module runs.
func (p *Pipeline) prepareUpgrade(ctx context.Context, req UpgradeRequest) (*plannedUpgrade, []stateChange, error) {
	op := p.operator(req.Operator)
	if op == nil {
		return nil, nil, fmt.Errorf("pipeline %q has no operator %q", p.cfg.Name, req.Operator)
	}
	plan := &plannedUpgrade{operator: req.Operator}
	if err := p.fetchUpgradeModule(ctx, req.Module, plan); err != nil {
		return nil, nil, err
	}
	oc := *op.cfg
	oc.Module = plan.module
	rt, mod, err := compileOperator(ctx, p.compilationCache(), &oc, p.opts.Engine)
	if err != nil {
		return nil, nil, err
	}
	defer rt.Close(ctx)
	plan.hash = mod.Hash()
	if plan.hash == op.module.Hash() {
		return nil, nil, fmt.Errorf("operator %q already runs module %s", req.Operator, plan.hash[:16])
	}
	probe := &operator{p: p, cfg: &oc, module: mod}
	if err := probe.probeDeclarations(ctx); err != nil {
		return nil, nil, err
	}
	changes := changedStates(op.stateVersions(), probe.stateVersions())
	if err := p.checkMigration(ctx, probe, changes); err != nil {
		return nil, nil, err
	}
	return plan, changes, nil
}

// fetchUpgradeModule resolves the new module to a file.
func (p *Pipeline) fetchUpgradeModule(ctx context.Context, module string, plan *plannedUpgrade) error {
	ref, err := plugins.ParseRef(module)
	if err != nil {
		return err
	}
	if ref.IsLocal() {
		if !filepath.IsAbs(ref.Path) {
			return fmt.Errorf("module path %q must be absolute: the pipeline process reads it", ref.Path)
		}
		plan.module = ref.Path
		return nil
	}
	path, e, err := plugins.NewRegistry(p.conn, plugins.Options{Logger: p.logger}).Fetch(ctx, ref, ModuleCacheDir(p.cfg.DataDir))
	if err != nil {
		return err
	}
	plan.module, plan.moduleRef = path, e.Name+"@"+e.Hash
	return nil
}

// checkMigration refuses changed state versions the new module cannot
// migrate, and tries the migration on a copy of the newest checkpoint.
func (p *Pipeline) checkMigration(ctx context.Context, probe *operator, changes []stateChange) error {
	if len(changes) == 0 {
		return nil
	}
	if !probe.module.HasMigrate() {
		return fmt.Errorf("the new module declares %s but exports no ws_migrate; add a migration, or keep the old versions", describeChanges(changes))
	}
	if missing := probe.unmigratable(changes); len(missing) > 0 {
		return fmt.Errorf("the new module changes %s without declaring a migration for it (Go SDK: StateOptions.Migrate)", describeChanges(missing))
	}
	return p.dryRunMigration(ctx, probe, changes)
}

// dryRunMigration migrates a copy of the newest checkpoint's state without
// writing: a value the new module cannot convert refuses the upgrade now.
func (p *Pipeline) dryRunMigration(ctx context.Context, probe *operator, changes []stateChange) error {
	root := CheckpointRoot(p.cfg)
	ids, err := checkpoint.List(root)
	if err != nil || len(ids) == 0 {
		return err // no checkpoint yet: the restart's migration is the check
	}
	tmp, err := os.MkdirTemp(p.cfg.DataDir, "upgrade-dry-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "state")
	if err := checkpoint.RestoreState(root, ids[0], dir); err != nil {
		return err
	}
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	m, err := runMigration(ctx, probe.cfg, probe.module, p.opts.Clock, p.logger, st, changes, false)
	if err != nil {
		return fmt.Errorf("trying the migration on checkpoint %d: %w", ids[0], err)
	}
	p.logger.Info("upgrade: migration tried on the newest checkpoint", "checkpoint", ids[0], "values", m.converted, "deleted", m.deleted)
	return nil
}

// operator returns the operator called name, or nil.
func (p *Pipeline) operator(name string) *operator {
	for _, op := range p.operators {
		if op.cfg.Name == name {
			return op
		}
	}
	return nil
}
