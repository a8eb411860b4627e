package protocol

import "time"

// Clock tells the protocol the time. The protocol never reads the wall
// clock itself: the engine passes one backed by time.Now, tests and scripts
// a manual one, and a coordinator running over NATS its own.
type Clock interface {
	Now() time.Time
}

// ManualClock is a Clock that moves only when told to. The zero value
// starts at the zero time.
type ManualClock struct{ T time.Time }

// Now implements Clock.
func (c *ManualClock) Now() time.Time { return c.T }

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) { c.T = c.T.Add(d) }
