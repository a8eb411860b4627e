package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/natsio"
)

// Options configure one worker process.
type Options struct {
	// Config is the pipeline; its server block names the NATS cluster.
	Config *config.Pipeline
	// ID names the worker in the cluster: 1 to 64 letters, digits, '-' or
	// '_', unique among the pipeline's workers (default: host name and
	// process id).
	ID string
	// Logger receives the worker's and its pipeline's logs.
	Logger hclog.Logger
	// Engine is the base of the options each part's pipeline runs with
	// (Recovery and Cluster are set by the worker).
	Engine engine.Options
}

// ErrEmbedded: a worker needs a NATS cluster that all workers reach.
var ErrEmbedded = errors.New("wasmstream worker needs server.url")

// worker is one running worker process.
type worker struct {
	cfg    *config.Pipeline
	id     string
	log    hclog.Logger
	base   engine.Options
	conn   *natsio.Conn
	bucket *lease.Bucket
	obs    jetstream.ObjectStore
	ship   *ship.Shipper
	member *member.Member
	view   *member.Watcher
	subj   subjects
	// outcomes tells parts waiting in Persist how checkpoints ended.
	outcomes *outcomeBoard
	// wake makes the follower read the assignment at once (a trigger of a
	// newer epoch arrived).
	wake chan struct{}
	// timeout bounds one cluster checkpoint.
	timeout time.Duration
	// window is how long a read of the assignment lets a part publish (fence).
	window time.Duration
	// parts counts the parts started, naming their data dirs (follower only).
	parts int
	// running is how many parts run now (the follower sets it): a
	// leaving worker waits until none does.
	running atomic.Int32
}

// Run joins the pipeline's workers and runs the tasks the coordinator
// assigns to this worker until ctx ends (nil) or the worker must stop: its
// membership lease was lost (it self-fences), or NATS stayed unreachable.
func Run(ctx context.Context, o Options) error {
	w, err := start(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			// Stopped before it joined (e.g. while it waited out the lease
			// of an earlier process with its id): nothing ran.
			return nil
		}
		return err
	}
	defer w.close()
	for {
		err := w.serve(ctx)
		switch {
		case ctx.Err() != nil:
			w.log.Info("worker stopped", "worker", w.id)
			return nil
		case !errors.Is(err, lease.ErrLost):
			return err
		}
		// The membership lease may have expired (NATS unreachable, the
		// process frozen): the others may run this worker's tasks by now,
		// so serve stopped them. Join again as a new member.
		w.log.Warn("membership lease lost: this worker stopped its tasks and joins again", "worker", w.id, "error", err)
		if err := w.rejoin(ctx); err != nil {
			if ctx.Err() != nil {
				// Stopped while joining again (it waits out its old lease):
				// it runs no task, so this is a graceful stop.
				w.log.Info("worker stopped while joining again", "worker", w.id)
				return nil
			}
			return err
		}
	}
}

// serve runs the membership, the coordinator election and the follower
// until one of them fails, or ctx ended and the worker left (leave); every
// task is stopped when it returns.
func (w *worker) serve(ctx context.Context) error {
	live, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
			w.leave(live)
			cancel()
		case <-live.Done():
		}
	}()
	errs := make(chan error, 3)
	var wg sync.WaitGroup
	for _, loop := range []func(context.Context) error{w.member.Run, w.elect, w.follow} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- loop(live)
		}()
	}
	var first error
	select {
	case first = <-errs:
	case <-live.Done():
	}
	cancel()
	wg.Wait()
	return first
}

// leave hands this worker's tasks over before it stops (a SIGTERM): its
// heartbeats say it is leaving, so the coordinator plans without it,
// takes a handover checkpoint with it and moves its tasks, which then
// restore from that checkpoint instead of replaying from the last one,
// as after a crash. It returns once the worker runs no part, when no
// other worker stays to take the tasks, at leaveTimeout, or when ctx
// ends (the worker failed meanwhile).
func (w *worker) leave(ctx context.Context) {
	if w.running.Load() == 0 {
		return
	}
	w.member.Leave()
	w.log.Info("leaving: asking the coordinator to move this worker's tasks to the others", "worker", w.id)
	deadline := time.Now().Add(w.leaveTimeout())
	for {
		switch {
		case w.running.Load() == 0:
			w.log.Info("tasks handed over; stopping", "worker", w.id)
			return
		case len(othersStaying(w.view.View(), w.id)) == 0:
			w.log.Info("no other worker stays to take the tasks; stopping", "worker", w.id)
			return
		case time.Now().After(deadline):
			w.log.Warn("tasks not handed over in time; stopping: they move as after a crash", "worker", w.id, "waited", w.leaveTimeout())
			return
		}
		if sleep(ctx, 100*time.Millisecond) != nil {
			return
		}
	}
}

