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
	leaving   bool      // its last heartbeat said it is leaving
}

// View is who is alive and who is suspected at one instant, each sorted.
// Leaving lists the alive members whose heartbeats say they are leaving
// (Member.Leave): alive, so they still take part in a checkpoint, but to
// be given no task.
type View struct {
	Alive     []string
	Suspected []string
	Leaving   []string
}

// Staying is v.Alive without the members that are leaving.
func (v View) Staying() []string {
	var out []string
	for _, id := range v.Alive {
		if !slices.Contains(v.Leaving, id) {
			out = append(out, id)
		}
	}
	return out
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

// Heard records a heartbeat of id sent or received at at; leaving is what
// it says. A member that said it is leaving stays leaving.
func (t *Tracker) Heard(id string, at time.Time, leaving bool) {
	if m, ok := t.members[id]; ok {
		m.lastHeard = latest(m.lastHeard, at)
		m.leaving = m.leaving || leaving
	}
}

// View says who is alive and who is suspected at now.
func (t *Tracker) View(now time.Time) View {
	var v View
	for id, m := range t.members {
		if now.Sub(m.lastHeard) < t.timeout {
			v.Alive = append(v.Alive, id)
			if m.leaving {
				v.Leaving = append(v.Leaving, id)
			}
		} else {
			v.Suspected = append(v.Suspected, id)
		}
	}
	slices.Sort(v.Alive)
	slices.Sort(v.Suspected)
	slices.Sort(v.Leaving)
	return v
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
