package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// Run processes records until ctx ends, the pipeline has been idle for
// Options.StopWhenIdle with nothing left to read (idle.go), or a task
// fails. On a clean stop it takes a final checkpoint: the sources inject a
// last barrier and stop reading. An idle stop that left input unread
// returns ErrInputPending. While it runs, its NATS service (service.go)
// answers status requests and stops it on request as ctx would.
func (p *Pipeline) Run(ctx context.Context) (err error) {
	defer close(p.stopped)
	ctx, svc, err := p.startService(ctx)
	if err != nil {
		return err
	}
	defer func() { svc.finish(err) }()
	if p.restored != nil {
		// A crash between a checkpoint's completion and the publication of
		// its transactional outputs left them staged in it: publish them
		// before anything new is produced.
		if err := p.publishRestored(ctx, p.restored.Manifest.ID); err != nil {
			return err
		}
	}
	srcCtx, stopSources := context.WithCancel(context.Background())
	defer stopSources()
	// Tasks must finish what was routed and snapshot at the final barrier
	// after ctx ended (a SIGTERM): their guest calls use their own context.
	taskCtx, stopTasks := context.WithCancel(context.Background())
	defer stopTasks()
	var tasks, sources sync.WaitGroup
	for _, op := range p.operators {
		for _, t := range op.tasks {
			tasks.Add(1)
			go func() {
				defer tasks.Done()
				if err := t.run(taskCtx); err != nil && taskCtx.Err() == nil {
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
	if runErr != nil {
		// The coordinator stopped the pipeline (checkpoints failing in a
		// row, say): nothing may wait on a report or a queue any more.
		p.fail(runErr)
	}
	stopSources()
	if p.opts.Cluster != nil && runErr == nil {
		// A cluster part stops without a final checkpoint: whichever worker
		// runs its ranges next restores them from the last cluster
		// checkpoint and replays, so what the tasks still hold need not be
		// processed or published. Abandon it: publishing could wait out the
		// outage budget (a part stopped during a NATS outage kept its worker
		// past SIGTERM). The sources stop routing to the tasks too.
		close(p.abandoned)
		stopTasks()
	}
	sources.Wait()
	p.closeTasks()
	tasks.Wait()
	p.logProgress(time.Time{})
	if err := p.failure(); err != nil {
		return err
	}
	if runErr == nil && p.idleStopped {
		return p.checkNothingLeft()
	}
	return runErr
}

// loop drives the coordinator, progress logs and the idle stop until the
// final checkpoint completed or the pipeline failed. A stop (ctx ended, an
// accepted upgrade, no input) asks the protocol for the final checkpoint:
// the one in progress finishes, then the sources inject a final barrier
// and stop, and the tasks snapshot after every record routed before it.
func (p *Pipeline) loop(ctx context.Context) error {
	progressTick := time.NewTicker(p.opts.ProgressInterval)
	defer progressTick.Stop()
	idleTick := time.NewTicker(100 * time.Millisecond)
	defer idleTick.Stop()
	started := time.Now()
	var idleState idleCheck
	c := p.coord
	defer c.Close()
	done, upgrade, idle := ctx.Done(), p.upgradeStop, idleTick.C
	stop := func(why string, args ...any) protocol.Event {
		p.logger.Info(why, args...)
		done, upgrade, idle = nil, nil, nil
		return protocol.Stop{}
	}
	for !c.Finished() {
		var ev protocol.Event
		select {
		case <-done:
			if p.opts.Cluster != nil {
				p.logger.Info("stopping without a final checkpoint: the cluster restores this worker's ranges from its last checkpoint")
				return nil
			}
			ev = stop("stopping: final checkpoint")
		case <-upgrade:
			ev = stop("stopping for the upgrade: final checkpoint")
		case <-p.failed:
			return p.failure()
		case <-c.Timer():
			ev = protocol.Tick{}
		case dm := <-c.Demands():
			ev = c.Demanded(dm)
		case ev = <-c.Reports():
		case ev = <-c.Published():
		case <-progressTick.C:
			p.logProgress(started)
		case <-idle:
			if p.opts.StopWhenIdle <= 0 {
				break
			}
			ready, err := p.idleReady(&idleState, started)
			if err != nil {
				return err
			}
			if ready {
				p.idleStopped = true
				ev = stop("stopping: no input, nothing left on the server", "idle_for", p.opts.StopWhenIdle)
			}
		}
		if ev == nil {
			continue
		}
		if err := c.Step(context.Background(), ev); err != nil {
			if errors.Is(err, errPipelineFailed) {
				return p.failure()
			}
			return err
		}
	}
	return nil
}

// idleFor is how long no source delivered anything; 0 while one routes
// records (a task that is slow to take them is no idle source).
func (p *Pipeline) idleFor() time.Duration {
	var last int64
	for _, s := range p.sources {
		if s.routing.Load() {
			return 0
		}
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
