package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Serve opens cfg and runs it until ctx ends, it fails or is idle (see
// Run), carrying out accepted upgrades: after the final checkpoint of an
// upgrade it opens the pipeline again with the new module, which restores
// that checkpoint and migrates the state; if that fails it opens it with
// the previous module instead (rollback) and goes on.
func Serve(ctx context.Context, cfg *config.Pipeline, opts Options) error {
	p, err := Open(ctx, cfg, opts)
	if err != nil {
		return err
	}
	for {
		p.logger.Info("pipeline running", "pipeline", cfg.Name, "nats", p.ClientURL(), "data_dir", cfg.DataDir)
		err := p.Run(ctx)
		plan := p.upgrade
		p.Close()
		if err != nil || plan == nil || ctx.Err() != nil {
			return err
		}
		opts.Recovery = RecoveryOptions{} // restore the checkpoint the stop just wrote
		if p, cfg, err = upgradeTo(ctx, cfg, opts, plan); err != nil {
			return err
		}
	}
}

// UpgradeOutcome is what became of an accepted upgrade.
type UpgradeOutcome struct {
	Operator, Module string
	// Pause is how long records waited: from the stop at the upgrade's
	// checkpoint to processing with the new (or, rolled back, old) module.
	Pause      time.Duration
	RolledBack bool
	Err        error // why it rolled back
}

// upgradeTo opens cfg with plan's module, or, when that fails, with the
// module it ran before.
func upgradeTo(ctx context.Context, cfg *config.Pipeline, opts Options, plan *plannedUpgrade) (*Pipeline, *config.Pipeline, error) {
	logger := opts.withDefaults(cfg).Logger
	next := withModule(cfg, plan)
	outcome := UpgradeOutcome{Operator: plan.operator, Module: plan.hash}
	defer func() {
		if opts.OnUpgrade != nil {
			opts.OnUpgrade(outcome)
		}
	}()
	p, err := Open(ctx, next, opts)
	if err == nil {
		outcome.Pause = time.Since(plan.requested)
		logger.Info("upgrade completed", "operator", plan.operator, "module", plan.hash[:16], "pause", outcome.Pause)
		return p, next, nil
	}
	outcome.RolledBack, outcome.Err = true, err
	logger.Error("upgrade failed; rolling back to the previous module", "operator", plan.operator, "module", plan.hash[:16], "error", err)
	p, err2 := Open(ctx, cfg, opts)
	if err2 != nil {
		return nil, nil, errors.Join(fmt.Errorf("upgrade of operator %q failed: %w", plan.operator, err),
			fmt.Errorf("and the rollback to the previous module failed: %w", err2))
	}
	outcome.Pause = time.Since(plan.requested)
	logger.Warn("upgrade rolled back: the previous module runs again", "operator", plan.operator, "pause", outcome.Pause)
	return p, cfg, nil
}

// withModule is a copy of cfg whose operator runs plan's module.
func withModule(cfg *config.Pipeline, plan *plannedUpgrade) *config.Pipeline {
	next := *cfg
	next.Operators = append([]config.Operator(nil), cfg.Operators...)
	for i := range next.Operators {
		if next.Operators[i].Name == plan.operator {
			next.Operators[i].Module, next.Operators[i].ModuleRef = plan.module, plan.moduleRef
		}
	}
	return &next
}
