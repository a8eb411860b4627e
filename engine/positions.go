package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/engine/config"
	"github.com/wasmstream/wasmstream/state"
)

// metaPositions holds the committed source positions: the last sequence of
// each source whose effects are in the committed state.
const metaPositions = "engine/positions"

// position is one source's committed position and the identity of its stream.
type position struct {
	Stream        string    `json:"stream"`
	Sequence      uint64    `json:"sequence"`
	StreamCreated time.Time `json:"stream_created"`
}

func loadPositions(store *state.Store) (map[string]position, error) {
	raw, ok, err := store.GetMeta(metaPositions)
	if err != nil || !ok {
		return map[string]position{}, err
	}
	var ps map[string]position
	if err := json.Unmarshal(raw, &ps); err != nil {
		return nil, fmt.Errorf("committed source positions in %s are unreadable: %w", store.Dir(), err)
	}
	return ps, nil
}

func putPositions(b *pebble.Batch, ps map[string]position) error {
	raw, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	return state.PutMeta(b, metaPositions, raw)
}

// startSequence returns where a source starts: after its committed position
// when there is one, else at the configured start. A committed position on a
// stream that was recreated is refused, never silently skipped.
func (p *Pipeline) startSequence(ctx context.Context, sc *config.Source, pos position) (uint64, error) {
	stream, err := p.conn.JS.Stream(ctx, sc.Stream)
	if err != nil {
		return 0, fmt.Errorf("%s: source %q: stream %q: %w (declare it in a stream block or create it on the server)", config.Pos(sc.Range), sc.Name, sc.Stream, err)
	}
	info := stream.CachedInfo()
	if pos.Sequence == 0 {
		return max(sc.StartSequence, 1), nil
	}
	if pos.Stream != sc.Stream || !pos.StreamCreated.Equal(info.Created) {
		return 0, fmt.Errorf("source %q: the committed position (stream %s created %s, sequence %d) does not belong to stream %s created %s: "+
			"the stream was recreated or the source changed; move or delete %s to start over",
			sc.Name, pos.Stream, pos.StreamCreated.Format(time.RFC3339Nano), pos.Sequence, sc.Stream, info.Created.Format(time.RFC3339Nano), p.cfg.DataDir)
	}
	if first := info.State.FirstSeq; info.State.Msgs > 0 && first > pos.Sequence+1 {
		return 0, fmt.Errorf("source %q: stream %s now starts at sequence %d but the committed position needs %d: messages were purged or expired before they were processed",
			sc.Name, sc.Stream, first, pos.Sequence+1)
	}
	p.logger.Info("resuming source after its committed position", "source", sc.Name, "stream", sc.Stream, "sequence", pos.Sequence+1)
	return pos.Sequence + 1, nil
}
