package engine

import (
	"context"
	"slices"
	"time"
)

// pipelineView is what GET /api/pipeline answers and the web UI shows
// (docs/ui.md describes every field). Counters count since the pipeline
// was opened, like the metrics they mirror; rates are per second over the
// time since the previous request (rateMeter).
type pipelineView struct {
	Pipeline string `json:"pipeline"`
	// State is "ready" (/readyz answers 200), "not_ready" (Reason says
	// why) or "not_open" (starting, reopening or stopped).
	State       string          `json:"state"`
	Reason      string          `json:"reason,omitempty"`
	Time        time.Time       `json:"time"`
	Sources     []sourceView    `json:"sources"`
	Operators   []operatorView  `json:"operators"`
	Sinks       []sinkView      `json:"sinks"`
	Edges       []edgeView      `json:"edges"`
	Checkpoints checkpointsView `json:"checkpoints"`
	DeadLetters deadLettersView `json:"dead_letters"`
}

// checkpointsView are the checkpoint outcomes since Open and the history.
type checkpointsView struct {
	Completed    uint64 `json:"completed"`
	Failed       uint64 `json:"failed"`
	FailedOutage uint64 `json:"failed_outage"`
	// LastID is the last completed checkpoint's id; 0 before the first.
	LastID  uint64              `json:"last_id"`
	History []checkpointSummary `json:"history"` // newest first, at most checkpointHistoryLen
}

// deadLettersView are the newest dead letters of every operator, newest
// first; ReadError says why some could not be read (NATS away).
type deadLettersView struct {
	Recent    []deadLetterView `json:"recent"`
	ReadError string           `json:"read_error,omitempty"`
}

// view is the Observer's answer to /api/pipeline.
func (o *Observer) view(ctx context.Context) any {
	o.mu.RLock()
	defer o.mu.RUnlock()
	now := time.Now()
	if o.p == nil {
		return pipelineView{Pipeline: o.name, State: "not_open", Reason: o.idle, Time: now,
			Sources: []sourceView{}, Operators: []operatorView{}, Sinks: []sinkView{}, Edges: []edgeView{},
			Checkpoints: checkpointsView{History: []checkpointSummary{}}, DeadLetters: deadLettersView{Recent: []deadLetterView{}}}
	}
	v := o.p.view(ctx, now)
	v.applyRates(o.rates.measure(now, v.counts()))
	return v
}

// view reads the pipeline's configuration and counters; rates are left zero.
func (p *Pipeline) view(ctx context.Context, now time.Time) pipelineView {
	v := pipelineView{Pipeline: p.cfg.Name, State: "ready", Time: now}
	if why := p.notReady(now); why != "" {
		v.State, v.Reason = "not_ready", why
	}
	v.Sources = p.sourceViews(ctx)
	v.Operators = p.operatorViews()
	v.Sinks = p.sinkViews()
	v.Edges = graphEdges(v.Sources, v.Operators)
	v.Checkpoints = p.checkpointsView()
	v.DeadLetters = p.deadLettersView(ctx)
	return v
}

func (p *Pipeline) checkpointsView() checkpointsView {
	c := p.metrics.checkpointSnapshot()
	v := checkpointsView{Completed: c.completed, Failed: c.failed, FailedOutage: c.failedOutage, History: c.history.newestFirst()}
	if c.completed > 0 {
		v.LastID = c.last.ID
	}
	return v
}

func (p *Pipeline) deadLettersView(ctx context.Context) deadLettersView {
	v := deadLettersView{Recent: []deadLetterView{}}
	if !p.natsConnected() {
		v.ReadError = "not connected to NATS"
		return v
	}
	for _, op := range p.operators {
		recent, err := p.recentDeadLettersOf(ctx, op)
		if err != nil {
			v.ReadError = err.Error()
		}
		v.Recent = append(v.Recent, recent...)
	}
	slices.SortStableFunc(v.Recent, func(a, b deadLetterView) int { return b.Time.Compare(a.Time) })
	return v
}
