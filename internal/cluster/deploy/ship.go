package deploy

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/state"
)

// shipping uploads the savepoint's state db as the task checkpoints of
// claim p, as the worker Holder.
type shipping struct {
	c   *cluster
	db  *pebble.DB
	p   ctlrec.Pending
	dir string

	shipped         int
	total, uploaded int64
	notes           []string
}

// ack ships every task of m's run and returns the ack of worker Holder
// for p: m's positions, operators and task entries, unchanged.
func (s *shipping) ack(ctx context.Context, m checkpoint.Manifest, started time.Time) (global.Ack, error) {
	sh, err := ship.New(ctx, s.c.obs, ship.Options{})
	if err != nil {
		return global.Ack{}, err
	}
	if err := os.MkdirAll(s.dir, privatefs.DirMode); err != nil {
		return global.Ack{}, err
	}
	hints := runParallelism(m.Config)
	ack := global.Ack{Checkpoint: s.p.Checkpoint, Generation: s.p.Generation, Assignment: s.p.Assignment, Worker: Holder, Sources: m.Sources}
	for _, op := range m.Operators {
		ack.Operators = append(ack.Operators, global.InfoOf(op))
		tasks := runTasks(op, hints[op.Name])
		if oc := s.c.cfg.Operator(op.Name); oc != nil && oc.Parallelism != len(tasks) {
			s.notes = append(s.notes, fmt.Sprintf("operator %q ran %d tasks in the savepoint's run and parallelism %d in the pipeline file: the workers restore each task's key groups from the task checkpoints that overlap them",
				op.Name, len(tasks), oc.Parallelism))
		}
		for _, t := range tasks {
			parts, err := s.ship(ctx, sh, op, t)
			if err != nil {
				return global.Ack{}, err
			}
			ack.Tasks = append(ack.Tasks, parts...)
		}
	}
	ack.DurationNanos = int64(time.Since(started))
	return ack, nil
}

// ship uploads task t of op as one task checkpoint, as a worker does
// (worker part.ship), and returns one part per entry of t.
func (s *shipping) ship(ctx context.Context, sh *ship.Shipper, op checkpoint.OperatorEntry, t runTask) ([]global.TaskPart, error) {
	task := ship.Task{Operator: op.Name, MaxParallelism: op.MaxParallelism, Index: t.index, Range: t.r,
		MetaNames: []string{engine.DeadLetterMeta(op.Name)}}
	snap, err := sh.Snapshot(s.db, filepath.Join(s.dir, fmt.Sprintf("%s-%d", op.Name, t.index)), task)
	if err != nil {
		return nil, err
	}
	res, err := sh.Upload(ctx, snap, global.TaskObject(s.p.Checkpoint, s.p.Generation, s.p.Assignment, Holder, op.Name, t.r.Start))
	_ = os.RemoveAll(snap.Dir)
	if err != nil {
		return nil, fmt.Errorf("operator %q task %d %s: %w", op.Name, t.index, t.r, err)
	}
	s.shipped, s.total, s.uploaded = s.shipped+1, s.total+res.BytesTotal, s.uploaded+res.BytesUploaded
	parts := make([]global.TaskPart, len(t.entries))
	for i, e := range t.entries {
		parts[i] = global.TaskPart{Operator: op.Name, Index: t.index, Entry: e, Object: res.ManifestObject, SHA256: res.ManifestSHA256,
			Bytes: res.BytesTotal, BytesNew: res.BytesUploaded}
	}
	return parts, nil
}

// outboxNote describes the transactional outputs staged in the
// savepoint's state, which the workers publish after restoring
// checkpoint n; "" when there are none.
func outboxNote(st *state.Store, n uint64) string {
	count, lo, hi := 0, uint64(math.MaxUint64), uint64(0)
	err := st.ScanOutbox(math.MaxUint64, func(k state.OutboxKey, _ state.OutboxMessage) error {
		count, lo, hi = count+1, min(lo, k.Epoch), max(hi, k.Epoch)
		return nil
	})
	switch {
	case err != nil:
		return fmt.Sprintf("the savepoint's staged transactional outputs could not be read (%v); the workers read them again at their restore", err)
	case count == 0:
		return ""
	}
	note := fmt.Sprintf("the savepoint's state holds %d staged transactional outputs (of its checkpoints %d..%d); the workers publish them under cluster batch ids once they restore checkpoint %d", count, lo, hi, n)
	if hi > n {
		note += fmt.Sprintf(", those of checkpoints above %d only when the cluster's checkpoint of their id completes", n)
	}
	return note + "; the output stream's duplicate window drops those the savepoint's run published already (same message ids)"
}
