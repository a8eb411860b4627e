package global

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/state"
)

// scratchCacheBytes is the block cache of the scratch DB: it is written in
// batches and checkpointed, never read at random.
const scratchCacheBytes = 8 << 20

// Materialize writes cluster checkpoint m as the local checkpoint m.ID()
// under root (checkpoint.Dir), holding the state of the tasks owned names
// (operator → task indices), so that the worker's engine restores it as a
// checkpoint of its own (design §5.4 "Restore of range R").
//
// The state of each owned task is restored from its task checkpoint in
// sh's bucket (every object's SHA-256 checked) into one fresh Pebble DB in
// a temporary directory under scratch, which is removed afterwards; the
// dead-letter lists of the task checkpoints read are merged into it
// (mergeMeta). The local checkpoint carries m.Checkpoint, every task of
// every operator: the engine's validation and per-task skip tables see
// all positions, while the DB holds the owned ranges only, the only
// tasks that run. It returns the manifest as written.
func Materialize(ctx context.Context, sh *ship.Shipper, m Manifest, owned map[string][]int, root, scratch string) (checkpoint.Manifest, error) {
	if err := m.validate(); err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("%w: manifest of cluster checkpoint %d: %w", ErrInvalid, m.ID(), err)
	}
	gs, err := ownedGroups(m, owned)
	if err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("cluster checkpoint %d: %w", m.ID(), err)
	}
	return materializeTargets(ctx, sh, m, targetsOfGroups(gs), root, scratch)
}

// MaterializeRanges is Materialize for the key-group ranges owned names
// (operator → ranges) rather than the checkpoint's tasks: a worker whose
// tasks have another parallelism than the checkpoint's restores each of
// its ranges from every task checkpoint that overlaps it (a scale-out
// reads part of one, a scale-in several).
func MaterializeRanges(ctx context.Context, sh *ship.Shipper, m Manifest, owned map[string][]state.KeyGroupRange, root, scratch string) (checkpoint.Manifest, error) {
	if err := m.validate(); err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("%w: manifest of cluster checkpoint %d: %w", ErrInvalid, m.ID(), err)
	}
	ts, err := rangeTargets(m, owned)
	if err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("cluster checkpoint %d: %w", m.ID(), err)
	}
	return materializeTargets(ctx, sh, m, ts, root, scratch)
}

// materializeTargets restores ts into a scratch DB and writes the local
// checkpoint of it.
func materializeTargets(ctx context.Context, sh *ship.Shipper, m Manifest, ts []restoreTarget, root, scratch string) (checkpoint.Manifest, error) {
	if err := os.MkdirAll(scratch, privatefs.DirMode); err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("cluster checkpoint %d: create scratch directory: %w", m.ID(), err)
	}
	dir, err := os.MkdirTemp(scratch, ".materialize-")
	if err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("cluster checkpoint %d: %w", m.ID(), err)
	}
	defer os.RemoveAll(dir)
	st, err := state.Open(dir, state.Options{CacheSizeBytes: scratchCacheBytes})
	if err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("cluster checkpoint %d: scratch DB: %w", m.ID(), err)
	}
	written, err := materialize(ctx, sh, m, ts, st, root)
	if cerr := st.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close the scratch DB: %w", cerr))
	}
	if err != nil {
		return written, fmt.Errorf("cluster checkpoint %d: %w", m.ID(), err)
	}
	return written, nil
}

// restoreTarget is one key-group range of an operator to restore and the
// task checkpoints that overlap it: one on a failover, several when the
// parallelism changed.
type restoreTarget struct {
	operator string
	maxPar   int
	r        state.KeyGroupRange
	groups   []taskGroup
}

func (t restoreTarget) String() string {
	return fmt.Sprintf("operator %q range %s", t.operator, t.r)
}

// targetsOfGroups restores each group into its own range.
func targetsOfGroups(gs []taskGroup) []restoreTarget {
	out := make([]restoreTarget, len(gs))
	for i, g := range gs {
		out[i] = restoreTarget{operator: g.first().Operator, maxPar: g.maxParallelism, r: g.Range(), groups: []taskGroup{g}}
	}
	return out
}

