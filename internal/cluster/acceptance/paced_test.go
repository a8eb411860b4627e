package acceptance

import (
	"sync/atomic"
	"time"
)

// pacedPublish is publishInBackground with holds: it publishes at the
// background pace up to its hold, then at a trickle until the test moves
// the hold on (release). A test that changes the workers at each hold so
// has records arriving throughout each change, however long it takes,
// and the records between the holds still flow at full pace.
type pacedPublish struct {
	*backgroundPublish
	hold atomic.Int64
}

// trickleShare sets the trickle: 1/trickleShare of the events per second
// (at least 100 records/s), so that the trickle of a few changes of about
// ten seconds each uses up only part of the events.
const trickleShare = 200

// publishPaced publishes events from a goroutine of its own, holding at
// hold. The model is the deployment's: the test goroutine must not use
// it until wait returned.
func (d *deployment) publishPaced(events []event, hold int) *pacedPublish {
	p := &pacedPublish{backgroundPublish: &backgroundPublish{done: make(chan error, 1)}}
	p.hold.Store(int64(hold))
	perPause := max(len(events)/trickleShare*int(backgroundPause)/int(time.Second), 5)
	go func() {
		for from := 0; from < len(events); {
			to := min(from+backgroundPart, len(events))
			if h := int(p.hold.Load()); from >= h {
				to = min(from+perPause, len(events))
			} else {
				to = min(to, h)
			}
			if err := storeEvents(d.js, d.model, events[from:to]); err != nil {
				p.done <- err
				return
			}
			from = to
			p.sent.Store(int64(to))
			time.Sleep(backgroundPause)
		}
		p.done <- nil
	}()
	return p
}

// release moves the hold on to n events.
func (p *pacedPublish) release(n int) { p.hold.Store(int64(n)) }
