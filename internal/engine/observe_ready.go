package engine

import (
	"fmt"
	"time"
)

// staleCheckpoints is how many checkpoint intervals may pass without a
// completed checkpoint before the pipeline is not ready: one slow or
// failed checkpoint is normal, three in a row mean the replay after a
// crash keeps growing (a full disk, NATS away, a stuck task).
const staleCheckpoints = 3

// notReady says why the pipeline cannot do its work now, or "" when it
// can. It runs after Open (restored, sources positioned), so it checks the
// connection, the run and the checkpoints.
func (p *Pipeline) notReady(now time.Time) string {
	if p.conn == nil || p.conn.NC == nil {
		return "not connected to NATS"
	}
	if !p.natsConnected() {
		return fmt.Sprintf("not connected to NATS at %s; reconnecting (the pipeline stops after server.outage_budget %s)",
			p.conn.ClientURL(), outageBudget(p.cfg))
	}
	if err := p.failure(); err != nil {
		return "the pipeline failed: " + err.Error()
	}
	select {
	case <-p.stopped:
		return "the pipeline stopped"
	default:
	}
	return p.checkpointsLate(now)
}

// checkpointsLate says when the last checkpoint is older than
// staleCheckpoints intervals; never with on-demand checkpoints only (none
// is due), and counted from the start before the first.
func (p *Pipeline) checkpointsLate(now time.Time) string {
	interval := p.opts.Checkpoint.Interval
	if interval <= 0 {
		return ""
	}
	limit := staleCheckpoints * interval
	c := p.metrics.checkpointSnapshot()
	if c.completed == 0 {
		if since := now.Sub(p.metrics.attached); since > limit {
			return fmt.Sprintf("no checkpoint completed in the %s since the start, more than %d checkpoint intervals (%s)",
				since.Round(time.Millisecond), staleCheckpoints, interval)
		}
		return ""
	}
	if age := now.Sub(c.lastAt); age > limit {
		return fmt.Sprintf("the last completed checkpoint (%d) is %s old, more than %d checkpoint intervals (%s)",
			c.last.ID, age.Round(time.Millisecond), staleCheckpoints, interval)
	}
	return ""
}
