package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// ErrMigration wraps every failed state migration: the restore stops and
// nothing is written (the checkpoints and the old module are untouched).
var ErrMigration = errors.New("state migration failed")

// migrateState converts the restored values of every state whose version
// changed (op.migrations) with the new module's ws_migrate, in the
// sandbox, before any task starts. All converted values are written in one
// synced batch, or none: a failure leaves the live state as restored.
func (op *operator) migrateState(ctx context.Context, store *state.Store) error {
	if len(op.migrations) == 0 {
		return nil
	}
	start := time.Now()
	m, err := runMigration(ctx, op.cfg, op.module, op.p.opts.Clock, op.p.logger, store, op.migrations, true)
	if err != nil {
		return err
	}
	op.p.logger.Info("state migrated", "operator", op.cfg.Name, "states", describeChanges(op.migrations),
		"values", m.converted, "deleted", m.deleted, "duration", time.Since(start))
	return nil
}

// runMigration converts the changed states of operator oc in store with
// module's ws_migrate, committing the result (synced) when commit is set:
// a dry run (commit false) only proves every value converts.
func runMigration(ctx context.Context, oc *config.Operator, module *host.Module, clock func() time.Time, logger hclog.Logger,
	store *state.Store, changes []stateChange, commit bool) (*migration, error) {
	inst, err := module.Instantiate(ctx, host.InstanceConfig{Operator: oc.Name, Config: oc.Config,
		BatchTimeout: oc.Limits.BatchTimeout, MaxValueLen: oc.Limits.MaxValueBytes, Clock: clock,
		Logger: logger.Named(oc.Name).With("migration", true)}, host.NoState{})
	if err != nil {
		return nil, fmt.Errorf("%w: operator %q: %v", ErrMigration, oc.Name, err)
	}
	defer inst.Close(ctx)
	b := store.NewBatch()
	defer b.Close()
	m := &migration{oc: oc, inst: inst, batch: b, from: map[string]int32{}}
	for _, c := range changes {
		m.from[c.Name] = c.From
	}
	all := state.KeyGroupRange{Start: 0, End: oc.MaxParallelism}
	if err := store.ScanValues(oc.Name, all, func(kg int, name, key []byte, v state.Value) error {
		return m.entry(ctx, kg, name, key, v)
	}); err != nil {
		return nil, err
	}
	if !commit {
		return m, nil
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return nil, fmt.Errorf("%w: operator %q: writing the migrated state: %v", ErrMigration, oc.Name, err)
	}
	return m, nil
}

// migration is one operator's conversion in progress.
type migration struct {
	oc                 *config.Operator
	inst               *host.Instance
	batch              *pebble.Batch
	from               map[string]int32 // state name → stored version, for the changed states
	converted, deleted int
}

// entry converts one stored value when its state changed version.
func (m *migration) entry(ctx context.Context, kg int, name, key []byte, v state.Value) error {
	base := name
	if i := bytes.IndexByte(name, 0); i >= 0 {
		base = name[:i]
	}
	from, ok := m.from[string(base)]
	if !ok {
		return nil
	}
	out, keep, err := m.inst.Migrate(ctx, name, from, v.Data)
	if err != nil {
		return fmt.Errorf("%w: operator %q, state %q of key %q (key group %d), from version %d: %v; the restore stopped and nothing was written",
			ErrMigration, m.oc.Name, name, key, kg, from, err)
	}
	k := state.AppendStateKey(nil, m.oc.Name, kg, name, key)
	if !keep {
		m.deleted++
		return m.batch.Delete(k, nil)
	}
	m.converted++
	return m.batch.Set(k, state.AppendValue(nil, state.Value{Data: out, ExpiresAt: v.ExpiresAt, HasExpiry: v.HasExpiry}), nil)
}
