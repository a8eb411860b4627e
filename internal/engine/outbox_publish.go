package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// Publication of the transactional outputs staged in completed
// checkpoints (outbox.go stages them). The coordinator asks for it once a
// checkpoint is complete (protocol: coordinator_publish.go), in its own
// goroutine, so that the next checkpoints run meanwhile; one publication
// at a time, each of every epoch up to the checkpoint it names.

// commitOutbox publishes the staged outputs of every epoch ≤ upTo and then
// deletes them. It is called after checkpoint upTo completed, and at start
// for the restored checkpoint. The batches of every epoch and subject go
// out in epoch order, several in flight (natsio.PublishAtomicBatches).
func (p *Pipeline) commitOutbox(ctx context.Context, upTo uint64) (published int, err error) {
	began := time.Now()
	groups, err := p.readOutbox(upTo)
	if err != nil || len(groups) == 0 {
		return 0, err
	}
	read := time.Since(began)
	batches, err := p.outboxBatches(groups)
	if err != nil {
		return 0, err
	}
	// The first publication of a run, and one after a failure, may meet
	// batches that a crashed run or a cut-short commit left open.
	flight := natsio.BatchFlight{Window: BatchesInFlight, Again: !p.publishedOnce.Swap(false)}
	err = p.conn.PublishAtomicBatches(ctx, batches, flight, func(i int, res natsio.BatchResult) error {
		if res.Status == natsio.BatchAlreadyCommitted {
			// The stream holds at least one of its ids: send its messages
			// one by one with their ids, so that it keeps exactly one of
			// each even if the batch differs from the one stored before,
			// as after a rollback.
			if err := p.publishEach(ctx, batches[i].Msgs); err != nil {
				return fmt.Errorf("re-sending batch %s one by one: %w", res.BatchID, err)
			}
			p.outboxRecommitted.Add(uint64(len(batches[i].Msgs)))
		}
		published += len(batches[i].Msgs)
		p.crash.Reach("outbox-batch")
		return nil
	})
	if err != nil {
		return published, fmt.Errorf("transactional sink, checkpoints up to %d: %w", upTo, err)
	}
	p.publishedOnce.Store(true)
	p.crash.Reach("outbox-published")
	sent := time.Since(began)
	if err := p.store.DeleteOutbox(upTo); err != nil {
		return published, fmt.Errorf("transactional outputs of checkpoint %d published, removing them from the outbox: %w", upTo, err)
	}
	p.logger.Debug("transactional outputs published", "checkpoint", upTo, "outputs", published, "batches", len(batches),
		"read", read, "publish", sent-read, "delete", time.Since(began)-sent, "again", flight.Again)
	return published, nil
}

// BatchesInFlight is how many atomic batches may await their commit's
// answer: enough to keep the server storing while the next batch is sent,
// well below the server's default of 50 open batches per stream. A death
// leaves visible at most BatchesInFlight-1 batches beyond the last one
// answered (internal/crashtest checks that bound).
const BatchesInFlight = 4

// outboxBatches splits every group into its atomic batches, in order. The
// split and the ids depend only on the staged outputs, so a second
// publication meets the same batches.
func (p *Pipeline) outboxBatches(groups []outboxEpoch) ([]natsio.AtomicBatch, error) {
	var batches []natsio.AtomicBatch
	for _, g := range groups {
		prefix := fmt.Sprintf("%s-%d", shortHash(p.cfg.Name+" "+g.subject+g.task), g.epoch)
		spans, err := natsio.SplitBatches(prefix, len(g.msgs), p.batchSizeFor(g.subject))
		if err != nil {
			return nil, fmt.Errorf("transactional sink, subject %s, checkpoint %d: %w", g.subject, g.epoch, err)
		}
		for _, sp := range spans {
			batches = append(batches, natsio.AtomicBatch{ID: sp.ID, Msgs: g.msgs[sp.Start:sp.End]})
		}
	}
	return batches, nil
}

