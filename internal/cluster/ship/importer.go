package ship

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/state"
)

// importer writes keys into the target DB in batches of about limit bytes.
// Batches are committed without sync and the last one with sync, which
// makes all of them durable: a restore is one unit for the caller, who
// retries it whole (Target.Replace) after a failure.
type importer struct {
	db    *pebble.DB
	batch *pebble.Batch
	limit int

	keys, bytes             int64
	outboxKeys, outboxBytes int64
}

func newImporter(db *pebble.DB, limit int) *importer {
	return &importer{db: db, batch: db.NewBatch(), limit: limit}
}

// set adds one entry, committing the batch when it is full.
func (im *importer) set(k, v []byte) error {
	if err := im.batch.Set(k, v, nil); err != nil {
		return err
	}
	if im.batch.Len() < im.limit {
		return nil
	}
	err := im.batch.Commit(pebble.NoSync)
	im.batch.Close()
	im.batch = im.db.NewBatch()
	if err != nil {
		return fmt.Errorf("ship: commit a restore batch: %w", err)
	}
	return nil
}

// copyState copies every key of span from src.
func (im *importer) copyState(src *pebble.DB, span keySpan) error {
	return scan(src, span, func(k, v []byte) error {
		im.keys++
		im.bytes += int64(len(k) + len(v))
		return im.set(k, v)
	})
}

// copyOutbox copies the staged outputs of one task of operator. The outbox
// span holds every task's; only the task's own are imported.
func (im *importer) copyOutbox(src *pebble.DB, operator string, task int) error {
	return scan(src, outboxSpan(), func(k, v []byte) error {
		key, err := state.DecodeOutboxKey(k)
		if err != nil {
			return err
		}
		if key.Operator != operator || int(key.Task) != task {
			return nil
		}
		im.outboxKeys++
		im.outboxBytes += int64(len(k) + len(v))
		return im.set(k, v)
	})
}

// finish commits the last batch with sync.
func (im *importer) finish() error {
	if err := im.batch.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("ship: commit the last restore batch: %w", err)
	}
	return nil
}

func (im *importer) close() { im.batch.Close() }

// scan calls fn for every key of span in src, in order.
func scan(src *pebble.DB, span keySpan, fn func(k, v []byte) error) error {
	it, err := src.NewIter(&pebble.IterOptions{LowerBound: span.start, UpperBound: span.end})
	if err != nil {
		return err
	}
	for valid := it.First(); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn(it.Key(), v)
		}
		if err != nil {
			return errors.Join(err, it.Close())
		}
	}
	return errors.Join(it.Error(), it.Close())
}
