package engine

import (
	"context"
	"errors"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// WarmModules compiles and validates the pipeline's operator modules that
// are local files into the process's shared runtimes (host/shared.go),
// with the compilation cache in cacheDir, and releases them: a pipeline
// opened later in the process with the same cache finds them compiled. A
// worker warms its modules before it joins, so that the first tasks it is
// given start without a compile (seconds for a Go guest), which would
// otherwise be part of the moved tasks' pause. Registry modules are left
// to Open, which fetches them.
func WarmModules(ctx context.Context, cfg *config.Pipeline, cacheDir string, eng host.Engine) error {
	var errs []error
	for i := range cfg.Operators {
		oc := &cfg.Operators[i]
		if oc.ModuleRef != "" || oc.Module == "" {
			continue
		}
		rt, mod, err := compileOperator(ctx, cacheDir, oc, eng)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_ = mod.Close(ctx)
		_ = rt.Close(ctx)
	}
	return errors.Join(errs...)
}
