package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/host"
)

// Module state versions (ABI.md §6.10, §4.1). A module declares a version
// for each named state it writes; an undeclared state has version 1. A
// checkpoint records the versions of the module that wrote it, so a new
// module's stored states either match (restored as they are) or differ
// (converted by the new module's ws_migrate during the restore).

// probeDeclarations runs the module's ws_init once, with the operator's
// config, to learn its state declarations before any state exists.
func (op *operator) probeDeclarations(ctx context.Context) error {
	decls, err := op.module.CheckInit(ctx, host.InstanceConfig{Operator: op.cfg.Name, Config: op.cfg.Config,
		BatchTimeout: op.cfg.Limits.BatchTimeout, MaxValueLen: op.cfg.Limits.MaxValueBytes, Clock: op.p.opts.Clock})
	if err != nil {
		return err
	}
	op.declared = decls
	return nil
}

// stateVersions is what op's module declares: name → version.
func (op *operator) stateVersions() map[string]int32 {
	out := map[string]int32{}
	for _, d := range op.declared {
		out[d.Name] = d.Version
	}
	return out
}

// versionOf is a state's version in a version map (1 when absent).
func versionOf(versions map[string]int32, name string) int32 {
	if v, ok := versions[name]; ok {
		return v
	}
	return 1
}

// stateChange is one state whose stored version differs from the module's.
type stateChange struct {
	Name     string
	From, To int32
}

// changedStates lists the states whose version differs between a
// checkpoint (old) and a module (new), sorted by name.
func changedStates(old, new map[string]int32) []stateChange {
	var out []stateChange
	names := map[string]bool{}
	for n := range old {
		names[n] = true
	}
	for n := range new {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if from, to := versionOf(old, n), versionOf(new, n); from != to {
			out = append(out, stateChange{Name: n, From: from, To: to})
		}
	}
	return out
}

func describeChanges(cs []stateChange) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%q v%d → v%d", c.Name, c.From, c.To)
	}
	return strings.Join(parts, ", ")
}

// versionedRestore decides a restore with a changed module that declares
// state versions: nil changes restore as they are; changes need ws_migrate.
func (p *Pipeline) versionedRestore(id uint64, op *operator, e checkpoint.OperatorEntry) ([]stateChange, error) {
	changes := changedStates(e.StateVersions, op.stateVersions())
	switch {
	case len(changes) == 0:
		p.logger.Info("module changed; its state versions are unchanged, restoring", "operator", op.cfg.Name, "checkpoint", id,
			"old_sha256", e.ModuleSHA256[:16], "new_sha256", op.module.Hash()[:16])
		return nil, nil
	case !op.module.HasMigrate():
		return nil, fmt.Errorf("the new module (%s) declares %s but exports no %s to convert the stored values; "+
			"add a migration to the module, or keep the old versions", op.module.Hash()[:16], describeChanges(changes), "ws_migrate")
	}
	if missing := op.unmigratable(changes); len(missing) > 0 {
		return nil, fmt.Errorf("the new module (%s) changes %s without declaring a migration for it; "+
			"give the state a migration from version %d (Go SDK: StateOptions.Migrate), or keep its old version",
			op.module.Hash()[:16], describeChanges(missing), missing[0].From)
	}
	p.logger.Info("module changed; states will be migrated during the restore", "operator", op.cfg.Name, "checkpoint", id,
		"states", describeChanges(changes))
	return changes, nil
}

// unmigratable lists the changes whose state the module does not declare
// with the migrates flag: its ws_migrate would not know them.
func (op *operator) unmigratable(changes []stateChange) []stateChange {
	var out []stateChange
	for _, c := range changes {
		ok := false
		for _, d := range op.declared {
			ok = ok || (d.Name == c.Name && d.Flags&abi.DeclareMigrates != 0)
		}
		if !ok {
			out = append(out, c)
		}
	}
	return out
}
