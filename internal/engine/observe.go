package engine

import (
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/observe"
)

// Observer serves the metrics, health and web UI of the pipeline a
// process runs (the observe block, docs/metrics.md, docs/ui.md). A command
// starts it before Open and passes it in Options.Observer; every pipeline
// opened with it attaches at the end of Open and detaches at the start of
// Close, so one endpoint spans the reopenings of an upgrade (Serve) or of
// a worker's reassignment. The metrics and the UI's view are read from the
// engine's own counters when asked for: no cost on the hot path but one
// histogram observation per guest batch.
type Observer struct {
	server *observe.Server
	name   string // the pipeline's name, for the metrics shown while none is attached

	mu sync.RWMutex
	// p is the attached pipeline, nil while none is open. Close waits for
	// the write lock, so a scrape never reads a pipeline being closed.
	p *Pipeline
	// idle says why nothing is attached, for /readyz.
	idle string
	// rates measures the UI's rates across requests (and reopenings).
	rates rateMeter
}

const (
	startingReason = "starting: compiling the operators, restoring the last checkpoint and positioning the sources"
	closedReason   = "no pipeline open: it stopped, or it is reopening (an upgrade, a new assignment of tasks)"
)

// StartObserver starts the endpoint cfg.Observe asks for; nil (and no
// error) when the pipeline has none. The error names observe.listen when
// the address cannot be listened on.
func StartObserver(cfg *config.Pipeline, logger hclog.Logger) (*Observer, error) {
	if !cfg.Observe.Enabled() {
		return nil, nil
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	o := &Observer{name: cfg.Name, idle: startingReason}
	reg := observe.NewRegistry()
	reg.MustRegister(observerCollector{o})
	srv, err := observe.Start(observe.Settings{Listen: cfg.Observe.Listen, Gatherer: reg, Ready: o.notReady, Pipeline: o.view,
		ErrorLog: logger.Named("observe").StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Warn})})
	if err != nil {
		return nil, fmt.Errorf("pipeline %q: %w", cfg.Name, err)
	}
	o.server = srv
	logger.Info("metrics and health endpoint listening", "ui", srv.URL()+"/", "metrics", srv.URL()+"/metrics", "ready", srv.URL()+"/readyz")
	return o, nil
}

// URL is the endpoint's base URL, e.g. "http://127.0.0.1:9464"; "" on nil.
func (o *Observer) URL() string {
	if o == nil {
		return ""
	}
	return o.server.URL()
}

// Close stops the endpoint. Safe on nil.
func (o *Observer) Close() {
	if o != nil {
		o.server.Close()
	}
}

// attach makes p the pipeline the endpoint reports on. It runs at the end
// of Open, before Run starts the tasks, so the tasks' metrics need no lock.
func (o *Observer) attach(p *Pipeline) {
	if o == nil {
		return
	}
	p.metrics.enable(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.p = p
}

// detach stops reporting on p before Close releases what the metrics read.
func (o *Observer) detach(p *Pipeline) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.p == p {
		o.p, o.idle = nil, closedReason
	}
}

// notReady is /readyz's check: the attached pipeline's, or why none is.
func (o *Observer) notReady() string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.p == nil {
		return o.idle
	}
	return o.p.notReady(time.Now())
}

// observerCollector reads the attached pipeline on every scrape. It is an
// unchecked collector (Describe sends nothing): the pipelines, and so the
// label values, change while the registry stays.
type observerCollector struct{ o *Observer }

func (observerCollector) Describe(chan<- *prometheus.Desc) {}

func (c observerCollector) Collect(ch chan<- prometheus.Metric) {
	c.o.mu.RLock()
	defer c.o.mu.RUnlock()
	ready := 0.0
	why := c.o.idle
	if c.o.p != nil {
		why = c.o.p.notReady(time.Now())
	}
	if why == "" {
		ready = 1
	}
	ch <- prometheus.MustNewConstMetric(descReady, prometheus.GaugeValue, ready, c.o.name)
	if c.o.p != nil {
		c.o.p.collect(ch)
	}
}
