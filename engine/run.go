package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Run processes records until ctx ends, the pipeline has been idle for
// Options.StopWhenIdle, or a task fails. On a clean stop it takes a final
// checkpoint: the sources inject a last barrier and stop reading.
func (p *Pipeline) Run(ctx context.Context) error {
	defer close(p.stopped)
	if p.restored != nil {
		// A crash between a checkpoint's completion and the publication of
		// its transactional outputs left them staged in it: publish them
		// before anything new is produced.
		if err := p.publishRestored(ctx, p.restored.manifest.ID); err != nil {
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
				if err := t.run(taskCtx); err != nil {
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
	if runErr == nil && p.failure() == nil {
		runErr = p.finalCheckpoint()
	}
	stopSources()
	sources.Wait()
	p.closeTasks()
	tasks.Wait()
	p.logProgress(time.Time{})
	if err := p.failure(); err != nil {
		return err
	}
	return runErr
}

// loop drives checkpoints, progress logs and the idle stop.
func (p *Pipeline) loop(ctx context.Context) error {
	progressTick := time.NewTicker(p.opts.ProgressInterval)
	defer progressTick.Stop()
	idleTick := time.NewTicker(100 * time.Millisecond)
	defer idleTick.Stop()
	started := time.Now()
	c := p.coord
	for {
		var timeout <-chan time.Time
		if c.pending != nil {
			timeout = time.After(c.opts.Timeout - time.Since(c.pending.created))
		}
		var err error
		select {
		case <-ctx.Done():
			p.logger.Info("stopping: final checkpoint")
			return nil
		case <-p.upgradeStop:
			p.logger.Info("stopping for the upgrade: final checkpoint")
			return nil
		case <-p.failed:
			return p.failure()
		case <-c.nextTrigger():
			err = c.start(false)
		case answer := <-c.demand:
			c.waiters = append(c.waiters, answer)
			if c.pending == nil {
				err = c.start(false)
			}
		case <-c.pendingDone():
			err = c.complete(context.Background())
		case <-timeout:
			err = c.abandon(fmt.Sprintf("not complete after %s (checkpoint timeout)", c.opts.Timeout))
		case <-progressTick.C:
			p.logProgress(started)
		case <-idleTick.C:
			if p.opts.StopWhenIdle > 0 && p.idleFor() >= p.opts.StopWhenIdle && time.Since(started) >= p.opts.StopWhenIdle {
				p.logger.Info("stopping: no input", "idle_for", p.opts.StopWhenIdle)
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
}

// finalCheckpoint lets a checkpoint in progress finish, then takes the last
// one: sources inject a final barrier and stop, tasks snapshot after every
// record routed before it.
func (p *Pipeline) finalCheckpoint() error {
	c := p.coord
	deadline := time.After(c.opts.Timeout)
	for final := false; !final; {
		if c.pending == nil {
			if err := c.start(true); err != nil {
				return err
			}
			final = true
		}
		select {
		case <-c.pending.done:
			if err := c.complete(context.Background()); err != nil {
				return err
			}
		case <-p.failed:
			return p.failure()
		case <-deadline:
			return fmt.Errorf("final checkpoint %d not complete after %s; the next run resumes from the last completed checkpoint", c.pending.id, c.opts.Timeout)
		}
	}
	return nil
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
