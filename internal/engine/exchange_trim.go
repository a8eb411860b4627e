package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/exchange/exchangejs"
	"github.com/wasmstream/wasmstream/natsio"
)

// trimExchanges purges each exchange stream below where every checkpoint on disk resumes it
// (FORMAT.md §2, "Trimming"): no restore, not even a rollback to the oldest, reads anything
// before. It runs after each completed checkpoint, before retention removes the oldest ones, so
// it lags one checkpoint behind; the next completion catches up. A failure is logged, not fatal:
// the stream only keeps more than it needs until the next one.
func (p *Pipeline) trimExchanges(ctx context.Context) {
	if len(p.exchanges) == 0 || p.opts.Cluster != nil {
		// A cluster part's data dir holds none of the cluster's checkpoints: the cluster
		// coordinator trims (TrimExchanges) after it collected garbage.
		return
	}
	root := CheckpointRoot(p.cfg)
	ids, err := checkpoint.List(root)
	if err != nil || len(ids) == 0 {
		p.logger.Warn("not trimming the exchange streams: the checkpoints cannot be listed", "error", err)
		return
	}
	retained := make([]checkpoint.Manifest, 0, len(ids))
	for _, id := range ids {
		m, err := checkpoint.Read(root, id)
		if err != nil {
			p.logger.Warn("not trimming the exchange streams: a checkpoint cannot be read", "checkpoint", id, "error", err)
			return
		}
		retained = append(retained, m)
	}
	trimmed, err := TrimExchanges(ctx, p.conn, p.cfg, retained...)
	if err != nil {
		p.logger.Warn("trimming an exchange stream failed; the next checkpoint tries again", "error", err)
	}
	if len(trimmed) > 0 {
		p.logger.Debug("exchange streams trimmed", "below", trimmed)
	}
}

// TrimExchanges purges each exchange stream of cfg below where every one of retained resumes
// it: retained must be every checkpoint a restore may still use (for a cluster, the retained
// cluster checkpoints). Every one, not only the oldest: a newer checkpoint can resume a stream
// earlier than an older one, as a cluster's resumes at the lowest position any worker
// reported, and a worker that joined or reads only its key groups' subjects may report an early
// one. A stream is left as it is when one of them holds no position of it, or one of a stream
// since recreated. It returns what it purged, and the errors of every stream joined.
func TrimExchanges(ctx context.Context, conn *natsio.Conn, cfg *config.Pipeline, retained ...checkpoint.Manifest) ([]Trimmed, error) {
	var (
		errs    []error
		trimmed []Trimmed
	)
	resumes := make([]map[string]uint64, len(retained))
	for i, m := range retained {
		resumes[i] = recovery.ResumePoints(m)
	}
	for _, ce := range configEdges(cfg) {
		below, ok := uint64(0), len(retained) > 0
		for i, m := range retained {
			if !positionOfStream(ctx, conn, m, ce) {
				ok = false
				break
			}
			if r := resumes[i][ce.input]; below == 0 || r < below {
				below = r
			}
		}
		if !ok {
			continue
		}
		if below < 2 {
			continue
		}
		if err := exchangejs.Trim(ctx, conn, ce.edge, below); err != nil {
			errs = append(errs, fmt.Errorf("exchange %s: %w", ce.edge, err))
			continue
		}
		trimmed = append(trimmed, Trimmed{Stream: ce.edge.StreamName(), Below: below})
	}
	return trimmed, errors.Join(errs...)
}

// Trimmed is one purge of TrimExchanges: the stream's messages below sequence Below.
type Trimmed struct {
	Stream string
	Below  uint64
}

// configEdge is an exchange edge of a config and the name of the source that reads it, which
// names its position in a checkpoint.
type configEdge struct {
	edge  exchange.Edge
	input string
}

// configEdges are the exchange edges of cfg, as the engine wires them (wireExchanges): the
// edges between operators, then the route edges of routed sources.
func configEdges(cfg *config.Pipeline) []configEdge {
	var edges []configEdge
	readers := map[string]bool{}
	for _, b := range cfg.Operators {
		for _, in := range b.Inputs {
			if r, ok := config.ParseInputRef(in); ok && r.IsOperatorOutput() {
				edges = append(edges, configEdge{edge: exchange.Edge{Pipeline: cfg.Name, Producer: r.Operator, Output: r.Output, Consumer: b.Name},
					input: exchangeSourceName(in, b.Name, !readers[in])})
				readers[in] = true
			}
		}
	}
	for _, sc := range cfg.Sources {
		if !sc.Route {
			continue
		}
		for _, b := range cfg.Operators {
			if slices.Contains(b.Inputs, sc.Name) {
				edges = append(edges, configEdge{edge: exchange.RouteEdge(cfg.Name, sc.Name, b.Name), input: routedSourceName(sc.Name, b.Name)})
			}
		}
	}
	return edges
}

// positionOfStream reports whether checkpoint m holds a position of e's stream as it is now:
// one of a stream since recreated says nothing about what the current one holds.
func positionOfStream(ctx context.Context, conn *natsio.Conn, m checkpoint.Manifest, ce configEdge) bool {
	pos, ok := recovery.Source(m, ce.input)
	if !ok || pos.Stream != ce.edge.StreamName() {
		return false
	}
	st, err := conn.JS.Stream(ctx, pos.Stream)
	return err == nil && st.CachedInfo().Created.Equal(pos.StreamCreated)
}
