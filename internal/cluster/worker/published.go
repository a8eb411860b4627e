package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/state"
)

// PublishedKey is the control bucket's mark of one task (named by its
// operator and first key group): the newest cluster checkpoint whose
// transactional outputs of the task are all published (design §5.3 step
// 5). A worker that restores the task publishes the restored outbox only
// when the checkpoint is newer: one published long ago, past the output
// stream's duplicate window, would otherwise be stored twice.
func PublishedKey(operator string, start int) string {
	return "published." + operator + "." + strconv.Itoa(start)
}

// taskKeys lists the marks of the part's tasks.
func (pt *part) taskKeys() []string {
	var keys []string
	for op, idxs := range pt.tasksNow() {
		oc := pt.cfg.Operator(op)
		for _, i := range idxs {
			keys = append(keys, PublishedKey(op, state.RangeForTask(i, oc.Parallelism, oc.MaxParallelism).Start))
		}
	}
	return keys
}

// publishedThrough is the oldest mark of the part's tasks (0 when one has
// none): the restored outbox is published unless every task's is.
func (pt *part) publishedThrough(ctx context.Context) (uint64, error) {
	through := uint64(math.MaxUint64)
	for _, key := range pt.taskKeys() {
		m, err := pt.w.bucket.Get(ctx, key)
		if errors.Is(err, lease.ErrNotFound) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseUint(string(m.Data), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bucket %s key %s holds %q, not a checkpoint id: %w", pt.w.bucket.Name(), key, m.Data, err)
		}
		through = min(through, n)
	}
	if through == math.MaxUint64 {
		return 0, nil
	}
	return through, nil
}

// markPublished moves every task's mark to id. Marks are not fenced: only
// a worker that published a completed checkpoint's outputs writes one,
// so whoever writes it tells the truth.
func (pt *part) markPublished(ctx context.Context, id uint64) error {
	for _, key := range pt.taskKeys() {
		if _, err := pt.w.bucket.KV().Put(ctx, key, []byte(strconv.FormatUint(id, 10))); err != nil {
			return fmt.Errorf("mark the transactional outputs of checkpoint %d published (bucket %s key %s): %w", id, pt.w.bucket.Name(), key, err)
		}
	}
	return nil
}
