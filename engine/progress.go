package engine

import "time"

// Stats are the pipeline's counters since Open.
type Stats struct {
	Read         uint64 // records fetched from sources
	Processed    uint64 // records the guests processed successfully
	Emitted      uint64 // outputs published
	DeadLettered uint64 // records isolated to dead-letter subjects
	Restarts     uint64 // instances replaced after a fault
	// Replayed counts records delivered again after a restore: those at or
	// below the stream's last sequence when the run started (an upper bound
	// of what the crashed run had already seen).
	Replayed uint64
	// SkippedOnReplay counts replayed records dropped because the restored
	// (unaligned) snapshot already held them.
	SkippedOnReplay uint64
}

// Stats returns the current counters.
func (p *Pipeline) Stats() Stats {
	var s Stats
	for _, src := range p.sources {
		s.Read += src.read.Load()
		s.Replayed += src.replayed.Load()
	}
	s.SkippedOnReplay = p.skipped.Load()
	for _, op := range p.operators {
		for _, t := range op.tasks {
			s.Processed += t.processed.Load()
			s.Emitted += t.emitted.Load()
			s.DeadLettered += t.dead.Load()
			s.Restarts += t.restarts.Load()
		}
	}
	return s
}

// logProgress logs the counters; with a zero start it logs the final totals.
func (p *Pipeline) logProgress(started time.Time) {
	s := p.Stats()
	args := []any{"read", s.Read, "processed", s.Processed, "emitted", s.Emitted, "dead_lettered", s.DeadLettered, "instance_restarts", s.Restarts}
	if p.restored != nil {
		args = append(args, "replayed", s.Replayed, "skipped_on_replay", s.SkippedOnReplay)
	}
	if started.IsZero() {
		p.logger.Info("pipeline stopped", args...)
		return
	}
	if secs := time.Since(started).Seconds(); secs > 0 {
		args = append(args, "records_per_sec", int(float64(s.Processed)/secs))
	}
	p.logger.Info("progress", args...)
}
