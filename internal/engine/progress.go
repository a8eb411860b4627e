package engine

import "time"

// Stats are the pipeline's counters since Open.
type Stats struct {
	Read      uint64 // records fetched from sources
	Processed uint64 // records the guests processed successfully
	Emitted   uint64 // outputs published
	// DeadLettered counts the dead letters published: records the guest
	// rejected and records without a usable key, per operator (a record
	// that two operators dead-letter counts twice).
	DeadLettered uint64
	Restarts     uint64 // instances replaced after a fault
	// Replayed counts records delivered again after a restore: those at or
	// below the stream's last sequence when the run started (an upper bound
	// of what the crashed run had already seen).
	Replayed uint64
	// SkippedOnReplay counts replayed records dropped because the restored
	// (unaligned) snapshot already held them.
	SkippedOnReplay uint64

	// State TTL (operators with a TTL only). StateExpired counts expired
	// entries removed by reads, flushes and the sweep. StateLiveEntries and
	// StateLiveBytes are the state's size as the last complete sweep pass of
	// each task saw it (an estimate; 0 before a task's first pass).
	StateExpired     uint64
	StateLiveEntries int64
	StateLiveBytes   int64
	// SweepPasses counts completed sweep passes over all tasks.
	SweepPasses uint64

	// TransactionalPublished counts outputs of transactional sinks made
	// visible (published after their checkpoint completed); Emitted counts
	// them when they are produced. TransactionalResent counts those re-sent
	// one by one because their atomic batch was found already committed.
	TransactionalPublished uint64
	TransactionalResent    uint64
	// OutputsResent counts outputs and dead letters sent again, with their
	// message ids, because NATS did not acknowledge them before a
	// reconnect (an outage, server.outage_budget).
	OutputsResent uint64
}

// Stats returns the current counters.
func (p *Pipeline) Stats() Stats {
	var s Stats
	for _, src := range p.sources {
		s.Read += src.read.Load()
		s.Replayed += src.replayed.Load()
	}
	s.SkippedOnReplay = p.skipped.Load()
	s.TransactionalPublished = p.transactionalPublished.Load()
	s.TransactionalResent = p.outboxRecommitted.Load()
	if p.sink != nil {
		s.OutputsResent = p.sink.Stats().Resent
	}
	for _, op := range p.operators {
		s.DeadLettered += p.dead.publishedBy(op.cfg.Name)
		for _, t := range op.tasks {
			s.Processed += t.processed.Load()
			s.Emitted += t.emitted.Load()
			s.Restarts += t.restarts.Load()
			s.StateExpired += t.stateExpired.Load()
			s.StateLiveEntries += t.stateLiveEntries.Load()
			s.StateLiveBytes += t.stateLiveBytes.Load()
			s.SweepPasses += t.sweepPasses.Load()
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
	if p.hasTransactionalSink() {
		args = append(args, "transactional_published", s.TransactionalPublished, "transactional_resent", s.TransactionalResent)
	}
	if s.OutputsResent > 0 { // only after an outage: the usual line stays short
		args = append(args, "outputs_resent", s.OutputsResent)
	}
	if p.hasTTL() {
		args = append(args, "state_expired", s.StateExpired, "state_live_entries", s.StateLiveEntries, "state_live_bytes", s.StateLiveBytes)
	}
	if started.IsZero() {
		p.logger.Info("pipeline stopped", append(args, "read_per_source", p.readPerSource())...)
		return
	}
	if secs := time.Since(started).Seconds(); secs > 0 {
		args = append(args, "records_per_sec", int(float64(s.Processed)/secs))
	}
	p.logger.Info("progress", args...)
}

// readPerSource is how many records each source this process reads fetched: in a cluster, the
// sum over the workers' parts says how often a stream was read.
func (p *Pipeline) readPerSource() map[string]uint64 {
	out := make(map[string]uint64, len(p.sources))
	for _, s := range p.sources {
		out[s.cfg.Name] = s.read.Load()
	}
	return out
}

// hasTTL reports whether some operator's state has a TTL.
func (p *Pipeline) hasTTL() bool {
	for _, op := range p.operators {
		if op.hasTTL {
			return true
		}
	}
	return false
}
