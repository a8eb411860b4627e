package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/coordinator"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
)

// ErrGivenUp marks a ClusterPart.Persist error that means the cluster
// coordinator gave the checkpoint up.
var ErrGivenUp = coordinator.ErrGivenUp

// ClusterPart runs the pipeline as one worker's part of a pipeline that
// several `wasmstream worker` processes share (internal/cluster/worker,
// design ../../shared/cluster.md §5). The part differs from a whole
// pipeline in four ways:
//
//   - it runs only the tasks Tasks names; its sources still read every
//     record and drop the ones of other tasks' key groups (filter-on-read,
//     §5.2), so positions stay source sequences;
//   - checkpoints are numbered and triggered by the cluster coordinator
//     (TriggerID), never periodically, and a stop takes no final one: the
//     part's ranges restore from the last cluster checkpoint;
//   - Persist makes a checkpoint durable in the cluster instead of the
//     data dir, and returns only once the cluster checkpoint completed, so
//     transactional outputs are published only for completed ones;
//   - transactional batch ids carry the task (§5.3 step 5), so two
//     workers publishing the same epoch to one subject never collide.
type ClusterPart struct {
	// Tasks maps an operator name to the indices of its tasks this part
	// runs. An operator not named runs no task here.
	Tasks map[string][]int
	// Persist receives the part's manifest (its sources' positions, its
	// tasks' entries) and the live state, which holds exactly the cut
	// while Persist runs. An error wrapping ErrGivenUp (the cluster
	// coordinator gave the checkpoint up) fails the checkpoint without
	// counting towards the failures in a row that stop the part. Nil is
	// refused.
	Persist func(ctx context.Context, part checkpoint.Manifest, db *pebble.DB) error
	// PublishedThrough and MarkPublished replace the data dir's mark of
	// the newest checkpoint whose transactional outputs are all published
	// (recovery.PublishedThrough): a part restores checkpoints other
	// workers published, so the mark lives in the cluster. Nil: no mark,
	// a restored outbox is always published again (its batch ids make a
	// repeat within the duplicate window harmless).
	PublishedThrough func(ctx context.Context) (uint64, error)
	MarkPublished    func(ctx context.Context, id uint64) error
	// Gate is asked before the part publishes outputs or dead letters; it
	// returns once the part may (its tasks are still its worker's), or an
	// error that fails the part. Nil: no gate.
	Gate func(ctx context.Context) error
	// CacheDir is the compilation cache of the part's modules when not
	// its data dir's: the parts of one worker, each with a data dir of its
	// own, share the worker's, so that a part started for tasks the worker
	// gained compiles nothing. "": the data dir's.
	CacheDir string
	// Worker is the id of the worker running the part. When set, every
	// output and dead letter the part produces carries it in the
	// Wasmstream-Worker header, so that an operator (or a test) can tell
	// which worker stored what: after a partition, the late writes of a
	// cut-off worker show by this header.
	Worker string
}

// resendGate is the sink's BeforeResend: nil outside a cluster part; in
// one, the Gate, so that publishes an outage failed go out again only
// while the part's tasks are still its worker's (a partitioned worker's
// sink resent them after the partition healed, and the server stored
// them after the tasks had moved).
func (p *Pipeline) resendGate() func(context.Context) error {
	if c := p.opts.Cluster; c == nil || c.Gate == nil {
		return nil
	}
	return func(context.Context) error { return p.gate() }
}

// HeaderWorker names the worker that produced a cluster part's output or
// dead letter (ClusterPart.Worker).
const HeaderWorker = "Wasmstream-Worker"

// withProvenance adds the cluster part's worker id to h (allocating h when
// nil); outside a cluster part it returns h unchanged.
func (p *Pipeline) withProvenance(h nats.Header) nats.Header {
	c := p.opts.Cluster
	if c == nil || c.Worker == "" {
		return h
	}
	if h == nil {
		h = nats.Header{}
	}
	h.Set(HeaderWorker, c.Worker)
	return h
}

// gate asks the cluster part's Gate; it gives up when the pipeline failed.
func (p *Pipeline) gate() error {
	if c := p.opts.Cluster; c != nil && c.Gate != nil {
		return c.Gate(p.gateCtx)
	}
	return nil
}

// watchFailure cancels the context of gate waits once the pipeline failed,
// stopped or abandoned its tasks, so that no task waits for a gate nobody
// opens.
func (p *Pipeline) watchFailure() {
	ctx, cancel := context.WithCancel(context.Background())
	p.gateCtx, p.gateCancel = ctx, cancel
	go func() {
		defer cancel()
		select {
		case <-p.failed:
		case <-p.stopped:
		case <-p.abandoned:
		case <-ctx.Done(): // Close
		}
	}()
}

