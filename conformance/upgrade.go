package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
)

// Upgrade replaces the case's module after its batches, as an upgrade (or a
// restore with another module) does: the new module's ws_migrate converts
// the stored values of every state whose declared version changed (ABI.md
// §4.1), then the upgrade's batches run on the new module.
type Upgrade struct {
	Operator string  `json:"operator"`          // the new module
	Config   Bytes   `json:"config,omitempty"`  // its ws_init config; empty = none
	Batches  []Batch `json:"batches,omitempty"` // run after a successful migration
}

// Migration is what the upgrade's migration did.
type Migration struct {
	// Declarations are the new module's state_declare calls.
	Declarations []Declaration `json:"declarations"`
	// Migrated and Deleted count the values ws_migrate converted and
	// deleted (before the failure, when there is one).
	Migrated int `json:"migrated"`
	Deleted  int `json:"deleted"`
	// Error is the failure that stopped the migration; then nothing was
	// written and no upgrade batch ran.
	Error *MigrationError `json:"error,omitempty"`
}

// MigrationError is the typed error of the value whose migration failed.
type MigrationError struct {
	Kind string `json:"kind"`           // KindName of the GuestError's Kind
	Code string `json:"code,omitempty"` // ABI code name, e.g. GUEST_INTERNAL
	Name Bytes  `json:"name"`           // the stored name of the value
	Key  Bytes  `json:"key"`            // its record key
	// Reason is the GuestError's detail: the guest's error line. It is
	// free text and not compared, but must name the state (checkReasons).
	Reason string `json:"-"`
}

// upgrade replaces the case's module by next: the migration, then, when it
// succeeded, the upgrade's batches on next.
func (r *Runner) upgrade(ctx context.Context, next *host.Module, c *Case, got *Expect) error {
	if next == nil {
		return fmt.Errorf("the case upgrades to %s, which has no module", c.Upgrade.Operator)
	}
	ok, err := r.migrate(ctx, next, c, got)
	if err != nil {
		return fmt.Errorf("upgrade to %s: %w", c.Upgrade.Operator, err)
	}
	if !ok {
		return nil
	}
	var declared []Declaration // already in got.Migration
	return r.runModule(ctx, next, c, c.Upgrade.Config, len(c.Batches), c.batchCount(), got, &declared)
}

// errMigrationStopped ends the scan at the first failed value.
var errMigrationStopped = errors.New("migration stopped")

// migrate runs the upgrade's migration on the committed state of case c,
// with the host's Instance.Migrate on an instance of next without state
// access, as the engine does. It reports whether the upgrade may go on.
func (r *Runner) migrate(ctx context.Context, next *host.Module, c *Case, got *Expect) (bool, error) {
	cfg := host.InstanceConfig{Operator: c.Name, Config: c.Upgrade.Config, Outputs: c.OutputNames(), Logger: r.logger(c.Name)}
	inst, err := next.Instantiate(ctx, cfg, host.NoState{})
	if err != nil {
		return false, fmt.Errorf("instantiate the upgrade's module %s: %w", c.Upgrade.Operator, err)
	}
	defer inst.Close(ctx)
	m := &Migration{Declarations: declarationsOf(inst)}
	got.Migration = m
	from, err := changedVersions(got.Declarations, m.Declarations)
	if err != nil {
		return false, err
	}
	b := r.Store.NewBatch()
	defer b.Close()
	err = r.Store.ScanValues(c.Name, fullRange, func(kg int, name, key []byte, v state.Value) error {
		version, ok := from[string(baseName(name))]
		if !ok {
			return nil
		}
		out, keep, err := inst.Migrate(ctx, name, version, v.Data)
		if err != nil {
			return m.fail(err, name, key)
		}
		k := state.AppendStateKey(nil, c.Name, kg, name, key)
		if !keep {
			m.Deleted++
			return b.Delete(k, nil)
		}
		m.Migrated++
		return b.Set(k, state.AppendValue(nil, state.Value{Data: out, ExpiresAt: v.ExpiresAt, HasExpiry: v.HasExpiry}), nil)
	})
	switch {
	case errors.Is(err, errMigrationStopped):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, r.Store.Commit(b)
}

// fail records a typed failure and stops the scan; any other error is a
// failure of the run.
func (m *Migration) fail(err error, name, key []byte) error {
	var ge *host.GuestError
	if !errors.As(err, &ge) {
		return err
	}
	m.Error = &MigrationError{Kind: KindName(ge.Kind), Code: CodeName(ge.Code), Name: bytes.Clone(name), Key: bytes.Clone(key), Reason: ge.Detail}
	return errMigrationStopped
}

// changedVersions returns, by state name, the old version of every state
// whose version the new module changed (a state never declared has
// version 1). A change without the "migrates" flag is refused before
// anything runs, as the engine refuses it: the case is then wrong.
func changedVersions(old, declared []Declaration) (map[string]int32, error) {
	from := map[string]int32{}
	for _, d := range declared {
		was := int32(1)
		if i := slices.IndexFunc(old, func(o Declaration) bool { return bytes.Equal(o.Name, d.Name) }); i >= 0 {
			was = old[i].Version
		}
		if was == d.Version {
			continue
		}
		if d.Flags&abi.DeclareMigrates == 0 {
			return nil, fmt.Errorf("state %q changes from version %d to %d without the migrates flag: the engine refuses such an upgrade", d.Name, was, d.Version)
		}
		from[string(d.Name)] = was
	}
	return from, nil
}

// declarationsOf returns the module's declarations in case-file form.
func declarationsOf(inst *host.Instance) []Declaration {
	var ds []Declaration
	for _, d := range inst.Declarations() {
		ds = append(ds, Declaration{Name: Bytes(d.Name), Version: d.Version, TTLMillis: d.TTLMillis, Flags: d.Flags})
	}
	return ds
}

// baseName is the state's name in a stored name: a map entry's is
// name 0x00 mapKey.
func baseName(name []byte) []byte {
	if i := bytes.IndexByte(name, 0); i >= 0 {
		return name[:i]
	}
	return name
}
