// Package engine builds a pipeline from its config and runs it: sources
// from JetStream, operator tasks in wazero with host-owned keyed state in
// Pebble, outputs to JetStream, and the periodic sync that commits state and
// source positions together.
package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/engine/config"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/natsio"
	"github.com/wasmstream/wasmstream/state"
)

// Options tune a run. Zero fields take the defaults.
type Options struct {
	Logger hclog.Logger
	// Engine is wazero's engine: compiler (default) or interpreter.
	Engine host.Engine
	// SyncInterval is how often state and source positions are committed
	// together (default 5s). A crash replays from the last commit.
	SyncInterval time.Duration
	// StopWhenIdle ends the run after no source delivered anything for this
	// long (0 = run until the context ends).
	StopWhenIdle time.Duration
	// FetchBatch is the most records a source fetches at once (default 1024).
	FetchBatch int
	// ProgressInterval is how often progress is logged (default 10s).
	ProgressInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.SyncInterval <= 0 {
		o.SyncInterval = 5 * time.Second
	}
	if o.FetchBatch <= 0 {
		o.FetchBatch = 1024
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 10 * time.Second
	}
	return o
}

// Pipeline is a built, runnable pipeline.
type Pipeline struct {
	cfg       *config.Pipeline
	opts      Options
	logger    hclog.Logger
	conn      *natsio.Conn
	store     *state.Store
	sink      *natsio.Sink
	sources   []*source
	operators []*operator
	dead      deadLetters

	// gate: sources route under RLock; a sync takes Lock so it sees every
	// routed record and no half-routed chunk.
	gate     sync.RWMutex
	failed   chan struct{}
	failOnce sync.Once
	failErr  error
}

var errPipelineFailed = errors.New("pipeline stopped after a failure")

// Open compiles every operator, opens the state store, connects to NATS
// (starting the embedded server when the config names none), ensures the
// declared streams and positions every source after its last commit.
func Open(ctx context.Context, cfg *config.Pipeline, opts Options) (p *Pipeline, err error) {
	opts = opts.withDefaults()
	p = &Pipeline{cfg: cfg, opts: opts, logger: opts.Logger, failed: make(chan struct{})}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if err := p.compile(ctx); err != nil {
		return nil, err
	}
	if p.store, err = state.Open(filepath.Join(cfg.DataDir, "state"), state.Options{}); err != nil {
		return nil, fmt.Errorf("open state in %s: %w", cfg.DataDir, err)
	}
	if err := p.connect(ctx); err != nil {
		return nil, err
	}
	if err := p.dead.load(p.store, cfg.Operators); err != nil {
		return nil, err
	}
	for _, op := range p.operators {
		if err := op.startTasks(ctx, p.store); err != nil {
			return nil, err
		}
	}
	if err := p.openSources(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Pipeline) compile(ctx context.Context) error {
	for i := range p.cfg.Operators {
		oc := &p.cfg.Operators[i]
		rt, mod, err := compileOperator(ctx, p.cfg, oc, p.opts.Engine)
		if err != nil {
			return err
		}
		p.logger.Info("operator loaded", "operator", oc.Name, "module", oc.Module, "sha256", mod.Hash()[:16], "bytes", mod.Size())
		p.operators = append(p.operators, newOperator(p, oc, rt, mod))
	}
	return nil
}

// DeadLetterStream captures the default dead-letter subjects.
const DeadLetterStream = "WASMSTREAM_DLQ"

func (p *Pipeline) connect(ctx context.Context) error {
	conn, err := connectAndEnsure(ctx, p.cfg, serverOptions(p.cfg, p.logger))
	if err != nil {
		return err
	}
	p.conn = conn
	if conn.Embedded() {
		p.logger.Info("embedded JetStream server started", "url", conn.ClientURL(), "store", filepath.Join(p.cfg.DataDir, "jetstream"))
	}
	if _, err := conn.EnsureStream(ctx, natsio.StreamSpec{Name: DeadLetterStream, Subjects: []string{"wasmstream.dlq.>"}}); err != nil {
		return fmt.Errorf("dead-letter stream %s: %w", DeadLetterStream, err)
	}
	p.sink = conn.NewSink(4096)
	return nil
}

func (p *Pipeline) openSources(ctx context.Context) error {
	positions, err := loadPositions(p.store)
	if err != nil {
		return err
	}
	for i := range p.cfg.Sources {
		sc := &p.cfg.Sources[i]
		s := &source{p: p, index: len(p.sources), cfg: sc}
		s.consumers = p.consumersOf(sc.Name)
		if len(s.consumers) == 0 {
			p.logger.Warn("source feeds no operator; not reading it", "source", sc.Name)
			continue
		}
		start, err := p.startSequence(ctx, sc, positions[sc.Name])
		if err != nil {
			return err
		}
		if s.src, err = p.conn.OpenSource(ctx, natsio.SourceSpec{Stream: sc.Stream, FilterSubject: sc.Subject, StartSequence: start}); err != nil {
			return fmt.Errorf("%s: source %q: %w", config.Pos(sc.Range), sc.Name, err)
		}
		s.position.Store(start - 1)
		p.sources = append(p.sources, s)
	}
	return nil
}

func (p *Pipeline) consumersOf(name string) []consumer {
	var cs []consumer
	for _, op := range p.operators {
		for i, in := range op.cfg.Inputs {
			if in == name {
				cs = append(cs, consumer{op: op, input: uint32(i)})
			}
		}
	}
	return cs
}

// Close releases everything Open acquired. Safe on a partly opened pipeline.
func (p *Pipeline) Close() {
	ctx := context.Background()
	for _, s := range p.sources {
		if s.src != nil {
			s.src.Close()
		}
	}
	for _, op := range p.operators {
		op.close(ctx)
	}
	if p.store != nil {
		_ = p.store.Close()
	}
	if p.conn != nil {
		p.conn.Close()
	}
}

// ClientURL is where NATS clients reach the server the pipeline uses.
func (p *Pipeline) ClientURL() string { return p.conn.ClientURL() }

func (p *Pipeline) fail(err error) {
	p.failOnce.Do(func() {
		p.failErr = err
		close(p.failed)
	})
}

// failure returns the error that failed the pipeline, or nil.
func (p *Pipeline) failure() error {
	select {
	case <-p.failed:
		return p.failErr
	default:
		return nil
	}
}
