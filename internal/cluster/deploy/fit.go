package deploy

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/plugins"
)

// configuredModules maps each operator of cfg to the SHA-256 of its
// configured module file, or to the hash prefix of a registry reference
// NAME@HASH; "" for a registry reference to the newest version, which only
// the workers resolve.
func configuredModules(cfg *config.Pipeline) (map[string]string, error) {
	out := map[string]string{}
	for _, oc := range cfg.Operators {
		switch {
		case oc.Module != "":
			b, err := os.ReadFile(oc.Module)
			if err != nil {
				return nil, fmt.Errorf("operator %q: module: %w", oc.Name, err)
			}
			out[oc.Name] = plugins.HashBytes(b)
		case oc.ModuleRef != "":
			ref, err := plugins.ParseRef(oc.ModuleRef)
			if err != nil {
				return nil, fmt.Errorf("operator %q: %w", oc.Name, err)
			}
			out[oc.Name] = ref.Hash
		}
	}
	return out, nil
}

// checkFits refuses (ErrMismatch, every problem listed) a savepoint m
// whose state cfg's workers would refuse to restore: the engine's checks
// of a restore (engine Pipeline.checkOperators) without the module loaded,
// so without --allow-operator-change or migrations, which a worker does
// not take either, and the operators of both must be the same: a worker
// cannot restore a cluster checkpoint that lacks one of its operators.
// modules are configuredModules(cfg). The notes say what the workers will
// do differently from the savepoint's run.
func checkFits(cfg *config.Pipeline, m checkpoint.Manifest, modules map[string]string) (notes []string, err error) {
	var errs []error
	for _, oc := range cfg.Operators {
		if !slices.ContainsFunc(m.Operators, func(e checkpoint.OperatorEntry) bool { return e.Name == oc.Name }) {
			errs = append(errs, fmt.Errorf("operator %q has no state in the savepoint, and workers cannot restore a cluster checkpoint without it; "+
				"run the pipeline once with wasmstream run --from-savepoint, save a savepoint of that run and deploy it", oc.Name))
		}
	}
	for _, e := range m.Operators {
		oc := cfg.Operator(e.Name)
		if oc == nil {
			errs = append(errs, fmt.Errorf("operator %q has state in the savepoint but is not in the pipeline: its state would be lost; add the operator back, or deploy a savepoint without it", e.Name))
			continue
		}
		note, err := checkOperator(oc, e, modules[oc.Name])
		errs = append(errs, err)
		if note != "" {
			notes = append(notes, note)
		}
	}
	errs = append(errs, checkSources(cfg, m, &notes))
	if err := errors.Join(errs...); err != nil {
		return notes, fmt.Errorf("%w (savepoint checkpoint %d): %w; nothing was written", ErrMismatch, m.ID, err)
	}
	return notes, nil
}

// checkOperator is the engine's check of one operator (engine
// Pipeline.checkOperator) with the configured module's hash only.
func checkOperator(oc *config.Operator, e checkpoint.OperatorEntry, module string) (note string, err error) {
	switch {
	case e.ABIVersion != abi.Version:
		return "", fmt.Errorf("operator %q: the state was written by a module for ABI v%d, this host speaks v%d (use the wasmstream version that wrote it)", e.Name, e.ABIVersion, abi.Version)
	case e.StateFormatVersion != state.FormatVersion:
		return "", fmt.Errorf("operator %q: state format v%d, this build reads v%d (use the wasmstream version that wrote it)", e.Name, e.StateFormatVersion, state.FormatVersion)
	case e.MaxParallelism != oc.MaxParallelism:
		return "", fmt.Errorf("operator %q: the state has %d key groups but max_parallelism is %d; max_parallelism is fixed for the life of the state (set it back to %d)",
			e.Name, e.MaxParallelism, oc.MaxParallelism, e.MaxParallelism)
	case module == "":
		return fmt.Sprintf("operator %q: module %s is the registry's newest version, not compared with the savepoint's (sha256 %s); the workers refuse to restore it if it differs",
			e.Name, oc.ModuleRef, e.ModuleSHA256), nil
	case strings.HasPrefix(e.ModuleSHA256, module):
		return "", nil
	case e.StateVersion != "" && e.StateVersion == oc.StateVersion && len(e.StateVersions) == 0:
		return fmt.Sprintf("operator %q: the module changed (savepoint sha256 %s, configured %s); state_version %q is unchanged, so the workers restore it",
			e.Name, e.ModuleSHA256[:16], shortened(module), e.StateVersion), nil
	}
	return "", fmt.Errorf("operator %q: the module changed (the savepoint's state was written by sha256 %s, %s is %s) and the workers restore state only into its own module "+
		"or one that declares the same state_version; configure the module that wrote it (the savepoint keeps it as modules/%s.wasm), "+
		"or move the state to the new module in one process first (wasmstream run --from-savepoint, with --allow-operator-change or the module's migrations) and deploy a savepoint of that run",
		e.Name, e.ModuleSHA256[:16], moduleName(oc), shortened(module), e.ModuleSHA256)
}

// checkSources requires every source with a position in m to read the
// stream of that position; a source without one starts at its configured
// start, as in a restore.
func checkSources(cfg *config.Pipeline, m checkpoint.Manifest, notes *[]string) error {
	var errs []error
	for _, sc := range cfg.Sources {
		i := slices.IndexFunc(m.Sources, func(p checkpoint.SourcePosition) bool { return p.Name == sc.Name })
		switch {
		case i < 0:
			*notes = append(*notes, fmt.Sprintf("source %q has no position in the savepoint: the workers start it at its configured start", sc.Name))
		case m.Sources[i].Stream != sc.Stream:
			errs = append(errs, fmt.Errorf("source %q reads stream %s, but the savepoint's position (sequence %d) is in stream %s",
				sc.Name, sc.Stream, m.Sources[i].LastSequence, m.Sources[i].Stream))
		}
	}
	return errors.Join(errs...)
}

func moduleName(oc *config.Operator) string {
	if oc.ModuleRef != "" {
		return oc.ModuleRef
	}
	return oc.Module
}

func shortened(sha string) string {
	if len(sha) > 16 {
		return sha[:16]
	}
	return sha
}
