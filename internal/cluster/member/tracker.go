package member

import (
	"slices"
	"time"
)

// Tracker is the coordinator's view of the workers. A worker counts as a
// member from its lease's appearance to its disappearance; a member is
// alive while its last heartbeat is younger than the timeout, and
// suspected after that. A heartbeat without a lease (a worker that lost it,
// or one not yet seen joining) makes nobody alive. Not safe for concurrent
// use: Watcher serializes it.
type Tracker struct {
	timeout time.Duration
	members map[string]*memberState
}

type memberState struct {
	joined    time.Time
	lastHeard time.Time // zero: no heartbeat since joining
}

// View is who is alive and who is suspected at one instant, each sorted.
type View struct {
	Alive     []string
	Suspected []string
}

// NewTracker returns a Tracker that suspects a member after timeout
// without a heartbeat.
func NewTracker(timeout time.Duration) *Tracker {
	return &Tracker{timeout: timeout, members: map[string]*memberState{}}
}

// Joined records that id holds its membership lease (a create or a
// renewal seen at at). Joining counts as being heard, so that a worker
// that just started gets a full timeout for its first heartbeat; a
// renewal does not: only heartbeats keep a member alive, the lease only
// keeps it a member.
func (t *Tracker) Joined(id string, at time.Time) {
	if _, ok := t.members[id]; !ok {
		t.members[id] = &memberState{joined: at, lastHeard: at}
	}
}

// Left records that id's lease is gone: released, deleted or expired.
func (t *Tracker) Left(id string) { delete(t.members, id) }

// Heard records a heartbeat of id sent or received at at.
func (t *Tracker) Heard(id string, at time.Time) {
	if m, ok := t.members[id]; ok {
		m.lastHeard = latest(m.lastHeard, at)
	}
}

// View says who is alive and who is suspected at now.
func (t *Tracker) View(now time.Time) View {
	var v View
	for id, m := range t.members {
		if now.Sub(m.lastHeard) < t.timeout {
			v.Alive = append(v.Alive, id)
		} else {
			v.Suspected = append(v.Suspected, id)
		}
	}
	slices.Sort(v.Alive)
	slices.Sort(v.Suspected)
	return v
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
