package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// --stop-when-idle means "nothing pending", not "nothing arrived for a
// while": a source that delivers nothing while its stream holds records for
// it has stalled (issue 18: nats.go left a consumer without a pull request
// for 10 s, and the run stopped as idle with most of its input unread). So
// once no source delivered anything for Options.StopWhenIdle, the run asks
// the server what is left for each source after its position, and stops
// only when nothing is. While records wait it keeps running, and it gives
// up with ErrInputPending once the sources delivered nothing for
// stallLimit. After the final checkpoint of an idle stop it asks again:
// records that arrived in between are not processed, and the run says so.

// ErrInputPending reports a stop that would leave, or left, input unread.
var ErrInputPending = errors.New("input still pending")

// backlogTimeout bounds one source's backlog request.
const backlogTimeout = 5 * time.Second

// stallLimit is how long the sources may deliver nothing while their
// streams hold records for them before an idle run gives up: well past
// nats.go's own recovery of a consumer that went quiet (two missed 5 s
// heartbeats, minStall), and never below ten idle periods.
func stallLimit(idle time.Duration) time.Duration { return max(10*idle, minStall) }

// minStall is stallLimit's floor. A variable for tests.
var minStall = 30 * time.Second

// idleCheck is the loop's state for --stop-when-idle.
type idleCheck struct {
	asked  time.Time // the last backlog check
	warned bool      // the current stall was logged
}

// ready reports whether the run may stop as idle now: nothing arrived for
// Options.StopWhenIdle and nothing is left on the server. It fails with
// ErrInputPending when the sources stalled for stallLimit.
func (p *Pipeline) idleReady(c *idleCheck, started time.Time) (bool, error) {
	wait := p.opts.StopWhenIdle
	idle := min(p.idleFor(), time.Since(started)) // a source that never delivered is idle since the start
	if idle < wait {
		*c = idleCheck{}
		return false, nil
	}
	if time.Since(c.asked) < min(wait, time.Second) {
		return false, nil
	}
	c.asked = time.Now()
	left := p.inputLeft()
	if len(left) == 0 {
		return true, nil
	}
	if idle >= stallLimit(wait) {
		return false, fmt.Errorf("%w: the sources delivered nothing for %s while their streams hold records for them (%s); "+
			"stopping with an error rather than with part of the input unprocessed: the last checkpoint holds the positions, "+
			"run again to continue, and report this stall (it should not happen)", ErrInputPending, idle.Round(time.Second), strings.Join(left, "; "))
	}
	if !c.warned {
		c.warned = true
		p.logger.Warn("not stopping as idle: the sources deliver nothing but records wait for them", "idle_for", idle.Round(time.Millisecond),
			"pending", strings.Join(left, "; "), "gives_up_after", stallLimit(wait))
	}
	return false, nil
}

// inputLeft describes, per source, what its stream still holds for it
// after its position; empty when nothing is left anywhere.
func (p *Pipeline) inputLeft() []string {
	var left []string
	for _, s := range p.sources {
		ctx, cancel := context.WithTimeout(context.Background(), backlogTimeout)
		b, err := s.src.Backlog(ctx, s.position.Load())
		cancel()
		switch {
		case err != nil:
			left = append(left, fmt.Sprintf("source %q: cannot tell what is left: %v", s.cfg.Name, err))
		case !b.Empty():
			left = append(left, fmt.Sprintf("source %q: %s", s.cfg.Name, b))
		}
	}
	return left
}

// checkNothingLeft runs after the final checkpoint of an idle stop: input
// that arrived after the idle check was not processed, and the run must
// not end as if it had been.
func (p *Pipeline) checkNothingLeft() error {
	for _, s := range p.sources {
		if s.acker != nil && s.acker.Unacknowledged() > 0 {
			p.logger.Warn("records processed but not acknowledged at the stop; the next run acknowledges them before it reads",
				"source", s.cfg.Name, "records", s.acker.Unacknowledged())
		}
	}
	left := p.inputLeft()
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("%w: stopped as idle, but records arrived before the final checkpoint and were not processed (%s); "+
		"the final checkpoint holds the positions: run again to process them", ErrInputPending, strings.Join(left, "; "))
}
