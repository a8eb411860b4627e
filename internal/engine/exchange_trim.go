package engine

import (
	"context"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/exchange/exchangejs"
)

// trimExchanges purges each exchange stream below where the oldest checkpoint on disk resumes
// it (FORMAT.md §2, "Trimming"): no restore, not even a rollback to that checkpoint, reads
// anything before. It runs after each completed checkpoint, before retention removes the
// oldest ones, so it lags one checkpoint behind; the next completion catches up. A failure is
// logged, not fatal: the stream only keeps more than it needs until the next one.
func (p *Pipeline) trimExchanges(ctx context.Context) {
	if len(p.exchanges) == 0 {
		return
	}
	root := CheckpointRoot(p.cfg)
	ids, err := checkpoint.List(root)
	if err != nil || len(ids) == 0 {
		p.logger.Warn("not trimming the exchange streams: the checkpoints cannot be listed", "error", err)
		return
	}
	oldest, err := checkpoint.Read(root, ids[len(ids)-1])
	if err != nil {
		p.logger.Warn("not trimming the exchange streams: the oldest checkpoint cannot be read", "checkpoint", ids[len(ids)-1], "error", err)
		return
	}
	resume := recovery.ResumePoints(oldest)
	for _, e := range p.exchanges {
		if !p.positionOfStream(ctx, oldest, e) {
			continue
		}
		if err := exchangejs.Trim(ctx, p.conn, e.edge, resume[e.source.Name]); err != nil {
			p.logger.Warn("trimming an exchange stream failed; the next checkpoint tries again", "checkpoint", oldest.ID, "error", err)
		}
	}
}

// positionOfStream reports whether checkpoint m holds a position of e's stream as it is now:
// one of a stream since recreated says nothing about what the current one holds.
func (p *Pipeline) positionOfStream(ctx context.Context, m checkpoint.Manifest, e *exchangeEdge) bool {
	pos, ok := recovery.Source(m, e.source.Name)
	if !ok || pos.Stream != e.source.Stream {
		return false
	}
	st, err := p.conn.JS.Stream(ctx, e.source.Stream)
	return err == nil && st.CachedInfo().Created.Equal(pos.StreamCreated)
}
