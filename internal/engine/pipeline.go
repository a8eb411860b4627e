package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/control"
	"github.com/wasmstream/wasmstream/internal/engine/coordinator"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

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
	exchanges []*exchangeEdge // the edges between operators (exchange_edges.go)
	// feeds are the exchange edges' local shortcut (exchange_shortcut.go), by subject prefix;
	// nil without it.
	feeds map[string]*exchangeFeed
	// generation tells this run's barrier markers from those of every earlier run
	// (FORMAT.md §5.2): for one process, the time Open started, in Unix nanoseconds; for a
	// cluster part, the newest generation of the cluster coordinators that triggered its
	// checkpoints (TriggerID), 0 before the first.
	generation atomic.Uint64
	dead       deadLetters
	exec       *execCollector // set by OpenExec: outputs and dead letters are collected, not published

	coord *coordinator.Driver
	// tasks lists every task of every operator; a task's report names
	// its index here. reports carries reports to the coordinator.
	tasks   []*task
	reports reports
	crash   *crashpoint.Points // WASMSTREAM_CRASH_POINT, for crash tests; nil when unset
	// outboxRecommitted counts transactional outputs re-sent one by one
	// because their batch was found already committed.
	outboxRecommitted atomic.Uint64
	// transactionalPublished counts transactional outputs made visible.
	transactionalPublished atomic.Uint64
	// publishedOnce: a publication of transactional outputs succeeded in
	// this run and none failed since, so no batch of the next can still be
	// open on the server (natsio.BatchFlight.Again).
	publishedOnce atomic.Bool

	restored     *recovery.Plan // nil when the run started from empty state
	recoveryTime time.Duration
	skipped      atomic.Uint64   // replayed records a restored snapshot already held
	control      *control.Server // trigger and upgrade requests
	queries      *queryServer    // live state queries (query.go)
	// upgrade is an accepted upgrade; upgradeStop ends Run for it.
	upgrade     *plannedUpgrade
	upgradeStop chan struct{}
	upgradeOnce sync.Once
	// cleanRestore: the restored checkpoint is the final one of a graceful
	// stop, so nothing is replayed.
	cleanRestore bool
	// idleStopped: the run stopped as idle (--stop-when-idle); Run then
	// checks that nothing arrived before the final checkpoint.
	idleStopped bool
	lock        *os.File      // the data dir's lock, held until Close
	stopped     chan struct{} // closed when Run returns
	closeOnce   sync.Once
	failed      chan struct{}
	// abandoned is closed when a cluster part stops: its tasks drop what
	// they hold, and the sources stop routing to them (run.go).
	abandoned  chan struct{}
	failOnce   sync.Once
	failErr    error
	gateCtx    context.Context // ends when the pipeline failed, stopped or closed (watchFailure)
	gateCancel context.CancelFunc
	metrics    pipelineMetrics // what only metrics need (observe_metrics.go)
}

var errPipelineFailed = coordinator.ErrStopped

// Open compiles every operator, opens the state store, connects to NATS
// (starting the embedded server when the config names none), ensures the
// declared streams and positions every source after its last commit.
func Open(ctx context.Context, cfg *config.Pipeline, opts Options) (_ *Pipeline, err error) {
	started := time.Now()
	opts = opts.withDefaults(cfg)
	p := &Pipeline{cfg: cfg, opts: opts, logger: opts.Logger, failed: make(chan struct{}), abandoned: make(chan struct{}), stopped: make(chan struct{}), crash: crashpoint.FromEnv(), upgradeStop: make(chan struct{})}
	if opts.Cluster == nil {
		p.generation.Store(uint64(started.UnixNano()))
	}
	defer func() {
		if err != nil {
			p.Close() // p, not the nil the failed return sets
		}
	}()
	if opts.Cluster != nil {
		if err := opts.Cluster.validate(cfg); err != nil {
			return nil, err
		}
	}
	p.watchFailure()
	if p.lock, err = recovery.Lock(cfg.DataDir); err != nil {
		return nil, err
	}
	for _, w := range recovery.CheckPrivate(cfg.DataDir) {
		p.logger.Warn(w)
	}
	if err := importFromSavepoint(ctx, cfg, &p.opts.Recovery, p.logger); err != nil {
		return nil, err
	}
	if hasRegistryModules(cfg) {
		// The registry lives on the pipeline's server: connect first.
		if err := p.connect(ctx); err != nil {
			return nil, err
		}
		if err := resolveModules(ctx, cfg, p.conn, p.logger); err != nil {
			return nil, err
		}
	}
	if err := p.compile(ctx); err != nil {
		return nil, err
	}
	if err := p.wireExchanges(); err != nil {
		return nil, err
	}
	p.wireFeeds()
	plan, lastID, err := p.planRecovery()
	if err != nil {
		return nil, err
	}
	p.restored = plan
	cleanID, clean := recovery.TakeCleanStop(cfg.DataDir)
	p.cleanRestore = plan != nil && clean && cleanID == plan.Manifest.ID
	if err := p.checkRouting(); err != nil {
		return nil, err
	}
	if p.conn == nil {
		if err := p.connect(ctx); err != nil {
			return nil, err
		}
	}
	p.warnDuplicateWindows(ctx)
	if err := p.ensureExchanges(ctx); err != nil {
		return nil, err
	}
	if err := p.openState(ctx); err != nil {
		return nil, err
	}
	if err := p.openSources(ctx); err != nil {
		return nil, err
	}
	if err := p.prepareTaskPositions(); err != nil {
		return nil, err
	}
	if p.coord, err = p.newCoordinator(lastID); err != nil {
		return nil, err
	}
	if p.opts.Cluster == nil {
		// A cluster's workers take triggers from its coordinator.
		if p.control, err = control.Serve(p.conn.NC, p.cfg.Name, p.opts.Checkpoint.Timeout, p); err != nil {
			return nil, err
		}
		if p.queries, err = p.serveQueries(); err != nil {
			return nil, err
		}
	}
	if plan != nil {
		p.recoveryTime = time.Since(started)
		p.logger.Info("checkpoint restored", "checkpoint", plan.Manifest.ID, "recovery_time", p.recoveryTime)
	}
	p.opts.Observer.attach(p)
	return p, nil
}

