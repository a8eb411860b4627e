package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// Transactional sinks (docs/sinks.md). A task keeps its transactional
// outputs in memory until its snapshot for checkpoint N, which writes them
// into the store's outbox (internal/state/FORMAT.md §6) in the same batch as its
// state: checkpoint N then holds exactly the outputs of the records it
// covers. Once N has completed, the coordinator publishes every staged
// output of an epoch ≤ N as JetStream atomic batches and deletes them. A
// restore of N publishes what N still holds first: a crash between
// completion and publication publishes again, and the batches the stream
// already stored are recognised by their message ids.

// taskOutbox is a task's transactional outputs since its last snapshot.
type taskOutbox struct{ msgs []state.OutboxMessage }

// stage keeps m for the next snapshot.
func (o *taskOutbox) stage(m natsio.OutMessage) {
	o.msgs = append(o.msgs, state.OutboxMessage{Subject: m.Subject, MsgID: m.MsgID, Headers: abiHeaders(m.Header), Data: m.Data})
}

// flushTo writes the staged outputs as epoch into b and forgets them.
func (o *taskOutbox) flushTo(b *pebble.Batch, epoch uint64, operator string, task int) error {
	for i, m := range o.msgs {
		k := state.OutboxKey{Epoch: epoch, Operator: operator, Task: uint16(task), Seq: uint32(i)}
		if err := state.PutOutbox(b, k, m); err != nil {
			return err
		}
	}
	clear(o.msgs)
	o.msgs = o.msgs[:0]
	return nil
}

// abiHeaders encodes h as an ABI header list, names sorted.
func abiHeaders(h nats.Header) []byte {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []byte
	for _, name := range names {
		for _, v := range h[name] {
			out = abi.AppendHeader(out, name, v)
		}
	}
	return out
}

// outboxEpoch is the staged outputs of one epoch for one subject, in key
// order: the unit of a deterministic split into atomic batches.
type outboxEpoch struct {
	epoch   uint64
	subject string
	// task names the operator and first key group of the task whose
	// outputs these are, in a cluster part (ClusterPart); empty otherwise.
	task string
	msgs []natsio.OutMessage
}

// readOutbox returns the staged outputs of every epoch ≤ upTo, grouped by
// epoch and subject in the order they were staged.
func (p *Pipeline) readOutbox(upTo uint64) ([]outboxEpoch, error) {
	var groups []outboxEpoch
	index := map[string]int{}
	err := p.store.ScanOutbox(upTo, func(k state.OutboxKey, m state.OutboxMessage) error {
		task := p.outboxTask(k)
		gk := strconv.FormatUint(k.Epoch, 10) + " " + m.Subject + " " + task
		i, ok := index[gk]
		if !ok {
			i = len(groups)
			index[gk] = i
			groups = append(groups, outboxEpoch{epoch: k.Epoch, subject: m.Subject, task: task})
		}
		groups[i].msgs = append(groups[i].msgs, natsio.OutMessage{Subject: m.Subject, MsgID: m.MsgID,
			Header: natsHeader(m.Headers), Data: append([]byte(nil), m.Data...)})
		return nil
	})
	return groups, err
}

// outboxTask names the task of a staged output in its batch ids when the
// process is a cluster part: workers publish the same epoch to the same
// subject, each its own tasks' outputs, and a batch id they shared would
// be refused as committed for all but the first (design §5.3 step 5). The
// task is named by its first key group, which a rescale keeps meaningful.
// A whole pipeline keeps its ids (they are in its checkpoints' streams).
func (p *Pipeline) outboxTask(k state.OutboxKey) string {
	if p.opts.Cluster == nil {
		return ""
	}
	oc := p.cfg.Operator(k.Operator)
	if oc == nil {
		return " " + k.Operator + " task " + strconv.Itoa(int(k.Task))
	}
	r := state.RangeForTask(int(k.Task), oc.Parallelism, oc.MaxParallelism)
	return " " + k.Operator + " " + strconv.Itoa(r.Start)
}

// commitOutbox publishes the staged outputs of every epoch ≤ upTo and then
// deletes them. It is called after checkpoint upTo completed, and at start
// for the restored checkpoint.
func (p *Pipeline) commitOutbox(ctx context.Context, upTo uint64) (published int, err error) {
	groups, err := p.readOutbox(upTo)
	if err != nil || len(groups) == 0 {
		return 0, err
	}
	for _, g := range groups {
		n, err := p.commitGroup(ctx, g)
		published += n
		if err != nil {
			return published, err
		}
	}
	p.crash.Reach("outbox-published")
	if err := p.store.DeleteOutbox(upTo); err != nil {
		return published, fmt.Errorf("transactional outputs of checkpoint %d published, removing them from the outbox: %w", upTo, err)
	}
	return published, nil
}

// commitGroup publishes one epoch's outputs to one subject as atomic
// batches (deterministic split and ids, so a second commit meets the same
// batches). A batch the stream reports already committed holds at least
// one stored id; its messages are then sent one by one with their ids, so
// the stream keeps exactly one of each (dropping the repeats) even if the
// batch differs from the one stored before, as after a rollback.
func (p *Pipeline) commitGroup(ctx context.Context, g outboxEpoch) (published int, err error) {
	size := p.batchSizeFor(g.subject)
	prefix := fmt.Sprintf("%s-%d", shortHash(p.cfg.Name+" "+g.subject+g.task), g.epoch)
	spans, err := natsio.SplitBatches(prefix, len(g.msgs), size)
	if err != nil {
		return 0, err
	}
	for i, sp := range spans {
		msgs := g.msgs[sp.Start:sp.End]
		res, err := p.conn.PublishAtomicBatch(ctx, sp.ID, msgs)
		if err != nil {
			return published, fmt.Errorf("transactional sink, subject %s, checkpoint %d, batch %d of %d: %w", g.subject, g.epoch, i+1, len(spans), err)
		}
		if res.Status == natsio.BatchAlreadyCommitted {
			if err := p.publishEach(ctx, msgs); err != nil {
				return published, fmt.Errorf("transactional sink, subject %s, checkpoint %d: re-sending batch %s one by one: %w", g.subject, g.epoch, sp.ID, err)
			}
			p.outboxRecommitted.Add(uint64(len(msgs)))
		}
		published += len(msgs)
		p.crash.Reach("outbox-batch")
	}
	return published, nil
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
	start := time.Now()
	n, err := p.commitOutbox(ctx, id)
	if err != nil {
		return fmt.Errorf("publishing the transactional outputs of checkpoint %d: %w; they stay staged in it and are published again "+
			"(after a NATS outage, once NATS answers; otherwise when the pipeline restarts)", id, err)
	}
	p.transactionalPublished.Add(uint64(n))
	if err := p.markPublished(ctx, id); err != nil {
		return err
	}
	if n > 0 {
		p.logger.Debug("transactional outputs published", "checkpoint", id, "outputs", n, "duration", time.Since(start))
	}
	return nil
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
	return publishBehind
}

// publishBehind: a checkpoint's outputs are published while the next two
// run. One would already take the publication off the checkpoints' path;
// two absorb a publication slowed by a burst of load without holding the
// next trigger back.
const publishBehind = 2
