package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// sourceView is a source: where it reads and how far it is.
type sourceView struct {
	Name      string  `json:"name"`
	Stream    string  `json:"stream"`
	Subject   string  `json:"subject,omitempty"` // filter; "" reads every subject of the stream
	RecordsIn uint64  `json:"records_in"`
	PerSec    float64 `json:"records_per_sec"`
	Replayed  uint64  `json:"replayed"`
	Position  uint64  `json:"position"` // last stream sequence routed to the tasks
	// Pending is the stream's backlog for the source (its lag in records);
	// nil when NATS could not say (away, or slower than the request allows).
	Pending *uint64 `json:"pending"`
}

// operatorView is an operator: its module, its wiring and its counters.
type operatorView struct {
	Name           string            `json:"name"`
	Inputs         []string          `json:"inputs"`  // source names
	Outputs        map[string]string `json:"outputs"` // guest output -> sink name
	Parallelism    int               `json:"parallelism"`
	Tasks          int               `json:"tasks"` // run by this process (a cluster worker runs some)
	MaxParallelism int               `json:"max_parallelism"`
	Module         string            `json:"module"` // the file, or the registry reference it came from
	ModuleSHA256   string            `json:"module_sha256"`
	ModuleBytes    int               `json:"module_bytes"`
	// StateVersion is the config's state_version; StateVersions what the
	// module declared for its named states (ABI 1.1).
	StateVersion  string           `json:"state_version,omitempty"`
	StateVersions map[string]int32 `json:"state_versions"`
	Processed     uint64           `json:"records_processed"`
	PerSec        float64          `json:"records_per_sec"`
	Emitted       uint64           `json:"outputs_emitted"`
	EmittedPerSec float64          `json:"outputs_per_sec"`
	Restarts      uint64           `json:"instance_restarts"`
	// DeadLetters counts the dead letters published; ByReason splits
	// them by the reasons of wasmstream_dead_letters_total, zeros left out.
	DeadLetters       uint64            `json:"dead_letters"`
	ByReason          map[string]uint64 `json:"dead_letters_by_reason"`
	DeadLetterSubject string            `json:"dead_letter_subject"`
}

// sinkView is a sink.
type sinkView struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Mode    string `json:"mode"`
}

// edgeView is an arrow of the graph: a source feeding an operator, or an
// operator's output going to a sink. Records and rate are the source's
// records for the first kind and the operator's outputs for the second,
// when it has one sink; nil when they cannot be split per sink (the
// engine counts outputs per task, not per output).
type edgeView struct {
	From    string   `json:"from"` // "source:NAME" or "operator:NAME"
	To      string   `json:"to"`   // "operator:NAME" or "sink:NAME"
	Records *uint64  `json:"records"`
	PerSec  *float64 `json:"records_per_sec"`
	Pending *uint64  `json:"pending,omitempty"` // the source's backlog
	rateKey string   // the counts key of Records (pipelineView.counts)
}

func (p *Pipeline) sourceViews(ctx context.Context) []sourceView {
	ctx, cancel := context.WithTimeout(ctx, pendingTimeout)
	defer cancel()
	connected := p.natsConnected()
	views := make([]sourceView, 0, len(p.sources))
	for _, s := range p.sources {
		pos := s.position.Load()
		v := sourceView{Name: s.cfg.Name, Stream: s.cfg.Stream, Subject: s.cfg.Subject, RecordsIn: s.read.Load(), Replayed: s.replayed.Load(), Position: pos}
		if connected && ctx.Err() == nil {
			if b, err := s.src.Backlog(ctx, pos); err == nil && !b.Unknown {
				pending := b.Undelivered + b.Unfetched
				v.Pending = &pending
			}
		}
		views = append(views, v)
	}
	return views
}

func (p *Pipeline) operatorViews() []operatorView {
	byReason := p.metrics.deadLettersByReason()
	views := make([]operatorView, 0, len(p.operators))
	for _, op := range p.operators {
		c := op.cfg
		v := operatorView{Name: c.Name, Inputs: slices.Clone(c.Inputs), Outputs: maps.Clone(c.Outputs), Parallelism: c.Parallelism,
			Tasks: len(op.tasks), MaxParallelism: c.MaxParallelism, Module: moduleName(c), ModuleSHA256: op.module.Hash(),
			ModuleBytes: op.module.Size(), StateVersion: c.StateVersion, StateVersions: map[string]int32{},
			DeadLetters: p.dead.publishedBy(c.Name), ByReason: map[string]uint64{}, DeadLetterSubject: c.DeadLetterSubject}
		for _, d := range op.declared {
			v.StateVersions[d.Name] = d.Version
		}
		for _, t := range op.tasks {
			v.Processed += t.processed.Load()
			v.Emitted += t.emitted.Load()
			v.Restarts += t.restarts.Load()
		}
		for _, reason := range deadLetterReasonLabels {
			if n := byReason[deadReasonKey{c.Name, reason}]; n > 0 {
				v.ByReason[reason] = n
			}
		}
		views = append(views, v)
	}
	return views
}

// moduleName is the registry reference the config named, else the file.
func moduleName(c *config.Operator) string {
	if c.ModuleRef != "" {
		return c.ModuleRef
	}
	return c.Module
}

func (p *Pipeline) sinkViews() []sinkView {
	views := make([]sinkView, 0, len(p.cfg.Sinks))
	for _, s := range p.cfg.Sinks {
		views = append(views, sinkView{Name: s.Name, Subject: s.Subject, Mode: s.Mode})
	}
	return views
}

// graphEdges lists the arrows, in the order of the operators.
func graphEdges(sources []sourceView, ops []operatorView) []edgeView {
	bySource := map[string]*sourceView{}
	for i := range sources {
		bySource[sources[i].Name] = &sources[i]
	}
	edges := []edgeView{}
	for _, op := range ops {
		for _, in := range op.Inputs {
			e := edgeView{From: "source:" + in, To: "operator:" + op.Name, rateKey: "source:" + in}
			if s := bySource[in]; s != nil {
				e.Records, e.Pending = &s.RecordsIn, s.Pending
			}
			edges = append(edges, e)
		}
		sinks := slices.Compact(slices.Sorted(maps.Values(op.Outputs)))
		for _, sink := range sinks {
			e := edgeView{From: "operator:" + op.Name, To: "sink:" + sink, rateKey: "outputs:" + op.Name}
			if len(sinks) == 1 {
				e.Records = &op.Emitted
			}
			edges = append(edges, e)
		}
	}
	return edges
}

// counts are the counters the rates are measured on, by a key per counter.
func (v *pipelineView) counts() map[string]uint64 {
	c := map[string]uint64{}
	for _, s := range v.Sources {
		c["source:"+s.Name] = s.RecordsIn
	}
	for _, op := range v.Operators {
		c["operator:"+op.Name] = op.Processed
		c["outputs:"+op.Name] = op.Emitted
	}
	return c
}

// applyRates fills the rates in from rates (rateMeter.measure of counts).
func (v *pipelineView) applyRates(rates map[string]float64) {
	for i := range v.Sources {
		v.Sources[i].PerSec = rates["source:"+v.Sources[i].Name]
	}
	for i := range v.Operators {
		op := &v.Operators[i]
		op.PerSec, op.EmittedPerSec = rates["operator:"+op.Name], rates["outputs:"+op.Name]
	}
	for i := range v.Edges {
		e := &v.Edges[i]
		if e.Records == nil {
			continue
		}
		rate := rates[e.rateKey]
		e.PerSec = &rate
	}
}
