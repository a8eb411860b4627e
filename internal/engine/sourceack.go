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

// streamReader is what a source reads records through: an ordered,
// ack-less natsio.Source for streams kept by limits, or a natsio.AckingSource
// for streams whose retention removes acknowledged messages.
type streamReader interface {
	Fetch(ctx context.Context, max int, maxWait time.Duration) ([]natsio.Message, error)
	Identity() natsio.StreamIdentity
	// Backlog is what the server holds for the reader after a position
	// (--stop-when-idle stops only when nothing is).
	Backlog(ctx context.Context, after uint64) (natsio.Backlog, error)
	Close()
}

// openReader opens the reader of source sc from start. A WorkQueue or
// Interest stream is read through a durable consumer that is acknowledged
// only through completed checkpoints (ackSources), so a crash never loses
// a message the server would otherwise have removed.
//
// The reader refuses a stream other than the one the restored position
// belongs to (recreated after startSequence checked it), and accepts the
// gaps up to the stream's last sequence only when the run accepts gaps.
func (p *Pipeline) openReader(ctx context.Context, sc *config.Source, start uint64) (streamReader, *natsio.AckingSource, error) {
	st, err := p.conn.JS.Stream(ctx, sc.Stream)
	if err != nil {
		return nil, nil, fmt.Errorf("stream %s: %w", sc.Stream, err)
	}
	info := st.CachedInfo()
	created := p.restoredStreamCreated(sc)
	var through uint64
	if p.opts.Recovery.AcceptGaps {
		through = info.State.LastSeq
	}
	if info.Config.Retention == jetstream.LimitsPolicy {
		spec := natsio.SourceSpec{Stream: sc.Stream, FilterSubject: sc.Subject, StartSequence: start, StreamCreated: created, AcceptGapsThrough: through}
		e := p.exchangeOf(sc)
		if e != nil {
			if filters := p.exchangeFilters(e); filters != nil {
				spec.FilterSubject, spec.FilterSubjects = "", filters
			}
		}
		src, err := p.conn.OpenSource(ctx, spec)
		if err != nil || e == nil || p.feeds == nil {
			return src, nil, err
		}
		return p.shortcut(e, src, spec), nil, nil
	}
	ack, err := p.conn.OpenAckingSource(ctx, natsio.AckingSourceSpec{
		Stream: sc.Stream, Durable: durableName(p.cfg.Name, sc.Name), FilterSubject: sc.Subject, StartSequence: start,
		StreamCreated: created, AcceptGapsThrough: through})
	if err != nil {
		return nil, nil, err
	}
	p.logger.Info("source acknowledges through checkpoints", "source", sc.Name, "stream", sc.Stream,
		"retention", info.Config.Retention.String(), "durable", durableName(p.cfg.Name, sc.Name))
	return ack, ack, nil
}

// restoredStreamCreated is the creation time of the stream the restored
// checkpoint's position of sc belongs to; zero without one.
func (p *Pipeline) restoredStreamCreated(sc *config.Source) time.Time {
	if p.restored == nil {
		return time.Time{}
	}
	pos, ok := recovery.Source(p.restored.Manifest, sc.Name)
	if !ok {
		return time.Time{}
	}
	return pos.StreamCreated
}

// durableName is the server-side consumer of a pipeline's source.
func durableName(pipeline, source string) string {
	return "wasmstream_" + pipeline + "_" + source
}

// ackSources acknowledges, on every acking source, the messages checkpoint
// m covers. A failure is logged, not fatal: the acknowledgements of the
// next checkpoint cover these too, and a restart skips what the restored
// checkpoint covers.
func (p *Pipeline) ackSources(ctx context.Context, m checkpoint.Manifest) {
	resume := recovery.ResumePoints(m) // an unaligned snapshot may need records before a source's position
	for _, s := range p.sources {
		if s.acker == nil {
			continue
		}
		pos := resume[s.cfg.Name] - 1
		if resume[s.cfg.Name] == 0 || pos == 0 {
			continue
		}
		if err := s.acker.AckThrough(ctx, pos); err != nil {
			p.logger.Warn("acknowledging a source through its checkpoint failed; the next checkpoint acknowledges it",
				"source", s.cfg.Name, "checkpoint", m.ID, "sequence", pos, "error", err)
		}
	}
}
