package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
)

// gcInterval is the least time between two collections: each reads every
// retained manifest and lists the bucket.
const gcInterval = time.Minute

// gcClockMargin allows for the clocks of the coordinator and the server
// to differ.
const gcClockMargin = time.Minute

// gcScanBack bounds how far below the newest checkpoint the retained ones
// are looked for (ids of given-up checkpoints have no record).
const gcScanBack = 1000

// collectGarbage deletes the objects of the state Object Store that no
// retained cluster checkpoint (the checkpoint.retain newest completed)
// references, and that are older than the oldest of them: an object an
// upload in flight needs is never older than that (design §5.4 "GC",
// Arroyo #802 is the bug this avoids). It runs on the coordinator between
// two checkpoints, so no checkpoint of its own is in flight. Workers are
// told which table files went, so that their upload index forgets them.
func (c *coordinator) collectGarbage(ctx context.Context, newest uint64) error {
	keep, oldest, err := c.retained(ctx, newest)
	if err != nil || len(keep) == 0 {
		return err
	}
	referenced, err := c.referenced(ctx, keep)
	if err != nil {
		return err
	}
	infos, err := c.w.obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list object store %s: %w", ObjectStoreName(c.w.cfg.Name), err)
	}
	// The cut-off is a minute before the oldest kept checkpoint started:
	// that time is the coordinator's clock, an object's the server's.
	cutoff := oldest.Add(-gcClockMargin)
	var gone []string
	var bytes uint64
	for _, info := range infos {
		if referenced[info.Name] || !info.ModTime.Before(cutoff) {
			continue
		}
		if err := c.w.obs.Delete(ctx, info.Name); err != nil {
			return fmt.Errorf("delete object %s: %w", info.Name, err)
		}
		if sum, ok := strings.CutPrefix(info.Name, ship.ObjectPrefix); ok {
			gone = append(gone, sum)
		}
		bytes += info.Size
	}
	if len(gone) > 0 {
		_ = c.w.conn.NC.Publish(c.w.subj.forget, mustJSON(gone))
	}
	if bytes > 0 {
		c.w.log.Info("unreferenced state objects deleted", "objects", len(gone), "bytes", bytes, "kept_checkpoints", len(keep))
	}
	return nil
}

// retained returns the completion records of the checkpoints to keep,
// newest first, and the creation time of the oldest.
func (c *coordinator) retained(ctx context.Context, newest uint64) ([]ctlrec.Completed, time.Time, error) {
	retain := max(c.w.cfg.Checkpoint.Retain, 1)
	var keep []ctlrec.Completed
	var oldest time.Time
	for id := newest; id > 0 && len(keep) < retain && newest-id < gcScanBack; id-- {
		rec, err := ctlrec.ReadCompleted(ctx, c.w.bucket, id)
		if errors.Is(err, lease.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, time.Time{}, err
		}
		m, err := global.ReadManifest(ctx, c.w.obs, rec.Manifest, rec.SHA256)
		if err != nil {
			return nil, time.Time{}, err
		}
		keep = append(keep, rec)
		oldest = m.Checkpoint.Created
	}
	return keep, oldest, nil
}

// referenced names every object the checkpoints keep need: their global
// manifests, their task manifests and every file those list.
func (c *coordinator) referenced(ctx context.Context, keep []ctlrec.Completed) (map[string]bool, error) {
	refs := map[string]bool{}
	for _, rec := range keep {
		m, err := global.ReadManifest(ctx, c.w.obs, rec.Manifest, rec.SHA256)
		if err != nil {
			return nil, err
		}
		refs[rec.Manifest] = true
		for _, p := range m.Tasks {
			if refs[p.Object] {
				continue
			}
			refs[p.Object] = true
			tm, err := c.w.ship.FetchManifest(ctx, p.Object, p.SHA256)
			if err != nil {
				return nil, err
			}
			for _, f := range tm.Files {
				refs[ship.ObjectName(f.SHA256)] = true
			}
		}
	}
	return refs, nil
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
