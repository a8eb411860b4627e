package engine

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// pipelineMetrics holds what the engine counts only for metrics: dead
// letters by reason and checkpoint outcomes are counted always (they are
// rare); the histograms exist only once an Observer attached the pipeline
// (enable), so that a pipeline without an endpoint pays nothing per batch.
type pipelineMetrics struct {
	mu           sync.Mutex
	deadByReason map[deadReasonKey]uint64
	checkpoints  checkpointCounts
	// The last checkpoint persisted and the last whose transactional
	// outputs were published: their difference is the epoch lag.
	persistedEpoch, publishedEpoch atomic.Uint64

	// Set by enable, before Run; nil without an Observer.
	attached                     time.Time
	batch                        *prometheus.HistogramVec
	ckDuration, ckAlign, ckPause prometheus.Histogram
}

// epochPersisted notes that checkpoint id is durable, unless err says it
// is not; it returns err (the coordinator's PersistCheckpoint effect).
func (m *pipelineMetrics) epochPersisted(id uint64, err error) error {
	if err == nil {
		// The run's first: the checkpoints before it are published (the
		// restored one at the start of Run), so the lag counts from here.
		m.publishedEpoch.CompareAndSwap(0, id-1)
		m.persistedEpoch.Store(id)
	}
	return err
}

// epochPublished notes that the transactional outputs of checkpoint id
// are visible, unless err says they are not; it returns err.
func (m *pipelineMetrics) epochPublished(id uint64, err error) error {
	if err == nil {
		m.publishedEpoch.Store(id)
	}
	return err
}

// epochLag is how many durable checkpoints have transactional outputs
// not yet visible (a publication deferred by an outage).
func (m *pipelineMetrics) epochLag() uint64 {
	persisted, published := m.persistedEpoch.Load(), m.publishedEpoch.Load()
	if persisted <= published {
		return 0
	}
	return persisted - published
}

// checkpointCounts are the checkpoint outcomes since Open.
type checkpointCounts struct {
	completed, failed, failedOutage uint64
	bytesNew                        uint64 // sum of the completed ones' new bytes
	last                            checkpoint.Manifest
	lastAt                          time.Time // when the last one completed
	history                         checkpointHistory
}

type deadReasonKey struct{ operator, reason string }

// Histogram buckets: a guest batch takes from tens of microseconds to the
// batch timeout; a checkpoint from milliseconds to its timeout; a pause
// or an alignment from nothing to seconds.
var (
	batchBuckets      = prometheus.ExponentialBuckets(0.0001, 4, 9) // 100µs .. 6.5s
	checkpointBuckets = prometheus.ExponentialBuckets(0.005, 4, 9)  // 5ms .. 5.5m
	pauseBuckets      = prometheus.ExponentialBuckets(0.0005, 4, 9) // 0.5ms .. 33s
)

// enable creates the histograms and the tasks' metrics (Observer.attach).
func (m *pipelineMetrics) enable(p *Pipeline) {
	name := p.cfg.Name
	m.attached = time.Now()
	m.loadCheckpointHistory(CheckpointRoot(p.cfg))
	m.batch = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "wasmstream_task_batch_duration_seconds",
		Help: "Time to process one guest batch: guest calls, output checks and handing the outputs to the sink.", Buckets: batchBuckets},
		[]string{"pipeline", "operator", "task"})
	m.ckDuration = newCheckpointHistogram(name, "wasmstream_checkpoint_duration_seconds", "Time from a checkpoint's trigger to its completion.", checkpointBuckets)
	m.ckAlign = newCheckpointHistogram(name, "wasmstream_checkpoint_alignment_seconds", "Longest barrier alignment of any task in a checkpoint.", pauseBuckets)
	m.ckPause = newCheckpointHistogram(name, "wasmstream_checkpoint_pause_seconds", "Longest processing pause (state snapshot) of any task in a checkpoint.", pauseBuckets)
	for _, t := range p.tasks {
		t.metrics = &taskMetrics{batch: m.batch.WithLabelValues(name, t.op.cfg.Name, strconv.Itoa(t.index))}
	}
}

func newCheckpointHistogram(pipeline, name, help string, buckets []float64) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets,
		ConstLabels: prometheus.Labels{"pipeline": pipeline}})
}

// checkpointCompleted is the coordinator's Completed hook.
func (m *pipelineMetrics) checkpointCompleted(man checkpoint.Manifest) {
	m.mu.Lock()
	c := &m.checkpoints
	c.completed++
	c.bytesNew += uint64(max(man.Metrics.BytesNew, 0))
	c.last, c.lastAt = man, time.Now()
	c.history.add(summarizeCheckpoint(man, c.lastAt))
	m.mu.Unlock()
	if m.ckDuration != nil {
		m.ckDuration.Observe(time.Duration(man.Metrics.DurationNanos).Seconds())
		m.ckAlign.Observe(time.Duration(man.Metrics.AlignmentNanos).Seconds())
		m.ckPause.Observe(time.Duration(man.Metrics.MaxPauseNanos).Seconds())
	}
}

// loadCheckpointHistory starts the history with the checkpoints in root.
func (m *pipelineMetrics) loadCheckpointHistory(root string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checkpoints.history.load(root)
}

// checkpointFailed is the coordinator's Failed hook.
func (m *pipelineMetrics) checkpointFailed(outage bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if outage {
		m.checkpoints.failedOutage++
	} else {
		m.checkpoints.failed++
	}
}

// checkpointSnapshot copies the counts (the history's rows are never
// changed in place, checkpointHistory.add).
func (m *pipelineMetrics) checkpointSnapshot() checkpointCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.checkpoints
}

// taskMetrics are a task's hot-path metrics, written by its goroutine.
// nil when the pipeline has no Observer: every method is then a no-op.
type taskMetrics struct {
	batch      prometheus.Observer
	guestNanos atomic.Int64
	// The state cache's counters, copied after each batch (the backend
	// belongs to the task goroutine).
	cacheHits, cacheMisses atomic.Uint64
	cacheEntries           atomic.Int64
}

// start is the time a measured span begins; zero when not measured.
func (m *taskMetrics) start() time.Time {
	if m == nil {
		return time.Time{}
	}
	return time.Now()
}

// guestDone adds the time since began to the guest call time.
func (m *taskMetrics) guestDone(began time.Time) {
	if m != nil {
		m.guestNanos.Add(int64(time.Since(began)))
	}
}

// batchDone observes a batch begun at began and copies the cache counters.
func (t *task) batchDone(began time.Time) {
	m := t.metrics
	if m == nil {
		return
	}
	m.batch.Observe(time.Since(began).Seconds())
	s := t.backend.Stats()
	m.cacheHits.Store(s.Hits)
	m.cacheMisses.Store(s.Misses)
	m.cacheEntries.Store(int64(s.Entries))
}
