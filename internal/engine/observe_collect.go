package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// newDesc describes a metric labelled by the pipeline and labels.
func newDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append([]string{"pipeline"}, labels...), nil)
}

// The metrics read from the engine's counters on each scrape;
// docs/metrics.md lists them all (a test keeps the two in step).
var (
	descReady = newDesc("wasmstream_pipeline_ready", "1 when /readyz answers 200 (connected, restored, checkpoints on time), else 0.")

	descSourceRead     = newDesc("wasmstream_source_records_read_total", "Records fetched from the source's stream.", "source", "stream")
	descSourceReplayed = newDesc("wasmstream_source_records_replayed_total", "Records delivered again after a restore (an upper bound of what the crashed run had seen).", "source", "stream")
	descSourcePosition = newDesc("wasmstream_source_position_sequence", "Last stream sequence routed to the tasks.", "source", "stream")
	descSourcePending  = newDesc("wasmstream_source_pending_records", "Records the stream holds for the source that it has not taken yet (asked of the server at each scrape).", "source", "stream")
	descSourceLastTime = newDesc("wasmstream_source_last_record_timestamp_seconds", "JetStream timestamp of the newest record read; time() minus it is the time lag while records are pending.", "source", "stream")

	descTaskProcessed = newDesc("wasmstream_task_records_processed_total", "Records the task's guest processed successfully.", "operator", "task")
	descTaskEmitted   = newDesc("wasmstream_task_outputs_emitted_total", "Outputs the task produced for its sinks.", "operator", "task")
	descTaskRestarts  = newDesc("wasmstream_task_instance_restarts_total", "Guest instances replaced after a fault closed them.", "operator", "task")
	descTaskGuest     = newDesc("wasmstream_task_guest_seconds_total", "Time spent in guest calls (with the host functions they call), retries after an isolated record included.", "operator", "task")

	descCacheHits    = newDesc("wasmstream_state_cache_hits_total", "State reads answered by the task's write-back cache.", "operator", "task")
	descCacheMisses  = newDesc("wasmstream_state_cache_misses_total", "State reads that had to read the store.", "operator", "task")
	descCacheEntries = newDesc("wasmstream_state_cache_entries", "Entries in the task's state cache (present or known absent).", "operator", "task")
	descStateExpired = newDesc("wasmstream_state_expired_total", "Expired state entries removed (by reads, flushes and the sweep).", "operator", "task")
	descStateLive    = newDesc("wasmstream_state_live_entries", "State entries the last complete TTL sweep pass found live (an estimate).", "operator", "task")
	descStateBytes   = newDesc("wasmstream_state_live_bytes", "Key and value bytes of the live entries of the last complete TTL sweep pass (an estimate).", "operator", "task")
	descStoreBytes   = newDesc("wasmstream_state_store_bytes", "Disk space of the live state store (Pebble) in the data dir.")

	descDeadLetters = newDesc("wasmstream_dead_letters_total", "Records sent to the operator's dead-letter subject.", "operator", "reason")

	descCkCompleted = newDesc("wasmstream_checkpoints_completed_total", "Checkpoints completed since the start.")
	descCkFailed    = newDesc("wasmstream_checkpoints_failed_total", "Checkpoints that failed; cause outage: only because NATS was unreachable.", "cause")
	descCkLastID    = newDesc("wasmstream_checkpoint_last_id", "Id of the last completed checkpoint.")
	descCkLastTime  = newDesc("wasmstream_checkpoint_last_completed_timestamp_seconds", "When the last checkpoint completed (Unix time).")
	descCkSize      = newDesc("wasmstream_checkpoint_last_size_bytes", "Bytes of the files of the last completed checkpoint.")
	descCkNew       = newDesc("wasmstream_checkpoint_last_new_bytes", "Bytes of the files of the last completed checkpoint that the one before it did not hold.")
	descCkWritten   = newDesc("wasmstream_checkpoint_new_bytes_total", "Sum of the new bytes of every completed checkpoint.")

	descSinkPublished    = newDesc("wasmstream_sink_published_total", "Messages (outputs and dead letters) handed to NATS.")
	descSinkAcked        = newDesc("wasmstream_sink_acked_total", "Messages JetStream acknowledged, duplicates included.")
	descSinkDuplicates   = newDesc("wasmstream_sink_duplicates_total", "Messages JetStream acknowledged as already stored (a replay absorbed by the duplicate window).")
	descSinkFailed       = newDesc("wasmstream_sink_failed_total", "Messages not acknowledged: an error.")
	descSinkResent       = newDesc("wasmstream_sink_resent_total", "Messages sent again with their ids after a NATS outage.")
	descSinkPending      = newDesc("wasmstream_sink_pending_messages", "Messages published and not yet acknowledged.")
	descSinkOutPublished = newDesc("wasmstream_sink_outputs_published_total", "Outputs handed to NATS for the sink (its subject).", "sink")
	descSinkOutAcked     = newDesc("wasmstream_sink_outputs_acked_total", "Outputs of the sink JetStream acknowledged, duplicates included.", "sink")
	descSinkOutPending   = newDesc("wasmstream_sink_outputs_pending", "Outputs of the sink published and not yet acknowledged.", "sink")
	descSinkOutResent    = newDesc("wasmstream_sink_outputs_resent_total", "Outputs of the sink sent again with their ids after a NATS outage.", "sink")

	descTxPublished = newDesc("wasmstream_sink_transactional_published_total", "Outputs of transactional sinks made visible after their checkpoint completed.")
	descTxEpochLag  = newDesc("wasmstream_sink_transactional_epoch_lag", "Completed checkpoints whose transactional outputs are not visible yet (published behind the next checkpoints, or after an outage).")
	descTxResent    = newDesc("wasmstream_sink_transactional_resent_total", "Transactional outputs re-sent one by one because their atomic batch was found already committed.")

	descNATSConnected  = newDesc("wasmstream_nats_connected", "1 while the pipeline's NATS connection is up.")
	descNATSReconnects = newDesc("wasmstream_nats_reconnects_total", "Reconnections of the pipeline's NATS connection.")
)

