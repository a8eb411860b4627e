package engine

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// operator is one configured operator: its runtime, compiled module, the
// sinks of its outputs and its parallel tasks.
type operator struct {
	p      *Pipeline
	cfg    *config.Operator
	rt     *host.Runtime
	module *host.Module
	// outputs are the guest output names: outputs (sorted), then internal_outputs; index =
	// host output index. Each output goes to its sink (sinks; nil for an internal output) and
	// to every operator that reads it (edges).
	outputs []string
	sinks   []*sinkRef
	edges   [][]*exchangeEdge
	// keyers are the key rules of the inputs, by input index: the input's key block, else the
	// operator's.
	keyers []natsio.KeyExtractor
	tasks  []*task
	// slots maps a task index to its place in tasks; -1: another worker
	// of a cluster runs it (ClusterPart).
	slots  []int
	hasTTL bool // some state has a TTL: tasks sweep expired entries
	// declared is what the module's ws_init declares (probed once at compile).
	declared []host.StateDeclaration
	// migrations are the states the restore converts with ws_migrate.
	migrations []stateChange
}

type sinkRef struct{ cfg *config.Sink }

// compileOperator reads and validates an operator's module. The compilation
// cache in cacheDir (compilationCache) makes a second start fast.
func compileOperator(ctx context.Context, cacheDir string, oc *config.Operator, eng host.Engine) (*host.Runtime, *host.Module, error) {
	wasm, err := os.ReadFile(oc.Module)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: operator %q: read module: %w (build it first, or fix the module path)", config.Pos(oc.ModuleRange), oc.Name, err)
	}
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{
		CacheDir:         cacheDir,
		MemoryLimitPages: oc.Limits.MemoryPages,
		ModuleLimits:     host.ModuleLimits{MaxTableElements: oc.Limits.MaxTableElements},
		Engine:           eng,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("operator %q: %w", oc.Name, err)
	}
	mod, err := rt.Compile(ctx, oc.Name, wasm)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, nil, fmt.Errorf("%s: %w", config.Pos(oc.ModuleRange), err)
	}
	return rt, mod, nil
}

// compilationCache is wazero's compilation cache of the modules of a
// pipeline whose data dir is dataDir.
func compilationCache(dataDir string) string { return filepath.Join(dataDir, "cache", "wazero") }

// compilationCache is the pipeline's compilation cache: its data dir's,
// or the one its cluster part shares with the worker's other parts.
func (p *Pipeline) compilationCache() string {
	if c := p.opts.Cluster; c != nil && c.CacheDir != "" {
		return c.CacheDir
	}
	return compilationCache(p.cfg.DataDir)
}

func newOperator(p *Pipeline, oc *config.Operator, rt *host.Runtime, mod *host.Module) *operator {
	op := &operator{p: p, cfg: oc, rt: rt, module: mod, outputs: oc.OutputNames()}
	for _, in := range oc.Inputs {
		k := oc.KeyOf(in)
		op.keyers = append(op.keyers, natsio.KeyExtractor{JSONField: k.JSONField, SubjectToken: k.SubjectToken, Header: k.Header})
	}
	for _, name := range op.outputs {
		var ref *sinkRef
		if sc := p.cfg.Sink(oc.Outputs[name]); sc != nil {
			ref = &sinkRef{cfg: sc}
		}
		op.sinks = append(op.sinks, ref)
	}
	op.edges = make([][]*exchangeEdge, len(op.outputs))
	return op
}

func (op *operator) newInstance(ctx context.Context, st host.KeyedState, logger hclog.Logger) (*host.Instance, error) {
	return op.module.Instantiate(ctx, host.InstanceConfig{
		Operator:          op.cfg.Name,
		Config:            op.cfg.Config,
		Outputs:           op.outputs,
		BatchTimeout:      op.cfg.Limits.BatchTimeout,
		MaxValueLen:       op.cfg.Limits.MaxValueBytes,
		MaxEmitsPerRecord: op.cfg.Limits.MaxEmitsPerRecord,
		Logger:            logger,
		Clock:             op.p.opts.Clock,
	}, st)
}

