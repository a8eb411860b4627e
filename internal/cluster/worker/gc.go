package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/gc"
	"github.com/wasmstream/wasmstream/internal/engine"
)

// gcInterval is the least time between two collections: each reads every
// retained manifest and lists the bucket.
const gcInterval = time.Minute

// collectGarbage deletes the objects of the state Object Store that no
// retained cluster checkpoint (the checkpoint.retain newest completed)
// references (package gc). It runs on the coordinator between two
// checkpoints, so no checkpoint of its own is in flight. Workers are told
// which table files went, so that their upload index forgets them.
func (c *coordinator) collectGarbage(ctx context.Context, newest uint64) error {
	res, err := gc.Collect(ctx, gc.Store{Bucket: c.w.bucket, Objects: c.w.obs, Shipper: c.w.ship}, newest, c.w.cfg.Checkpoint.Retain, gc.ClockMargin)
	if len(res.Tables) > 0 {
		_ = c.w.conn.NC.Publish(c.w.subj.forget, mustJSON(res.Tables))
	}
	if res.Bytes > 0 {
		c.w.log.Info("unreferenced state objects deleted", "objects", len(res.Deleted), "bytes", res.Bytes, "kept_checkpoints", res.Kept)
	}
	if err != nil {
		return fmt.Errorf("object store %s: %w", ObjectStoreName(c.w.cfg.Name), err)
	}
	if len(res.Retained) > 0 {
		// Not fatal: a stream only keeps more than restores need until the next collection.
		trimmed, err := engine.TrimExchanges(ctx, c.w.conn, c.w.cfg, res.Retained...)
		if err != nil {
			c.w.log.Warn("trimming the exchange streams failed; the next collection tries again", "retained", len(res.Retained), "error", err)
		}
		if len(trimmed) > 0 {
			c.w.log.Info("exchange streams trimmed", "below", trimmed, "retained_checkpoints", checkpointIDs(res.Retained))
		}
	}
	return nil
}

// forgetObjects takes the coordinator's list of deleted table files.
func (w *worker) forgetObjects(m *nats.Msg) {
	sums, err := decode[[]string](m.Data, "deleted objects")
	if err != nil {
		w.log.Warn("ignoring a list of deleted objects", "error", err)
		return
	}
	for _, s := range sums {
		if err := w.ship.Forget(s); err != nil {
			w.log.Warn("forgetting a deleted object in the upload index", "sha256", s, "error", err)
		}
	}
}

// checkpointIDs lists the ids of ms.
func checkpointIDs(ms []checkpoint.Manifest) []uint64 {
	ids := make([]uint64, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}