// leaveTimeout bounds a graceful leave: the stabilization delay, a
// handover checkpoint and the assignment's way to the workers.
func (w *worker) leaveTimeout() time.Duration {
	return w.cfg.Cluster.Stabilization + min(w.timeout, 30*time.Second) + 5*time.Second
}

// othersStaying are the alive workers other than id that are not leaving.
func othersStaying(v member.View, id string) []string {
	var out []string
	for _, o := range v.Staying() {
		if o != id {
			out = append(out, o)
		}
	}
	return out
}

// start connects, creates the cluster assets the protocol needs (never
// later, during a failure: design §4 consequence 1) and joins.
func start(ctx context.Context, o Options) (*worker, error) {
	cfg := o.Config
	if cfg.Server.URL == "" {
		return nil, fmt.Errorf("%w: workers share pipeline %q through a NATS JetStream cluster; set server { url = \"nats://a:4222,nats://b:4222,nats://c:4222\" } (wasmstream run serves one process with its embedded server)", ErrEmbedded, cfg.Name)
	}
	logger := o.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	id := o.ID
	if id == "" {
		id = defaultID()
	}
	w := &worker{cfg: cfg, id: id, log: logger, base: o.Engine, subj: subjectsOf(cfg.Name), outcomes: newOutcomeBoard(),
		wake: make(chan struct{}, 1), timeout: checkpointTimeout(cfg), window: confirmWindow(cfg.Cluster.WorkerTimeout, cfg.Cluster.Stabilization)}
	if err := w.connect(ctx); err != nil {
		w.close()
		return nil, err
	}
	w.warm(ctx)
	if err := w.join(ctx); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// warm compiles the operators before the worker joins (engine.WarmModules):
// the tasks a joining worker is given then start without a compile. A
// module that fails here fails again, with the same error, when its tasks
// start.
func (w *worker) warm(ctx context.Context) {
	started := time.Now()
	if err := engine.WarmModules(ctx, w.cfg, w.cacheDir(), w.base.Engine); err != nil {
		w.log.Warn("compiling the operators before joining failed", "error", err)
		return
	}
	w.log.Info("operators compiled", "worker", w.id, "duration", time.Since(started))
}

// checkpointTimeout bounds a cluster checkpoint: the config's timeout, at
// most a minute, so that one missing worker does not hold checkpoints for
// the single-process default of 10 minutes.
func checkpointTimeout(cfg *config.Pipeline) time.Duration {
	return min(cfg.Checkpoint.Timeout, time.Minute)
}

func defaultID() string {
	host, err := os.Hostname()
	if err != nil {
		host = "worker"
	}
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, host)
	return fmt.Sprintf("%.40s-%d", host, os.Getpid())
}

// BucketName is the control KV bucket of pipeline (design §5.0).
func BucketName(pipeline string) string { return "wasmstream-" + pipeline }

// ObjectStoreName is the Object Store bucket of pipeline's state.
func ObjectStoreName(pipeline string) string { return "wasmstream-" + pipeline + "-state" }

func (w *worker) connect(ctx context.Context) error {
	conn, err := engine.ConnectCluster(ctx, w.cfg, w.log)
	if err != nil {
		return err
	}
	w.conn = conn
	// Retried, like the control assets: a worker (re)started while a
	// stream's leader is being elected finds its lookup timing out.
	err = w.retryAsset(ctx, "declared streams", func() error { return engine.EnsureStreams(ctx, w.cfg, conn) })
	if err != nil {
		return err
	}
	replicas := w.cfg.Cluster.Replicas
	err = w.retryAsset(ctx, "control bucket", func() (err error) {
		w.bucket, err = lease.EnsureBucket(ctx, conn.JS, BucketName(w.cfg.Name), replicas)
		return err
	})
	if err != nil {
		return err
	}
	err = w.retryAsset(ctx, "state object store", func() (err error) {
		w.obs, err = conn.EnsureObjectStore(ctx, natsio.ObjectStoreSpec{Bucket: ObjectStoreName(w.cfg.Name), Replicas: replicas})
		return err
	})
	if err != nil {
		return err
	}
	dir := filepath.Join(w.cfg.DataDir, "cluster")
	if err := os.MkdirAll(dir, privatefs.DirMode); err != nil {
		return err
	}
	// Parts restore from the cluster's checkpoints: what an earlier
	// process left in their data dirs (or, before parts had data dirs of
	// their own, in the worker's) is of no use.
	if err := os.RemoveAll(partsDir(w.cfg)); err != nil {
		return err
	}
	if err := recovery.RemoveRunState(w.cfg.DataDir); err != nil {
		return err
	}
	// The upload index lists objects this worker saw in the bucket; the
	// coordinator's garbage collection may have deleted some while the
	// worker was down, and only running workers hear of it. Start afresh:
	// the first checkpoint then asks the bucket per file.
	index := filepath.Join(dir, "index")
	if err := os.RemoveAll(index); err != nil {
		return err
	}
	w.ship, err = ship.New(ctx, w.obs, ship.Options{IndexDir: index, CacheDir: filepath.Join(dir, "cache")})
	return err
}

