package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// finalSyncTimeout bounds the last commit on shutdown.
const finalSyncTimeout = 30 * time.Second

// Run processes records until ctx ends, the pipeline has been idle for
// Options.StopWhenIdle, or a task fails. On a clean stop it drains what was
// routed and commits state and positions once more.
func (p *Pipeline) Run(ctx context.Context) error {
	srcCtx, stopSources := context.WithCancel(ctx)
	defer stopSources()
	var tasks, sources sync.WaitGroup
	for _, op := range p.operators {
		for _, t := range op.tasks {
			tasks.Add(1)
			go func() {
				defer tasks.Done()
				if err := t.run(ctx); err != nil {
					p.fail(err)
				}
			}()
		}
	}
	for _, s := range p.sources {
		sources.Add(1)
		go func() {
			defer sources.Done()
			if err := s.run(srcCtx); err != nil && !errors.Is(err, errPipelineFailed) {
				p.fail(err)
			}
		}()
	}
	runErr := p.loop(ctx)
	stopSources()
	sources.Wait()
	if runErr == nil && p.failure() == nil {
		fctx, cancel := context.WithTimeout(context.Background(), finalSyncTimeout)
		runErr = p.sync(fctx)
		cancel()
	}
	p.closeTasks()
	tasks.Wait()
	p.logProgress(time.Time{})
	if err := p.failure(); err != nil {
		return err
	}
	return runErr
}

// loop drives periodic syncs, progress logs and the idle stop.
func (p *Pipeline) loop(ctx context.Context) error {
	syncTick := time.NewTicker(p.opts.SyncInterval)
	defer syncTick.Stop()
	progressTick := time.NewTicker(p.opts.ProgressInterval)
	defer progressTick.Stop()
	idleTick := time.NewTicker(100 * time.Millisecond)
	defer idleTick.Stop()
	started := time.Now()
	for {
		select {
		case <-ctx.Done():
			p.logger.Info("stopping: draining routed records and committing state")
			return nil
		case <-p.failed:
			return p.failure()
		case <-syncTick.C:
			// Not ctx: a sync that started finishes even when a stop arrives.
			sctx, cancel := context.WithTimeout(context.Background(), finalSyncTimeout)
			err := p.sync(sctx)
			cancel()
			if err != nil {
				return err
			}
		case <-progressTick.C:
			p.logProgress(started)
		case <-idleTick.C:
			if p.idleFor() >= p.opts.StopWhenIdle && p.opts.StopWhenIdle > 0 && time.Since(started) >= p.opts.StopWhenIdle {
				p.logger.Info("stopping: no input", "idle_for", p.opts.StopWhenIdle)
				return nil
			}
		}
	}
}

func (p *Pipeline) idleFor() time.Duration {
	var last int64
	for _, s := range p.sources {
		last = max(last, s.lastData.Load())
	}
	if last == 0 {
		return time.Duration(1<<63 - 1)
	}
	return time.Since(time.Unix(0, last))
}

func (p *Pipeline) closeTasks() {
	for _, op := range p.operators {
		for _, t := range op.tasks {
			close(t.in)
		}
	}
}

// syncRequest asks a task to flush its state into a shared batch after the
// records routed before it.
type syncRequest struct {
	mu    sync.Mutex
	batch *pebble.Batch
	wg    sync.WaitGroup
	errMu sync.Mutex
	err   error
}

func (s *syncRequest) done(err error) {
	if err != nil {
		s.errMu.Lock()
		s.err = errors.Join(s.err, err)
		s.errMu.Unlock()
	}
	s.wg.Done()
}

// sync commits a consistent cut: it stops routing, lets every task finish the
// records routed so far and flush its state, waits until every output is
// acknowledged by JetStream, then commits state, dead-letter decisions and
// source positions in one synced Pebble batch. Outputs are acknowledged
// before the positions move, so a crash replays rather than loses.
func (p *Pipeline) sync(ctx context.Context) error {
	p.gate.Lock()
	defer p.gate.Unlock()
	req := &syncRequest{batch: p.store.NewBatch()}
	for _, op := range p.operators {
		for _, t := range op.tasks {
			req.wg.Add(1)
			select {
			case t.in <- taskItem{sync: req}:
			case <-p.failed:
				return p.failure()
			}
		}
	}
	if err := p.waitTasks(ctx, req); err != nil {
		return err // tasks may still hold the batch: leave it to the collector
	}
	if err := p.prepareCommit(ctx, req.batch); err != nil {
		req.batch.Close()
		return err
	}
	if err := p.store.Commit(req.batch); err != nil { // closes the batch
		return fmt.Errorf("sync: commit state: %w", err)
	}
	return nil
}

// prepareCommit waits for every output acknowledgement, then adds the
// dead-letter decisions and source positions to the batch.
func (p *Pipeline) prepareCommit(ctx context.Context, b *pebble.Batch) error {
	if err := p.sink.Flush(ctx); err != nil {
		return fmt.Errorf("sync: waiting for output acknowledgements: %w", err)
	}
	if err := p.dead.putAll(b); err != nil {
		return err
	}
	return putPositions(b, p.positions())
}

func (p *Pipeline) waitTasks(ctx context.Context, req *syncRequest) error {
	done := make(chan struct{})
	go func() { req.wg.Wait(); close(done) }()
	select {
	case <-done:
		return req.err
	case <-p.failed:
		return p.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Pipeline) positions() map[string]position {
	ps := map[string]position{}
	for _, s := range p.sources {
		id := s.src.Identity()
		ps[s.cfg.Name] = position{Stream: s.cfg.Stream, Sequence: s.position.Load(), StreamCreated: id.Created}
	}
	return ps
}
