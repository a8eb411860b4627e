package engine

import (
	"sort"
	"strconv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// Transactional sinks (docs/sinks.md). A task keeps its transactional
// outputs in memory until its snapshot for checkpoint N, which writes them
// into the store's outbox (internal/state/FORMAT.md §6) in the same batch as its
// state: checkpoint N then holds exactly the outputs of the records it
// covers. Once N has completed, the coordinator publishes every staged
// output of an epoch ≤ N as JetStream atomic batches and deletes them
// (outbox_publish.go), behind the next checkpoints: until then they stay
// in the live store, so every later checkpoint holds them too. A restore
// publishes what the restored checkpoint holds first: a crash between
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
