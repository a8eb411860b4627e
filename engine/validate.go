package engine

import (
	"context"
	"errors"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/engine/config"
)

// ModuleReport describes an operator module that passed validation.
type ModuleReport struct {
	Operator   string
	Module     string
	Size       int
	Hash       string
	ABIVersion int
}

// Validate compiles and checks every operator module of cfg without
// connecting to NATS or touching state. It reports every failing module.
func Validate(ctx context.Context, cfg *config.Pipeline) ([]ModuleReport, error) {
	var reports []ModuleReport
	var errs []error
	for i := range cfg.Operators {
		oc := &cfg.Operators[i]
		rt, mod, err := compileOperator(ctx, cfg, oc, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reports = append(reports, ModuleReport{Operator: oc.Name, Module: oc.Module, Size: mod.Size(), Hash: mod.Hash(), ABIVersion: abi.Version})
		_ = mod.Close(ctx)
		_ = rt.Close(ctx)
	}
	return reports, errors.Join(errs...)
}
