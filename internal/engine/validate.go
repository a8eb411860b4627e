package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// ModuleReport describes an operator module that passed validation.
type ModuleReport struct {
	Operator   string
	Module     string
	Size       int
	Hash       string
	ABIVersion int
	// Declarations are the module's state declarations (ws_init, ABI 1.1).
	Declarations []host.StateDeclaration
	// TTLs are the effective state TTLs, one line each ("seen: ttl 10m0s ..."), sorted.
	TTLs []string
	// Warnings are TTLs shorter than a source's max_duplicate_delay and
	// state blocks of the config naming no state the module declares.
	Warnings []Warning
}

// Validate compiles and checks every operator module of cfg without
// connecting to NATS or touching state. It reports every failing module.
func Validate(ctx context.Context, cfg *config.Pipeline) ([]ModuleReport, error) {
	if hasRegistryModules(cfg) {
		if err := resolveForValidate(ctx, cfg); err != nil {
			return nil, err
		}
	}
	var reports []ModuleReport
	var errs []error
	for i := range cfg.Operators {
		oc := &cfg.Operators[i]
		rt, mod, err := compileOperator(ctx, compilationCache(cfg.DataDir), oc, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		report := ModuleReport{Operator: oc.Name, Module: oc.Module, Size: mod.Size(), Hash: mod.Hash(), ABIVersion: abi.Version}
		if err := report.addStates(ctx, cfg, oc, mod); err != nil {
			errs = append(errs, err)
		}
		reports = append(reports, report)
		_ = mod.Close(ctx)
		_ = rt.Close(ctx)
	}
	return reports, errors.Join(errs...)
}

// addStates runs the module's ws_init once, with the operator's config, to
// learn its state declarations, and fills the effective TTLs and warnings.
func (r *ModuleReport) addStates(ctx context.Context, cfg *config.Pipeline, oc *config.Operator, mod *host.Module) error {
	decls, err := mod.CheckInit(ctx, host.InstanceConfig{Operator: oc.Name, Config: oc.Config,
		BatchTimeout: oc.Limits.BatchTimeout, MaxValueLen: oc.Limits.MaxValueBytes})
	if err != nil {
		return fmt.Errorf("%s: operator %q: %w", config.Pos(oc.ModuleRange), oc.Name, err)
	}
	r.Declarations = decls
	eff := effectiveTTLs(oc, r.Declarations)
	for _, name := range slices.Sorted(maps.Keys(eff)) {
		r.TTLs = append(r.TTLs, ttlLine(name, eff[name]))
	}
	r.Warnings = stateWarnings(cfg, oc, r.Declarations, eff)
	return nil
}

// ttlLine describes one effective TTL on one line.
func ttlLine(name string, s stateTTL) string {
	if s.TTL.Duration == 0 {
		return fmt.Sprintf("%s: never expires (from %s)", name, s.From)
	}
	return fmt.Sprintf("%s: ttl %s, %s, %s, %s (from %s)", name, s.TTL.Duration, s.TTL.Update, s.TTL.Visibility, s.TTL.TimeDomain, s.From)
}

// resolveForValidate fetches registry modules through the pipeline's
// server (a temporary embedded one when no pipeline runs).
func resolveForValidate(ctx context.Context, cfg *config.Pipeline) error {
	c, err := ConnectClient(ctx, cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		return err
	}
	defer c.Close()
	return resolveModules(ctx, cfg, c, hclog.NewNullLogger())
}
