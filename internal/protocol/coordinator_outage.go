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

// publishDeferred: the outputs of the complete checkpoint in progress could
// not be published because NATS is unreachable. They stay staged in it, so
// Publish is asked again after a pause, until the outage budget is spent.
func (c *Coordinator) publishDeferred(err error) []Action {
	r := c.round
	if c.outageOver(r) {
		return c.fail(c.outageError(r.id, err))
	}
	r.retrying, r.retryAt = true, c.now().Add(OutageRetryPause)
	return []Action{PublishDeferred{ID: r.id, Err: err, RetryAt: r.retryAt}}
}

// outageOver dates an outage from the start of r unless it began earlier,
// and reports whether it has lasted the budget.
func (c *Coordinator) outageOver(r *round) bool {
	if !c.inOutage {
		c.inOutage, c.outageSince = true, r.started
	}
	return c.now().Sub(c.outageSince) >= c.cfg.OutageBudget
}

func (c *Coordinator) outageError(id uint64, err error) error {
	return fmt.Errorf("%w: the NATS server at %s has not answered for %s (server.outage_budget = %s), checkpoint %d failed: %w; "+
		"check that the server is running and reachable from here (or raise server.outage_budget) and restart: "+
		"the run resumes from the last completed checkpoint", ErrOutageBudget, c.cfg.Server, c.now().Sub(c.outageSince),
		c.cfg.OutageBudget, id, err)
}
