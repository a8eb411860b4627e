package global

import (
	"context"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
)

// taskGroup is one task checkpoint of a manifest: the parts of one task,
// more than one when its entry was split.
type taskGroup struct {
	parts          []TaskPart
	maxParallelism int
}

func (g taskGroup) first() TaskPart { return g.parts[0] }

// Range returns the task's key groups: its parts' ranges are adjacent.
func (g taskGroup) Range() state.KeyGroupRange {
	return state.KeyGroupRange{Start: g.first().Entry.Start, End: g.parts[len(g.parts)-1].Entry.End}
}

func (g taskGroup) String() string {
	p := g.first()
	return fmt.Sprintf("operator %q task %d range %s (object %s)", p.Operator, p.Index, g.Range(), p.Object)
}

// groups returns the task checkpoints of m, in m.Tasks order. The parts of
// a split task are adjacent there (sorted by range, one index).
func groups(m Manifest) []taskGroup {
	maxPar := map[string]int{}
	for _, op := range m.Checkpoint.Operators {
		maxPar[op.Name] = op.MaxParallelism
	}
	var out []taskGroup
	for _, p := range m.Tasks {
		if n := len(out); n > 0 && samePart(out[n-1].first(), p) {
			out[n-1].parts = append(out[n-1].parts, p)
			continue
		}
		out = append(out, taskGroup{parts: []TaskPart{p}, maxParallelism: maxPar[p.Operator]})
	}
	return out
}

// fetch reads g's task manifest, checking it is the one referenced (its
// bytes' SHA-256, in ship) and that it describes g's task: a manifest
// naming the wrong object would otherwise restore another task's keys.
func (g taskGroup) fetch(ctx context.Context, sh *ship.Shipper) (ship.TaskManifest, error) {
	p := g.first()
	tm, err := sh.FetchManifest(ctx, p.Object, p.SHA256)
	if err != nil {
		return ship.TaskManifest{}, fmt.Errorf("%s: %w", g, err)
	}
	if tm.Operator != p.Operator || tm.Index != p.Index || tm.MaxParallelism != g.maxParallelism || tm.Range() != g.Range() {
		return ship.TaskManifest{}, fmt.Errorf("%w: %s: the task manifest describes operator %q task %d range %s of max parallelism %d",
			ErrCorrupt, g, tm.Operator, tm.Index, tm.Range(), tm.MaxParallelism)
	}
	return tm, nil
}