// pendingTimeout bounds the backlog questions of one scrape, all sources
// together: a scrape while NATS is away must still answer.
const pendingTimeout = 2 * time.Second

// collect sends the pipeline's metrics (observerCollector).
func (p *Pipeline) collect(ch chan<- prometheus.Metric) {
	p.collectSources(ch)
	p.collectTasks(ch)
	p.collectDeadLetters(ch)
	p.collectCheckpoints(ch)
	p.collectSink(ch)
	p.collectNATS(ch)
	if p.metrics.batch != nil {
		p.metrics.batch.Collect(ch)
		p.metrics.ckDuration.Collect(ch)
		p.metrics.ckAlign.Collect(ch)
		p.metrics.ckPause.Collect(ch)
	}
}

func (p *Pipeline) collectSources(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), pendingTimeout)
	defer cancel()
	connected := p.natsConnected()
	for _, s := range p.sources {
		l := []string{p.cfg.Name, s.cfg.Name, s.cfg.Stream}
		pos := s.position.Load()
		ch <- counter(descSourceRead, s.read.Load(), l...)
		ch <- counter(descSourceReplayed, s.replayed.Load(), l...)
		ch <- gauge(descSourcePosition, float64(pos), l...)
		if at := s.lastRecordTime.Load(); at != 0 {
			ch <- gauge(descSourceLastTime, float64(at)/1e9, l...)
		}
		if !connected || ctx.Err() != nil {
			continue // no answer to be had: leave the gauge out rather than show a stale or made-up value
		}
		if b, err := s.src.Backlog(ctx, pos); err == nil && !b.Unknown {
			ch <- gauge(descSourcePending, float64(b.Undelivered+b.Unfetched), l...)
		}
	}
}

func (p *Pipeline) collectTasks(ch chan<- prometheus.Metric) {
	for _, t := range p.tasks {
		l := []string{p.cfg.Name, t.op.cfg.Name, strconv.Itoa(t.index)}
		ch <- counter(descTaskProcessed, t.processed.Load(), l...)
		ch <- counter(descTaskEmitted, t.emitted.Load(), l...)
		ch <- counter(descTaskRestarts, t.restarts.Load(), l...)
		if m := t.metrics; m != nil {
			ch <- prometheus.MustNewConstMetric(descTaskGuest, prometheus.CounterValue, time.Duration(m.guestNanos.Load()).Seconds(), l...)
			ch <- counter(descCacheHits, m.cacheHits.Load(), l...)
			ch <- counter(descCacheMisses, m.cacheMisses.Load(), l...)
			ch <- gauge(descCacheEntries, float64(m.cacheEntries.Load()), l...)
		}
		if t.op.hasTTL {
			ch <- counter(descStateExpired, t.stateExpired.Load(), l...)
			if t.sweepPasses.Load() > 0 { // the estimates exist after the first complete pass
				ch <- gauge(descStateLive, float64(t.stateLiveEntries.Load()), l...)
				ch <- gauge(descStateBytes, float64(t.stateLiveBytes.Load()), l...)
			}
		}
	}
	if p.store != nil {
		ch <- gauge(descStoreBytes, float64(p.store.DB().Metrics().DiskSpaceUsage()), p.cfg.Name)
	}
}