// assetAttempts bounds the attempts to create or open an asset: several
// workers starting at once create the same R3 assets, and the meta leader
// answers some of them only after its timeout.
const assetAttempts = 5

// retryAsset runs ensure until it succeeds, a configuration error (which
// another attempt cannot mend: a bucket or stream that differs from the
// declaration) or assetAttempts.
func (w *worker) retryAsset(ctx context.Context, what string, ensure func() error) error {
	var err error
	for attempt := 1; attempt <= assetAttempts; attempt++ {
		if err = ensure(); err == nil || errors.Is(err, lease.ErrBucketConfig) || errors.Is(err, lease.ErrInvalid) || errors.Is(err, natsio.ErrStreamConflict) {
			break
		}
		w.log.Warn("creating a cluster asset failed; retrying", "asset", what, "attempt", attempt, "error", err)
		if serr := sleep(ctx, time.Duration(attempt)*time.Second); serr != nil {
			return serr
		}
	}
	if err != nil {
		return fmt.Errorf("pipeline %q: %s: %w", w.cfg.Name, what, err)
	}
	return nil
}

// join acquires the membership lease, waiting for the lease of an earlier
// process with the same id (killed, say) to expire, and starts watching
// the other members.
func (w *worker) join(ctx context.Context) error {
	if err := w.acquireMembership(ctx, false); err != nil {
		return err
	}
	giveUp := time.Now().Add(w.cfg.Server.OutageBudget)
	for {
		var err error
		w.view, err = member.Watch(ctx, w.bucket, w.conn.NC, w.cfg.Name, w.cfg.Cluster.WorkerTimeout)
		switch {
		case err == nil:
			w.log.Info("worker joined", "worker", w.id, "pipeline", w.cfg.Name, "server", w.conn.ClientURL())
			return nil
		case ctx.Err() != nil || !joinRetries(err, false, time.Now(), giveUp):
			return err
		}
		w.log.Warn("watching the pipeline's workers failed; retrying", "worker", w.id, "error", err)
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
}

// acquireMembership takes the membership lease, waiting out one that is
// still held (an earlier process with this id, or this one before it lost
// the lease). retry: other errors are retried too; without it only an
// outage is (a leader election, a frozen node: natsio.IsOutage), for up to
// server.outage_budget, so that a worker started during one joins after
// it instead of exiting.
func (w *worker) acquireMembership(ctx context.Context, retry bool) error {
	ttl := w.cfg.Cluster.LeaseTTL
	giveUp := time.Now().Add(w.cfg.Server.OutageBudget)
	for {
		m, err := member.Join(ctx, w.bucket, w.conn.NC, w.cfg.Name, w.id, ttl)
		switch {
		case err == nil:
			w.member = m
			return nil
		case errors.Is(err, lease.ErrHeld):
			w.log.Warn("waiting for the membership lease of an earlier worker with this id to expire", "worker", w.id, "lease_ttl", ttl)
		case ctx.Err() != nil || !joinRetries(err, retry, time.Now(), giveUp):
			return err
		default:
			w.log.Warn("joining the pipeline's workers failed; retrying", "worker", w.id, "error", err)
		}
		if err := sleep(ctx, lease.Margin(ttl)); err != nil {
			return err
		}
	}
}

// joinRetries says whether a failed join is tried again: always when
// retry, else an outage until giveUp.
func joinRetries(err error, retry bool, now, giveUp time.Time) bool {
	return retry || natsio.IsOutage(err) && !now.After(giveUp)
}

// rejoin takes a new membership lease after the old one was lost.
func (w *worker) rejoin(ctx context.Context) error {
	if err := w.acquireMembership(ctx, true); err != nil {
		return err
	}
	w.log.Info("worker joined again", "worker", w.id)
	return nil
}

func (w *worker) close() {
	if w.view != nil {
		w.view.Stop()
	}
	if w.conn != nil {
		w.conn.Close()
	}
}

// askAssignment makes the follower read the assignment now.
func (w *worker) askAssignment() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
