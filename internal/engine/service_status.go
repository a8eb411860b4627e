package engine

import (
	"context"
	"os"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/control"
)

// status is what the status endpoint answers, read from the counters the
// progress log and the metrics read too.
func (s *runService) status() control.Status {
	p := s.p
	stats := p.Stats()
	s.mu.Lock()
	perSecond, window := s.rate.rate()
	s.mu.Unlock()
	ck := p.metrics.checkpointSnapshot()
	st := control.Status{
		Pipeline: p.cfg.Name, State: control.StateRunning, Version: BuildVersion,
		Host: s.host, PID: os.Getpid(), DataDir: p.cfg.DataDir, Started: s.started,
		RecordsIn: stats.Read, Processed: stats.Processed, RecordsPerSecond: perSecond, RateWindowSecs: window.Seconds(),
		DeadLetters: stats.DeadLettered, CheckpointsCompleted: ck.completed, LastCheckpoint: s.lastCheckpoint(),
		Sources: s.sourceStatus(), Operators: s.operatorStatus(),
	}
	if s.runCtx.Err() != nil {
		st.State = control.StateStopping
	}
	return st
}

// lastCheckpoint is the newest checkpoint of the run; nil before the first.
func (s *runService) lastCheckpoint() *control.CheckpointStatus {
	ck := s.p.metrics.checkpointSnapshot()
	if ck.completed == 0 {
		return nil
	}
	return &control.CheckpointStatus{ID: ck.last.ID, Completed: ck.lastAt,
		DurationMS: float64(ck.last.Metrics.DurationNanos) / float64(time.Millisecond)}
}

// sourceStatus asks the server for each source's backlog, all together
// within the bound a metrics scrape has: a status while NATS is away must
// still answer (without the pending counts).
func (s *runService) sourceStatus() []control.SourceStatus {
	ctx, cancel := context.WithTimeout(context.Background(), pendingTimeout)
	defer cancel()
	connected := s.p.natsConnected()
	out := make([]control.SourceStatus, 0, len(s.p.sources))
	for _, src := range s.p.sources {
		st := control.SourceStatus{Name: src.cfg.Name, Stream: src.cfg.Stream, Position: src.position.Load()}
		if connected && ctx.Err() == nil {
			if b, err := src.src.Backlog(ctx, st.Position); err == nil && !b.Unknown {
				pending := b.Undelivered + b.Unfetched
				st.Pending = &pending
			}
		}
		out = append(out, st)
	}
	return out
}

func (s *runService) operatorStatus() []control.OperatorStatus {
	out := make([]control.OperatorStatus, 0, len(s.p.operators))
	for _, op := range s.p.operators {
		out = append(out, control.OperatorStatus{Name: op.cfg.Name, Parallelism: op.cfg.Parallelism, ModuleSHA256: op.module.Hash()})
	}
	return out
}