// errClusterSource: a source whose stream removes what is acknowledged
// cannot be read by several workers (design §5.2 "Retention limits").
var errClusterSource = errors.New("a source of a cluster pipeline must read a stream with limits retention")

// validate checks the part against the config.
func (c *ClusterPart) validate(cfg *config.Pipeline) error {
	if c.Persist == nil {
		return errors.New("cluster part: no Persist")
	}
	for name, idx := range c.Tasks {
		oc := cfg.Operator(name)
		if oc == nil {
			return fmt.Errorf("cluster part: no operator %q in the pipeline", name)
		}
		seen := map[int]bool{}
		for _, i := range idx {
			if i < 0 || i >= oc.Parallelism || seen[i] {
				return fmt.Errorf("cluster part: operator %q: task %d is not one of its %d tasks, or named twice", name, i, oc.Parallelism)
			}
			seen[i] = true
		}
	}
	return nil
}

// publishedThrough is the newest checkpoint whose transactional outputs
// are all published.
func (p *Pipeline) publishedThrough(ctx context.Context) (uint64, error) {
	if c := p.opts.Cluster; c != nil {
		if c.PublishedThrough == nil {
			return 0, nil
		}
		return c.PublishedThrough(ctx)
	}
	return recovery.PublishedThrough(p.cfg.DataDir)
}

// markPublished records that the outputs of every checkpoint up to id are
// published.
func (p *Pipeline) markPublished(ctx context.Context, id uint64) error {
	if c := p.opts.Cluster; c != nil {
		if c.MarkPublished == nil {
			return nil
		}
		return c.MarkPublished(ctx, id)
	}
	return recovery.MarkPublished(p.cfg.DataDir, id)
}

// ownedTasks returns the task indices of op this process runs, ascending.
func (p *Pipeline) ownedTasks(oc *config.Operator) []int {
	if p.opts.Cluster == nil {
		all := make([]int, oc.Parallelism)
		for i := range all {
			all[i] = i
		}
		return all
	}
	return slices.Sorted(slices.Values(p.opts.Cluster.Tasks[oc.Name]))
}

// runsAnyTaskOf reports whether this process runs a task of any of cs's
// operators (always, outside a cluster part).
func (p *Pipeline) runsAnyTaskOf(cs []consumer) bool {
	for _, c := range cs {
		if len(p.ownedTasks(c.op.cfg)) > 0 {
			return true
		}
	}
	return false
}

// runsTask reports whether this process runs task i of op (and has not
// released it: ReleaseTasks).
func (op *operator) runsTask(i int) bool {
	return op.slots[i] >= 0 && !op.tasks[op.slots[i]].released.Load()
}

// persistPart is persistCheckpoint for a cluster part: the outputs of the
// cut acknowledged and the dead-letter decisions committed, as for a whole
// pipeline, then the cluster's Persist.
func (p *Pipeline) persistPart(ctx context.Context, m checkpoint.Manifest) (checkpoint.Manifest, error) {
	if err := p.sink.Flush(ctx); err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("waiting for output acknowledgements: %w", err)
	}
	if err := p.commitDeadLetters(); err != nil {
		return checkpoint.Manifest{}, err
	}
	if err := p.opts.Cluster.Persist(ctx, m, p.store.DB()); err != nil {
		return checkpoint.Manifest{}, err
	}
	return m, nil
}

// TriggerID asks for checkpoint id (0: the next; a cluster part's
// checkpoints are numbered by the cluster coordinator), unaligned whatever
// the pipeline's mode when unaligned (a cluster's handover checkpoint, so
// that queued records do not delay it), and waits until it completed or
// failed. generation is the cluster coordinator's that asks (0: none): the
// part's exchange markers carry the newest one it was given, and its
// exchange inputs align on the markers of the newest one they saw
// (internal/exchange/FORMAT.md §5.2).
func (p *Pipeline) TriggerID(ctx context.Context, id, generation uint64, unaligned bool) (TriggerResult, error) {
	if p.opts.Cluster != nil {
		raiseTo(&p.generation, generation)
	}
	answer := make(chan TriggerResult, 1)
	if err := p.coord.AskID(ctx, id, unaligned, answer, p.stopped); err != nil {
		return TriggerResult{}, err
	}
	select {
	case r := <-answer:
		return r, nil
	case <-p.stopped:
		return TriggerResult{}, errors.New("the pipeline stopped before the checkpoint completed")
	case <-ctx.Done():
		return TriggerResult{}, ctx.Err()
	}
}

// raiseTo sets v to n when n is larger: generations only grow.
func raiseTo(v *atomic.Uint64, n uint64) {
	for old := v.Load(); n > old && !v.CompareAndSwap(old, n); old = v.Load() {
	}
}

// DeadLetterMeta is the metadata entry holding operator's dead-letter
// decisions: a cluster ships it with every task of the operator.
func DeadLetterMeta(operator string) string { return metaDeadLetters(operator) }
