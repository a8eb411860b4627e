package protocol

import (
	"errors"
	"fmt"
	"time"
)

// Outages. A checkpoint that failed only because NATS was unreachable (the
// driver classifies the error and says so with Persisted.Outage or
// Published.Outage) is not counted towards MaxFailures: it says nothing
// about the disk, and the next checkpoint succeeds once NATS is back. What
// bounds it is the outage budget, measured from the start of the first
// checkpoint the outage failed: past it the pipeline stops with
// ErrOutageBudget, naming the server. A completed checkpoint ends the
// outage. The transactional outputs of a complete checkpoint that NATS did
// not take are published again after OutageRetryPause, within the budget:
// they stay staged in the checkpoint meanwhile.

// ErrOutageBudget marks the stop of a pipeline whose checkpoints kept
// failing because NATS was unreachable for longer than the outage budget.
var ErrOutageBudget = errors.New("NATS unreachable for longer than the outage budget")

// OutageRetryPause is how long the coordinator waits before it asks again
// to publish a complete checkpoint's outputs that NATS did not take.
const OutageRetryPause = time.Second

// publishDeferred: the outputs of the complete checkpoints being published
// could not be, because NATS is unreachable. They stay staged, so Publish
// is asked again after a pause, until the outage budget is spent.
func (c *Coordinator) publishDeferred(id uint64, err error) []Action {
	if c.outageOver(c.pub.oldestStarted()) {
		return c.fail(c.outageError(id, err))
	}
	c.pub.retrying, c.pub.retryAt = true, c.now().Add(OutageRetryPause)
	return []Action{PublishDeferred{ID: id, Err: err, RetryAt: c.pub.retryAt}}
}

// outageOver dates an outage from started (the start of the checkpoint it
// failed) unless it began earlier, and reports whether it has lasted the
// budget.
func (c *Coordinator) outageOver(started time.Time) bool {
	if !c.inOutage {
		c.inOutage, c.outageSince = true, started
	}
	return c.now().Sub(c.outageSince) >= c.cfg.OutageBudget
}

func (c *Coordinator) outageError(id uint64, err error) error {
	return fmt.Errorf("%w: the NATS server at %s has not answered for %s (server.outage_budget = %s), checkpoint %d failed: %w; "+
		"check that the server is running and reachable from here (or raise server.outage_budget) and restart: "+
		"the run resumes from the last completed checkpoint", ErrOutageBudget, c.cfg.Server, c.now().Sub(c.outageSince),
		c.cfg.OutageBudget, id, err)
}