// collectDeadLetters shows every reason of every operator, zeros
// included, so that a rate over the counter starts at the first one.
func (p *Pipeline) collectDeadLetters(ch chan<- prometheus.Metric) {
	counts := p.metrics.deadLettersByReason()
	for _, op := range p.operators {
		for _, reason := range deadLetterReasonLabels {
			ch <- counter(descDeadLetters, counts[deadReasonKey{op.cfg.Name, reason}], p.cfg.Name, op.cfg.Name, reason)
		}
	}
}

func (p *Pipeline) collectCheckpoints(ch chan<- prometheus.Metric) {
	c := p.metrics.checkpointSnapshot()
	name := p.cfg.Name
	ch <- counter(descCkCompleted, c.completed, name)
	ch <- counter(descCkFailed, c.failed, name, "error")
	ch <- counter(descCkFailed, c.failedOutage, name, "outage")
	ch <- counter(descCkWritten, c.bytesNew, name)
	if c.completed == 0 {
		return
	}
	ch <- gauge(descCkLastID, float64(c.last.ID), name)
	ch <- gauge(descCkLastTime, float64(c.lastAt.UnixNano())/1e9, name)
	ch <- gauge(descCkSize, float64(c.last.Metrics.BytesTotal), name)
	ch <- gauge(descCkNew, float64(c.last.Metrics.BytesNew), name)
}

func (p *Pipeline) collectSink(ch chan<- prometheus.Metric) {
	name := p.cfg.Name
	if p.sink != nil {
		s := p.sink.Stats()
		ch <- counter(descSinkPublished, s.Published, name)
		ch <- counter(descSinkAcked, s.Acked, name)
		ch <- counter(descSinkDuplicates, s.Duplicates, name)
		ch <- counter(descSinkFailed, s.Failed, name)
		ch <- counter(descSinkResent, s.Resent, name)
		ch <- gauge(descSinkPending, float64(s.Pending), name)
		p.collectSinksByName(ch, p.sink.StatsBySubject())
	}
	ch <- counter(descTxPublished, p.transactionalPublished.Load(), name)
	ch <- counter(descTxResent, p.outboxRecommitted.Load(), name)
	ch <- gauge(descTxEpochLag, float64(p.metrics.epochLag()), name)
}

// collectSinksByName shows the publisher's counts of each sink's subject,
// zeros included, under the sink's name. A transactional sink publishes
// atomic batches past the publisher (only their re-sends one by one go
// through it), so it is left out: wasmstream_sink_transactional_* count it.
func (p *Pipeline) collectSinksByName(ch chan<- prometheus.Metric, bySubject map[string]natsio.SinkStats) {
	for _, sk := range p.cfg.Sinks {
		if sk.Mode == config.ModeTransactional {
			continue
		}
		s, l := bySubject[sk.Subject], []string{p.cfg.Name, sk.Name}
		ch <- counter(descSinkOutPublished, s.Published, l...)
		ch <- counter(descSinkOutAcked, s.Acked, l...)
		ch <- gauge(descSinkOutPending, float64(s.Pending), l...)
		ch <- counter(descSinkOutResent, s.Resent, l...)
	}
}

func (p *Pipeline) collectNATS(ch chan<- prometheus.Metric) {
	if p.conn == nil || p.conn.NC == nil {
		return
	}
	connected := 0.0
	if p.natsConnected() {
		connected = 1
	}
	ch <- gauge(descNATSConnected, connected, p.cfg.Name)
	ch <- counter(descNATSReconnects, p.conn.NC.Stats().Reconnects, p.cfg.Name)
}

// natsConnected reports whether the pipeline's NATS connection is up.
func (p *Pipeline) natsConnected() bool {
	return p.conn != nil && p.conn.NC != nil && p.conn.NC.IsConnected()
}

func counter(d *prometheus.Desc, v uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}
