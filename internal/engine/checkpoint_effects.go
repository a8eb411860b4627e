package engine

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
)

// checkpointEffects is the pipeline's side of the coordinator: the
// coordinator.Effects it performs for the protocol core.
type checkpointEffects struct{ p *Pipeline }

func (e checkpointEffects) InjectBarriers(req protocol.InjectBarriers) error {
	return e.p.injectBarriers(req)
}
func (e checkpointEffects) CancelCheckpoint(id uint64) { e.p.cancelCheckpoint(id) }
func (e checkpointEffects) PublishCheckpoint(ctx context.Context, id uint64) error {
	return e.p.metrics.epochPublished(id, e.p.publishCommitted(ctx, id))
}
func (e checkpointEffects) AckSources(ctx context.Context, m checkpoint.Manifest) {
	e.p.ackSources(ctx, m)
	e.p.trimExchanges(ctx)
}
func (e checkpointEffects) MarkCleanStop(id uint64) error {
	return recovery.WriteCleanStop(e.p.cfg.DataDir, id)
}
func (e checkpointEffects) PersistCheckpoint(ctx context.Context, a protocol.Persist) (checkpoint.Manifest, error) {
	m, err := e.p.persistCheckpoint(ctx, a)
	return m, e.p.metrics.epochPersisted(a.ID, err)
}

// report hands a source's or a task's report to the coordinator.
func (p *Pipeline) report(ev protocol.Event) {
	select {
	case p.reports <- ev:
	case <-p.failed:
	case <-p.abandoned: // a stopped cluster part: nobody reads reports
	}
}

func (p *Pipeline) injectBarriers(req protocol.InjectBarriers) error {
	for _, s := range p.sources {
		select {
		case s.barriers <- req:
		case <-p.failed:
			return p.failure()
		}
	}
	return nil
}

func (p *Pipeline) cancelCheckpoint(id uint64) {
	for _, t := range p.tasks {
		t.ck.cancel(id)
	}
}

// persistCheckpoint turns a collected checkpoint into checkpoint files.
func (p *Pipeline) persistCheckpoint(ctx context.Context, a protocol.Persist) (checkpoint.Manifest, error) {
	if p.opts.Cluster != nil {
		return p.persistPart(ctx, p.manifest(a))
	}
	// Every output of a record in the cut must be durable before the cut
	// is: a crash after the manifest must not lose an output.
	if err := p.sink.Flush(ctx); err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("waiting for output acknowledgements: %w", err)
	}
	if err := p.commitDeadLetters(); err != nil {
		return checkpoint.Manifest{}, err
	}
	p.crash.Reach("tasks-snapshotted")
	w := checkpoint.Writer{FS: p.opts.FS, Hook: func(s checkpoint.Step) { p.crash.Reach(string(s)) }}
	return w.Write(CheckpointRoot(p.cfg), p.store.DB(), p.manifest(a))
}

func (p *Pipeline) commitDeadLetters() error {
	b := p.store.NewBatch()
	defer b.Close()
	committed, err := p.dead.putChanged(b)
	if err != nil || b.Empty() {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return err
	}
	committed()
	return nil
}

// manifest describes a collected checkpoint: positions per source, and per
// task the key-group ranges with the positions its snapshot holds.
func (p *Pipeline) manifest(a protocol.Persist) checkpoint.Manifest {
	m := checkpoint.Manifest{ID: a.ID, Created: a.Started.UTC(), Config: p.cfg.Text, Metrics: checkpoint.Metrics{Mode: protocol.Aligned.String()}}
	for i, s := range p.sources {
		m.Sources = append(m.Sources, checkpoint.SourcePosition{Name: s.cfg.Name, Stream: s.cfg.Stream,
			StreamCreated: s.src.Identity().Created, LastSequence: a.Sources[i]})
	}
	index := p.sourceIndex()
	for _, op := range p.operators {
		e := checkpoint.OperatorEntry{Name: op.cfg.Name, ModuleSHA256: op.module.Hash(), ABIVersion: abi.Version,
			StateFormatVersion: state.FormatVersion, StateVersion: op.cfg.StateVersion, MaxParallelism: op.cfg.MaxParallelism}
		if v := op.stateVersions(); len(v) > 0 {
			e.StateVersions = v
		}
		for _, t := range op.tasks {
			r := a.Tasks[t.global]
			e.Tasks = append(e.Tasks, splitEntry(t.skip, t.manifestEntry(r), index)...)
			m.Metrics.AlignmentNanos = max(m.Metrics.AlignmentNanos, int64(r.Alignment))
			m.Metrics.MaxPauseNanos = max(m.Metrics.MaxPauseNanos, int64(r.Pause))
			if r.Unaligned {
				m.Metrics.Mode = protocol.Unaligned.String()
			}
		}
		m.Operators = append(m.Operators, e)
	}
	m.Metrics.Recovery = p.recoveryMetrics()
	return m
}

// manifestEntry is the task's entry for its report r.
func (t *task) manifestEntry(r protocol.TaskReport) checkpoint.TaskEntry {
	kgr := t.backend.Options().Range
	inputs := make(map[string]uint64, len(r.Positions))
	for i := range t.op.cfg.Inputs {
		inputs[t.op.p.inputSourceName(t.op, i)] = r.Positions[i]
	}
	return checkpoint.TaskEntry{KeyGroupRange: checkpoint.KeyGroupRange{Start: kgr.Start, End: kgr.End},
		Inputs: inputs, PauseNanos: int64(r.Pause), AlignmentNanos: int64(r.Alignment), Unaligned: r.Unaligned}
}