// startTasks creates one task per unit of parallelism, each with the state
// backend of its key-group range and its own instance.
func (op *operator) startTasks(ctx context.Context, store *state.Store) error {
	op.warnMaxPayload()
	n := op.cfg.Parallelism
	op.slots = slices.Repeat([]int{-1}, n)
	for _, i := range op.p.ownedTasks(op.cfg) {
		op.slots[i] = len(op.tasks)
		kgr := state.RangeForTask(i, n, op.cfg.MaxParallelism)
		clock := newBatchClock(op.p.opts.Clock)
		backend, err := store.Backend(state.BackendOptions{
			Operator: op.cfg.Name, Range: kgr, MaxParallelism: op.cfg.MaxParallelism, MaxValueLen: op.cfg.Limits.MaxValueBytes,
			Clock: clock.read,
		})
		if err != nil {
			return fmt.Errorf("operator %q task %d: %w", op.cfg.Name, i, err)
		}
		logger := op.p.logger.Named(op.cfg.Name).With("task", i)
		inst, err := op.newInstance(ctx, backend, logger)
		if err != nil {
			backend.Close()
			return err
		}
		if err := op.applyTTLs(backend); err != nil {
			inst.Close(ctx)
			backend.Close()
			return err
		}
		ck, err := newTaskCheckpointing(len(op.cfg.Inputs), op.p.opts.Checkpoint)
		if err != nil {
			return fmt.Errorf("operator %q task %d: %w", op.cfg.Name, i, err)
		}
		op.tasks = append(op.tasks, &task{op: op, index: i, backend: backend, inst: inst, in: make(chan taskItem, 16), prio: make(chan taskItem, 4), logger: logger, ck: ck, clock: clock})
	}
	return nil
}

// applyTTLs gives a task's backend the effective TTLs: the config's state
// blocks, overridden by what the module declared in ws_init (probed once:
// every instance runs the same ws_init). The first task logs the result.
func (op *operator) applyTTLs(backend *state.Backend) error {
	eff := effectiveTTLs(op.cfg, op.declared)
	if err := backend.SetTTL(backendTTLs(eff)); err != nil {
		return fmt.Errorf("operator %q: state TTL: %w", op.cfg.Name, err)
	}
	op.hasTTL = len(eff) > 0
	if len(op.tasks) > 0 {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(eff)) {
		op.p.logger.Info("state ttl", append([]any{"operator", op.cfg.Name}, ttlLogArgs(name, eff[name])...)...)
	}
	for _, w := range stateWarnings(op.p.cfg, op.cfg, op.declared, eff) {
		op.p.logger.Warn(w.String())
	}
	return nil
}

// outputIndex is the host output index of guest output name; -1 when undeclared.
func (op *operator) outputIndex(name string) int { return slices.Index(op.outputs, name) }

// writesExchanges reports whether another operator reads an output of op.
func (op *operator) writesExchanges() bool {
	return slices.ContainsFunc(op.edges, func(es []*exchangeEdge) bool { return len(es) > 0 })
}

// taskFor returns the place in op.tasks of the task owning key's key
// group; -1 when another worker of a cluster runs it, or this part
// released it (ReleaseTasks).
func (op *operator) taskFor(key []byte) int {
	kg := state.KeyGroup(key, op.cfg.MaxParallelism)
	i := state.TaskForKeyGroup(kg, op.cfg.Parallelism, op.cfg.MaxParallelism)
	if !op.runsTask(i) {
		return -1
	}
	return op.slots[i]
}

func (op *operator) close(ctx context.Context) {
	for _, t := range op.tasks {
		if t.inst != nil {
			t.inst.Close(ctx)
		}
		t.backend.Close()
	}
	_ = op.module.Close(ctx)
	_ = op.rt.Close(ctx)
}
