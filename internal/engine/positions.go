package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/natsio"
)

// sourceStart is where a source starts and, after a restore, the stream's
// last sequence at that moment (records up to it are counted as replayed).
type sourceStart struct {
	sequence    uint64
	replayUntil uint64
}

// startSequence returns where a source starts: after its position in the
// restored checkpoint when there is one, else at the configured start. A
// position in a stream that was recreated, purged past it, or that lost
// messages after it, is refused with an error naming the checkpoint: never
// a silent skip. Lost messages are accepted (and logged) only with
// RecoveryOptions.AcceptGaps.
func (p *Pipeline) startSequence(ctx context.Context, sc *config.Source, quiet bool) (sourceStart, error) {
	stream, err := p.conn.JS.Stream(ctx, sc.Stream)
	if err != nil {
		return sourceStart{}, fmt.Errorf("%s: source %q: stream %q: %w (declare it in a stream block or create it on the server)", config.Pos(sc.Range), sc.Name, sc.Stream, err)
	}
	info := stream.CachedInfo()
	configured := sourceStart{sequence: max(sc.StartSequence, 1)}
	if p.restored == nil {
		return configured, nil
	}
	m := p.restored.Manifest
	pos, ok := recovery.Source(m, sc.Name)
	if !ok {
		p.logger.Warn("source has no position in the checkpoint; it starts at its configured start", "source", sc.Name, "checkpoint", m.ID)
		return configured, nil
	}
	next := p.restored.Resume[sc.Name]
	if pos.Stream != sc.Stream || !pos.StreamCreated.Equal(info.Created) {
		return sourceStart{}, fmt.Errorf("%w %d: source %q: the checkpoint's position (stream %s created %s, sequence %d) does not belong to stream %s created %s: "+
			"the stream was recreated or the source changed. Nothing was changed; to start over from empty state run with --empty-state",
			ErrRecovery, m.ID, sc.Name, pos.Stream, pos.StreamCreated.Format(time.RFC3339Nano), pos.LastSequence, sc.Stream, info.Created.Format(time.RFC3339Nano))
	}
	if first := info.State.FirstSeq; first > next && (info.State.Msgs > 0 || info.State.LastSeq >= next) {
		if !p.opts.Recovery.AcceptGaps {
			return sourceStart{}, fmt.Errorf("%w %d: source %q: stream %s now starts at sequence %d but the checkpoint resumes at %d: "+
				"messages were purged or expired before they were processed. Nothing was changed; raise the stream's retention, "+
				"and run with --accept-gaps to resume at %d without them, or with --empty-state to start over",
				ErrRecovery, m.ID, sc.Name, sc.Stream, first, next, first)
		}
		if !quiet {
			p.logger.Warn("accepting a gap: records purged or expired before they were processed are skipped", "source", sc.Name, "stream", sc.Stream,
				"sequences", fmt.Sprintf("%d..%d", next, first-1), "checkpoint", m.ID)
		}
	}
	if err := p.checkRemoved(ctx, stream, sc, next, quiet); err != nil {
		return sourceStart{}, err
	}
	if !quiet {
		p.logger.Info("resuming source from the checkpoint", "source", sc.Name, "stream", sc.Stream, "sequence", next, "checkpoint", m.ID)
	}
	return sourceStart{sequence: next, replayUntil: info.State.LastSeq}, nil
}

// checkRemoved refuses a restore when the stream no longer holds messages
// from the resume point next on that it stored: deleted, purged by
// subject, or removed by a per-subject limit. (next follows the position;
// after an unaligned checkpoint it may lie before it, at the in-flight
// records the restore replays.) A removed message's subject
// is unknown, so a filtered source refuses too; but not one on a WorkQueue
// or Interest stream, where other consumers' acknowledgements remove other
// subjects' messages all the time (its durable keeps what matches its
// filter until this pipeline acknowledges it).
func (p *Pipeline) checkRemoved(ctx context.Context, stream jetstream.Stream, sc *config.Source, next uint64, quiet bool) error {
	id := p.restored.Manifest.ID
	if sc.Subject != "" && stream.CachedInfo().Config.Retention != jetstream.LimitsPolicy {
		return nil
	}
	removed, err := natsio.RemovedSequences(ctx, stream, next)
	if err != nil {
		return fmt.Errorf("%w %d: source %q: %w", ErrRecovery, id, sc.Name, err)
	}
	switch {
	case len(removed) == 0:
		return nil
	case p.opts.Recovery.AcceptGaps:
		if !quiet {
			p.logger.Warn("accepting a gap: messages removed after the checkpoint's position are skipped", "source", sc.Name, "stream", sc.Stream,
				"sequences", natsio.FormatSequences(removed), "checkpoint", id)
		}
		return nil
	}
	return fmt.Errorf("%w %d: source %q: stream %s no longer holds sequences %s, at or after sequence %d where the checkpoint resumes: "+
		"they were deleted, purged by subject or removed by a per-subject limit before they were processed, and a removed message's subject is unknown, "+
		"so they may have been records of this source. Nothing was changed; restore them, run with --accept-gaps to resume without them, "+
		"or with --empty-state to start over",
		ErrRecovery, id, sc.Name, sc.Stream, natsio.FormatSequences(removed), next)
}

// recoveryMetrics describes the restore this run started from, for the
// manifests it writes; nil when it started from empty state.
func (p *Pipeline) recoveryMetrics() *checkpoint.RecoveryMetrics {
	if p.restored == nil {
		return nil
	}
	r := &checkpoint.RecoveryMetrics{FromCheckpoint: p.restored.Manifest.ID, DurationNanos: int64(p.recoveryTime)}
	for _, s := range p.sources {
		r.RecordsReplayed += s.replayed.Load()
	}
	return r
}
