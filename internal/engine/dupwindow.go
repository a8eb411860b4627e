package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// recoveryMargin is what the replay horizon allows for a restart: the time
// from a crash until the restarted pipeline has published again.
const recoveryMargin = time.Minute

// serverDuplicateWindow is JetStream's default duplicate window.
const serverDuplicateWindow = 2 * time.Minute

// replayHorizon is how long after an output's first publication its
// replay can publish it again: the records since the last completed
// checkpoint (up to one interval) are replayed after the restart, and an
// outage can hold the resend, or the exit that leads to the replay, for
// up to the outage budget.
func replayHorizon(interval, outageBudget time.Duration) time.Duration {
	return max(interval, 0) + outageBudget + recoveryMargin
}

// pipelineHorizon is the replay horizon of cfg's pipeline: on a cluster
// a dead worker's tasks replay on another after the worker timeout, and
// in the worst case only after its membership lease expired.
func pipelineHorizon(cfg *config.Pipeline, interval time.Duration) time.Duration {
	h := replayHorizon(interval, outageBudget(cfg))
	if cfg.Cluster.Range != (hcl.Range{}) {
		h += cfg.Cluster.WorkerTimeout + cfg.Cluster.LeaseTTL
	}
	return h
}

// SinkWarnings checks, from the config alone, that the duplicate window of
// the declared stream behind every idempotent or transactional sink covers
// the replay horizon (checkpoint interval + outage budget + a minute for
// the restart, + worker timeout and lease TTL on a cluster).
// Streams that are not declared are checked by run, on the server.
func SinkWarnings(cfg *config.Pipeline) []string {
	horizon := pipelineHorizon(cfg, configInterval(cfg))
	var out []string
	for _, s := range cfg.Sinks {
		st := cfg.StreamCapturing(s.Subject)
		if s.Mode == config.ModeAtLeastOnce || st == nil {
			continue
		}
		window := st.DuplicateWindow
		if window == 0 {
			window = serverDuplicateWindow
		}
		if w := natsio.DuplicateWindowWarning(st.Name, window, horizon); w != "" {
			out = append(out, fmt.Sprintf("sink %q (%s): %s", s.Name, s.Mode, w))
		}
	}
	return out
}

// configInterval is the checkpoint interval of the config (or the default).
func configInterval(cfg *config.Pipeline) time.Duration {
	if cfg.Checkpoint.Interval > 0 {
		return cfg.Checkpoint.Interval
	}
	return config.DefaultCheckpointInterval
}

// warnDuplicateWindows checks, on the server, the stream behind every
// idempotent or transactional sink against the run's replay horizon.
func (p *Pipeline) warnDuplicateWindows(ctx context.Context) {
	interval := p.opts.Checkpoint.Interval
	if p.opts.Cluster != nil {
		interval = configInterval(p.cfg) // the cluster coordinator's
	}
	horizon := pipelineHorizon(p.cfg, interval)
	for _, s := range p.cfg.Sinks {
		if s.Mode == config.ModeAtLeastOnce {
			continue
		}
		stream, err := p.conn.JS.StreamNameBySubject(ctx, s.Subject)
		if err != nil {
			p.logger.Warn("no stream captures the sink's subject: its outputs are not stored", "sink", s.Name, "subject", s.Subject)
			continue
		}
		window, err := p.conn.DuplicateWindow(ctx, stream)
		if err != nil {
			p.logger.Warn("cannot read the duplicate window of the sink's stream", "sink", s.Name, "stream", stream, "error", err)
			continue
		}
		if w := natsio.DuplicateWindowWarning(stream, window, horizon); w != "" {
			p.logger.Warn(fmt.Sprintf("sink %q (%s): %s", s.Name, s.Mode, w))
		}
	}
}
