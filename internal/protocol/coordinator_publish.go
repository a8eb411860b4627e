package protocol

import (
	"fmt"
	"time"
)

// Publication behind the rounds. A persisted checkpoint holds the
// transactional outputs of the records it covers (the tasks staged them in
// its snapshot), so once persisted it is complete and restorable whether
// or not they are visible yet: a restore publishes what it holds. With
// MaxUnpublished > 0 the coordinator therefore announces a periodic
// checkpoint as soon as it is persisted and publishes its outputs behind
// it, while the next checkpoints run; publishing them before the next
// trigger made the next epoch, its snapshot and its pause as large as the
// publication was long (BENCHMARKS.md "Sinks").
//
// What stays exactly-once:
//   - one Publish at a time, each covering every completed checkpoint up to
//     its id, so outputs become visible in checkpoint order and a failed
//     publication is covered again, same batches and ids, by the next one;
//   - a failure that is not an outage stops the pipeline (the restart
//     publishes what the checkpoint holds), an outage asks again after
//     OutageRetryPause within the budget: never dropped;
//   - a final checkpoint, and one a trigger waits for, end only once
//     everything up to them is visible, so a stop or an awaited trigger
//     answers with every output of a completed checkpoint stored;
//   - a periodic trigger waits while more than MaxUnpublished completed
//     checkpoints are unpublished: the outputs that wait (and the latency
//     they add) stay bounded when publishing is slower than processing.

// publication is the coordinator's view of publishing completed
// checkpoints' outputs.
type publication struct {
	// pending are the completed checkpoints whose outputs are not known to
	// be visible, oldest first.
	pending []pendingCheckpoint
	// asked is the id of the Publish in progress; 0: none.
	asked uint64
	// retrying: the last Publish failed by an outage and is asked again
	// at retryAt.
	retrying bool
	retryAt  time.Time
}

type pendingCheckpoint struct {
	id      uint64
	started time.Time
}

// completed adds a persisted checkpoint to publish.
func (p *publication) completed(id uint64, started time.Time) {
	p.pending = append(p.pending, pendingCheckpoint{id: id, started: started})
}

// done drops the checkpoints up to id, now visible.
func (p *publication) done(id uint64) {
	i := 0
	for i < len(p.pending) && p.pending[i].id <= id {
		i++
	}
	p.pending = p.pending[i:]
}

// oldestStarted is when the oldest unpublished checkpoint started.
func (p *publication) oldestStarted() time.Time {
	if len(p.pending) == 0 {
		return time.Time{}
	}
	return p.pending[0].started
}

// state describes the publication for State; background says whether
// checkpoints may be announced before their publication.
func (p *publication) state(background bool) string {
	var s string
	if background && len(p.pending) > 0 {
		ids := make([]uint64, len(p.pending))
		for i, pc := range p.pending {
			ids[i] = pc.id
		}
		s += " unpublished=" + uints(ids)
		if p.asked != 0 {
			s += fmt.Sprintf(" publishing=%d", p.asked)
		}
	}
	if p.retrying {
		s += " retrying"
	}
	return s
}

// mayTrigger: few enough completed checkpoints wait for their publication
// to start a periodic one.
func (c *Coordinator) mayTrigger() bool {
	return len(c.pub.pending) <= c.cfg.MaxUnpublished
}

// publishNext asks to publish every completed checkpoint's outputs unless
// a publication is in progress or waits for its retry.
func (c *Coordinator) publishNext() []Action {
	p := &c.pub
	if p.asked != 0 || p.retrying || len(p.pending) == 0 {
		return nil
	}
	p.asked = p.pending[len(p.pending)-1].id
	return []Action{Publish{ID: p.asked}}
}

// published: the outputs of every checkpoint up to ev.ID are visible, or
// could not be made so. The round waiting for them ends; a periodic
// trigger held back by them may start.
func (c *Coordinator) published(ev Published) []Action {
	if ev.ID == 0 || ev.ID != c.pub.asked {
		return nil // stale: not the publication in progress
	}
	c.pub.asked = 0
	switch {
	case ev.Err != nil && ev.Outage:
		return c.publishDeferred(ev.ID, ev.Err)
	case ev.Err != nil:
		return c.fail(ev.Err)
	}
	c.inOutage = false
	c.pub.done(ev.ID)
	var actions []Action
	if r := c.round; r != nil && r.phase == publishing && r.id <= ev.ID {
		actions = c.finishRound()
	}
	if c.done {
		return actions
	}
	actions = append(actions, c.publishNext()...)
	if c.round == nil {
		actions = append(actions, c.periodic()...)
	}
	return actions
}