// openState rebuilds the live state from the restored checkpoint (or
// empties it), opens it and starts every operator's tasks on it.
func (p *Pipeline) openState(ctx context.Context) error {
	if p.restored != nil {
		if err := p.checkSourcesBeforeRestore(ctx); err != nil {
			return err
		}
	}
	if err := recovery.PrepareLiveState(p.cfg.DataDir, p.restored); err != nil {
		return err
	}
	var err error
	if p.store, err = state.Open(liveStateDir(p.cfg.DataDir), state.Options{FS: p.opts.FS}); err != nil {
		return fmt.Errorf("open state in %s: %w", p.cfg.DataDir, err)
	}
	if err := p.dead.load(p.store, p.cfg.Operators); err != nil {
		return err
	}
	for _, op := range p.operators {
		if err := op.migrateState(ctx, p.store); err != nil {
			return err
		}
		if err := op.startTasks(ctx, p.store); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pipeline) compile(ctx context.Context) error {
	for i := range p.cfg.Operators {
		oc := &p.cfg.Operators[i]
		rt, mod, err := compileOperator(ctx, p.compilationCache(), oc, p.opts.Engine)
		if err != nil {
			return err
		}
		p.logger.Info("operator loaded", "operator", oc.Name, "module", oc.Module, "sha256", mod.Hash()[:16], "bytes", mod.Size())
		op := newOperator(p, oc, rt, mod)
		p.operators = append(p.operators, op)
		if err := op.probeDeclarations(ctx); err != nil {
			return fmt.Errorf("%s: operator %q: %w", config.Pos(oc.ModuleRange), oc.Name, err)
		}
	}
	return nil
}

// DeadLetterStream captures the default dead-letter subjects.
const DeadLetterStream = config.DeadLetterStream

func (p *Pipeline) connect(ctx context.Context) error {
	opts, err := ownerOptions(p.cfg, p.logger)
	if err != nil {
		return err
	}
	opts.NoReconnectBuffer = p.opts.Cluster != nil // clusterpart.go: publishes only through the gate
	conn, err := connectAndEnsure(ctx, p.cfg, opts)
	if err != nil {
		return err
	}
	p.conn = conn
	if conn.Embedded() {
		p.logger.Info("embedded JetStream server started", "url", conn.ClientURL(), "store", filepath.Join(p.cfg.DataDir, "jetstream"),
			"nkeys", auth.Dir(p.cfg.DataDir))
	}
	if err := EnsureDeadLetterStream(ctx, p.cfg, conn); err != nil {
		return err
	}
	so := natsio.SinkOptions{MaxPending: 4096, OutageBudget: outageBudget(p.cfg), BeforeResend: p.resendGate()}
	if p.feeds != nil {
		so.OnStored = p.feedStored
	}
	p.sink = conn.NewSinkWith(so)
	return nil
}

func (p *Pipeline) openSources(ctx context.Context) error {
	for _, sc := range p.sourceConfigs() {
		s := &source{p: p, index: len(p.sources), cfg: sc, eventID: eventIDExtractor(sc), barriers: make(chan barrierRequest, 1)}
		if e := p.exchangeOf(sc); e != nil {
			s.xin = newExchangeInput(e, p.generation.Load(), p.opts.Cluster != nil)
		}
		s.consumers, s.routes = p.sourceReaders(sc)
		switch {
		case len(s.routes) > 0 && !p.runsRouter(s.routes):
			p.logger.Debug("another worker runs the router of the source; not reading it", "source", sc.Name)
			continue
		case len(s.routes) > 0:
		case len(s.consumers) == 0:
			p.logger.Warn("source feeds no operator; not reading it", "source", sc.Name)
			continue
		case !p.runsAnyTaskOf(s.consumers):
			// A cluster part reads only what its tasks need: a stage that runs on other
			// workers costs this one no reads of its inputs.
			p.logger.Debug("no task of this part reads the source; not reading it", "source", sc.Name)
			continue
		}
		start, err := p.startSequence(ctx, sc, false)
		if err != nil {
			return err
		}
		if s.src, s.acker, err = p.openReader(ctx, sc, start.sequence); err != nil {
			return fmt.Errorf("%s: source %q: %w", config.Pos(sc.Range), sc.Name, err)
		}
		if s.acker != nil && p.opts.Cluster != nil {
			s.src.Close()
			return fmt.Errorf("%s: source %q (stream %s): %w: every worker reads the whole stream and keeps its own key groups", config.Pos(sc.Range), sc.Name, sc.Stream, errClusterSource)
		}
		s.position.Store(start.sequence - 1)
		if start.sequence <= start.replayUntil && !p.cleanRestore {
			s.replayUntil = start.replayUntil
		}
		p.sources = append(p.sources, s)
	}
	return nil
}

// checkSourcesBeforeRestore runs the stream checks of every source before
// the live state is replaced, so a refused restore changes nothing.
func (p *Pipeline) checkSourcesBeforeRestore(ctx context.Context) error {
	for _, sc := range p.sourceConfigs() {
		if _, err := p.startSequence(ctx, sc, true); err != nil {
			return err
		}
	}
	return nil
}

// sourceIndex maps source names to their index in p.sources.
func (p *Pipeline) sourceIndex() map[string]int {
	index := map[string]int{}
	for _, s := range p.sources {
		index[s.cfg.Name] = s.index
	}
	return index
}

// newCoordinator numbers the tasks for their reports and builds the
// coordinator driver on the pipeline's effects.
func (p *Pipeline) newCoordinator(lastCompleted uint64) (*coordinator.Driver, error) {
	for _, op := range p.operators {
		for _, t := range op.tasks {
			t.global = len(p.tasks)
			p.tasks = append(p.tasks, t)
		}
	}
	p.reports = make(reports, reportCapacity(len(p.sources), len(p.tasks)))
	c := p.opts.Checkpoint
	return coordinator.New(coordinator.Config{
		Protocol: protocol.CoordinatorConfig{Sources: len(p.sources), Tasks: len(p.tasks), Mode: c.Mode, Interval: c.Interval, Timeout: c.Timeout,
			MinPause: c.MinPause, MaxFailures: coordinator.MaxFailuresInARow, OutageBudget: outageBudget(p.cfg), MaxUnpublished: p.maxUnpublished(),
			FirstID: lastCompleted + 1, Where: CheckpointRoot(p.cfg), Server: p.conn.ClientURL(), Clock: c.Clock},
		Root: CheckpointRoot(p.cfg), Retain: c.Retain, Restored: p.restoredID(), Logger: p.logger, Crash: p.crash, Reports: p.reports, Effects: checkpointEffects{p},
		Outage: natsio.IsOutage, Part: p.opts.Cluster != nil, Completed: p.metrics.checkpointCompleted, Failed: p.metrics.checkpointFailed,
	})
}

// prepareTaskPositions tells every task where its inputs start (its state
// holds every record before: a snapshot taken before an input's first
// record must not claim less), and gives the tasks of an operator restored
// from an unaligned snapshot the records to skip on replay.
func (p *Pipeline) prepareTaskPositions() error {
	for _, s := range p.sources {
		for _, c := range s.consumers {
			op := c.op
			for _, t := range op.tasks {
				if err := t.ck.proto.Processed(int(c.input), s.position.Load()); err != nil {
					return fmt.Errorf("operator %q task %d: %w", op.cfg.Name, t.index, err)
				}
			}
		}
	}
	if p.restored == nil {
		return nil
	}
	index := p.sourceIndex()
	for _, op := range p.operators {
		e, ok := recovery.Operator(p.restored.Manifest, op.cfg.Name)
		if !ok {
			continue
		}
		if st := newSkipTable(e, index, p.restored.Resume); st != nil {
			for _, t := range op.tasks {
				t.skip = st
			}
		}
	}
	return nil
}

// sourceReaders are who reads sc: the operators' inputs it feeds, or the route edges its router
// publishes into (a routed source), or the one input the edge of an exchange source feeds.
func (p *Pipeline) sourceReaders(sc *config.Source) ([]consumer, []*exchangeEdge) {
	if e := p.exchangeOf(sc); e != nil {
		return []consumer{{op: e.consumer, input: e.input}}, nil
	}
	if sc.Route {
		return nil, p.routesOf(sc)
	}
	return p.consumersOf(sc.Name), nil
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
	p.closeOnce.Do(p.close)
}

func (p *Pipeline) close() {
	p.opts.Observer.detach(p) // waits for a scrape reading p
	ctx := context.Background()
	if p.gateCancel != nil {
		p.gateCancel()
	}
	p.control.Close()
	p.queries.Close()
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
	if p.lock != nil {
		_ = p.lock.Close() // releases the flock
	}
}

// ClientURL is where NATS clients reach the server the pipeline uses.
func (p *Pipeline) ClientURL() string { return p.conn.ClientURL() }

// Reach returns options that connect another client to the pipeline's
// server with the pipeline's own (control) credentials.
func (p *Pipeline) Reach() natsio.ServerOptions { return p.conn.Reach() }

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