// materialize restores ts into st, merges their metadata and writes the
// local checkpoint of st.
func materialize(ctx context.Context, sh *ship.Shipper, m Manifest, ts []restoreTarget, st *state.Store, root string) (checkpoint.Manifest, error) {
	meta := map[string][][]byte{}
	for _, t := range ts {
		tms := make([]ship.TaskManifest, 0, len(t.groups))
		for _, g := range t.groups {
			tm, err := g.fetch(ctx, sh)
			if err != nil {
				return checkpoint.Manifest{}, err
			}
			tms = append(tms, tm)
		}
		target := ship.Target{DB: st.DB(), Operator: t.operator, MaxParallelism: t.maxPar, Range: t.r}
		res, err := sh.Restore(ctx, tms, target)
		if err != nil {
			return checkpoint.Manifest{}, fmt.Errorf("%s: %w", t, err)
		}
		for _, v := range res.Meta {
			meta[v.Name] = append(meta[v.Name], v.Value)
		}
	}
	if err := mergeMeta(st, meta); err != nil {
		return checkpoint.Manifest{}, err
	}
	return checkpoint.Writer{}.Write(root, st.DB(), m.Checkpoint)
}

// mergeMeta writes the union of each dead-letter list found in the task
// checkpoints read.
//
// Only the owned tasks' checkpoints are read, and that is enough: a
// record goes to the task that owns its key group, so a dead letter of a
// record of an owned key group was recorded by the worker that ran that
// task, in the list its task checkpoint shipped (a worker ships its whole
// list for the operator with each of its tasks). Entries of other key
// groups that come along are harmless: those records never reach the
// owned tasks. A record whose key cannot be extracted has no key group:
// the worker running the operator's task 0 isolates it, and its new
// owner does again on a replay (the extraction fails alike), under a
// deterministic message id, so no list is needed to skip it.
//
// A metadata entry with no merge rule is refused rather than dropped or
// picked from one task: it came from a build that ships more than this
// one knows.
func mergeMeta(st *state.Store, meta map[string][][]byte) error {
	b := st.NewBatch()
	for _, name := range slices.Sorted(maps.Keys(meta)) {
		if !strings.HasPrefix(name, DeadLetterMetaPrefix) {
			b.Close()
			return fmt.Errorf("%w: metadata entry %q in a task checkpoint has no merge rule in this build; use the wasmstream version that wrote it", ErrIncompatible, name)
		}
		merged, err := MergeDeadLetterLists(meta[name])
		if err == nil {
			err = state.PutMeta(b, name, merged)
		}
		if err != nil {
			b.Close()
			return fmt.Errorf("metadata entry %q: %w", name, err)
		}
	}
	return st.Commit(b)
}

// ownedGroups returns the task checkpoints of the owned tasks.
func ownedGroups(m Manifest, owned map[string][]int) ([]taskGroup, error) {
	byTask := map[string]map[int]taskGroup{}
	for _, g := range groups(m) {
		p := g.first()
		if byTask[p.Operator] == nil {
			byTask[p.Operator] = map[int]taskGroup{}
		}
		byTask[p.Operator][p.Index] = g
	}
	var out []taskGroup
	for _, op := range slices.Sorted(maps.Keys(owned)) {
		tasks, ok := byTask[op]
		if !ok {
			return nil, fmt.Errorf("%w: operator %q is not in the checkpoint", ErrInvalid, op)
		}
		seen := map[int]bool{}
		for _, i := range owned[op] {
			g, ok := tasks[i]
			if !ok || seen[i] {
				return nil, fmt.Errorf("%w: operator %q: task %d is not one of its %d tasks in the checkpoint, or is named twice", ErrInvalid, op, i, len(tasks))
			}
			seen[i] = true
			out = append(out, g)
		}
	}
	return out, nil
}

// rangeTargets returns, per owned range, the task checkpoints overlapping
// it. Ranges must lie in the operator's key groups and not overlap.
func rangeTargets(m Manifest, owned map[string][]state.KeyGroupRange) ([]restoreTarget, error) {
	byOp := map[string][]taskGroup{}
	for _, g := range groups(m) {
		byOp[g.first().Operator] = append(byOp[g.first().Operator], g)
	}
	var out []restoreTarget
	for _, op := range slices.Sorted(maps.Keys(owned)) {
		gs, ok := byOp[op]
		if !ok {
			return nil, fmt.Errorf("%w: operator %q is not in the checkpoint", ErrInvalid, op)
		}
		maxPar := gs[0].maxParallelism
		rs := slices.SortedFunc(slices.Values(owned[op]), func(a, b state.KeyGroupRange) int { return a.Start - b.Start })
		for i, r := range rs {
			if r.Start < 0 || r.End > maxPar || r.Start >= r.End || i > 0 && rs[i-1].End > r.Start {
				return nil, fmt.Errorf("%w: operator %q: range %s is empty, outside [0,%d) or overlaps another", ErrInvalid, op, r, maxPar)
			}
			t := restoreTarget{operator: op, maxPar: maxPar, r: r}
			for _, g := range gs {
				if gr := g.Range(); gr.Start < r.End && r.Start < gr.End {
					t.groups = append(t.groups, g)
				}
			}
			out = append(out, t)
		}
	}
	return out, nil
}