// publishEach sends msgs with their ids through the async sink and waits.
func (p *Pipeline) publishEach(ctx context.Context, msgs []natsio.OutMessage) error {
	for _, m := range msgs {
		if err := p.sink.Publish(ctx, m); err != nil {
			return err
		}
	}
	return p.sink.Flush(ctx)
}

// batchSizeFor is the batch_size of the transactional sink publishing to subject.
func (p *Pipeline) batchSizeFor(subject string) int {
	for _, s := range p.cfg.Sinks {
		if s.Subject == subject && s.Mode == config.ModeTransactional {
			return s.BatchSize
		}
	}
	return config.DefaultSinkBatchSize
}

// shortHash names a pipeline's sink in batch ids, which are limited in length.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// publishCommitted publishes the transactional outputs of checkpoint id,
// which has just completed (or was restored). The outputs stay in the
// outbox until they are all published: after an outage (natsio.IsOutage)
// the coordinator asks again within the outage budget; any other failure
// stops the pipeline, and the next run's restore publishes them.
func (p *Pipeline) publishCommitted(ctx context.Context, id uint64) error {
	if !p.hasTransactionalSink() {
		return nil
	}
	n, err := p.commitOutbox(ctx, id)
	if err != nil {
		return fmt.Errorf("publishing the transactional outputs of checkpoint %d: %w; they stay staged in it and are published again "+
			"(after a NATS outage, once NATS answers; otherwise when the pipeline restarts)", id, err)
	}
	p.transactionalPublished.Add(uint64(n))
	return p.markPublished(ctx, id)
}

// hasTransactionalSink reports whether some sink is transactional.
func (p *Pipeline) hasTransactionalSink() bool {
	for _, s := range p.cfg.Sinks {
		if s.Mode == config.ModeTransactional {
			return true
		}
	}
	return false
}

// publishRestored publishes the outbox of the restored checkpoint, which
// also holds the outputs of the older completed checkpoints whose
// publication had not ended (they stay in the live store, and so in every
// checkpoint taken, until they are published). What an earlier run already
// published (the data dir's mark) is dropped first, so that a stop longer
// than the duplicate window does not store it twice; the rest is published
// oldest epoch first, before anything new is produced.
func (p *Pipeline) publishRestored(ctx context.Context, id uint64) error {
	if !p.hasTransactionalSink() {
		return nil
	}
	through, err := p.publishedThrough(ctx)
	if err != nil {
		return err
	}
	if err := p.store.DeleteOutbox(min(through, id)); err != nil {
		return fmt.Errorf("dropping the already published outbox of checkpoint %d: %w", min(through, id), err)
	}
	if id > through {
		p.logger.Info("publishing the transactional outputs the restored checkpoint holds", "checkpoint", id, "published_through", through)
		return p.publishCommitted(ctx, id)
	}
	return nil
}

// maxUnpublished is how many completed checkpoints may still be publishing
// their transactional outputs when the next is triggered
// (protocol.CoordinatorConfig.MaxUnpublished). A cluster part keeps
// publishing each checkpoint's outputs before it ends the round: its
// checkpoints are the cluster coordinator's, each awaited by the worker,
// and a part that is released or abandoned must leave nothing of its own
// publication running behind the next owner of its ranges.
func (p *Pipeline) maxUnpublished() int {
	if p.opts.Cluster != nil || !p.hasTransactionalSink() {
		return 0
	}
	return PublishBehind
}

// PublishBehind is how many completed checkpoints of a whole pipeline may
// still wait for the publication of their transactional outputs when the
// next periodic checkpoint is triggered: a checkpoint's outputs are
// published while the next two run. One would already take the
// publication off the checkpoints' path; two absorb a publication slowed
// by a burst of load without holding the next trigger back. Outputs are
// therefore visible at the latest when the (PublishBehind+1)-th checkpoint
// after the one that staged them is announced (internal/crashtest checks
// that bound).
const PublishBehind = 2
