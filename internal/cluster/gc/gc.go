// Package gc deletes the objects of a cluster pipeline's state Object
// Store that no retained cluster checkpoint needs (design
// ../../../../shared/cluster.md §5.4 "GC"). The coordinator runs it
// between two checkpoints (internal/cluster/worker).
package gc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
)

// ClockMargin allows for the clocks of the coordinator, which stamps a
// checkpoint's creation, and of the server, which stamps an object's.
const ClockMargin = time.Minute

// scanBack bounds how far below the newest checkpoint the retained ones
// are looked for (ids of given-up checkpoints have no record).
const scanBack = 1000

// Store is what a collection reads and deletes from.
type Store struct {
	Bucket  *lease.Bucket         // the control bucket: completion records
	Objects jetstream.ObjectStore // manifests and state objects
	Shipper *ship.Shipper         // reads task manifests
}

// Result is what a collection did.
type Result struct {
	// Deleted are the deleted objects' names.
	Deleted []string
	// Tables are the SHA-256s of the deleted state files (ship's
	// objects), which every worker's upload index must forget.
	Tables []string
	// Bytes is the deleted objects' size.
	Bytes uint64
	// Kept is how many checkpoints were retained.
	Kept int
	// Retained are the retained checkpoints, newest first: no restore
	// reads an exchange stream before where every one of them resumes it
	// (engine.TrimExchanges).
	Retained []checkpoint.Manifest
}

// Collect deletes the objects that none of the retain newest completed
// checkpoints up to newest references and that are older than the oldest
// of them less margin (ClockMargin; a test passes its own): an object an
// upload in flight needs is never older than that (Arroyo #802 is the bug
// this avoids). With no completed checkpoint it deletes nothing.
func Collect(ctx context.Context, s Store, newest uint64, retain int, margin time.Duration) (Result, error) {
	keep, manifests, err := retained(ctx, s, newest, max(retain, 1))
	if err != nil || len(keep) == 0 {
		return Result{}, err
	}
	referenced, err := references(ctx, s, keep)
	if err != nil {
		return Result{}, err
	}
	oldest := manifests[len(manifests)-1]
	res := Result{Kept: len(keep), Retained: manifests}
	infos, err := s.Objects.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return res, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("list the state objects: %w", err)
	}
	cutoff := oldest.Created.Add(-margin)
	for _, info := range infos {
		if referenced[info.Name] || !info.ModTime.Before(cutoff) {
			continue
		}
		if err := s.Objects.Delete(ctx, info.Name); err != nil {
			return res, fmt.Errorf("delete object %s: %w", info.Name, err)
		}
		res.Deleted = append(res.Deleted, info.Name)
		if sum, ok := strings.CutPrefix(info.Name, ship.ObjectPrefix); ok {
			res.Tables = append(res.Tables, sum)
		}
		res.Bytes += info.Size
	}
	return res, nil
}

// retained returns the completion records of the checkpoints to keep and
// their manifests, newest first.
func retained(ctx context.Context, s Store, newest uint64, retain int) ([]ctlrec.Completed, []checkpoint.Manifest, error) {
	var keep []ctlrec.Completed
	var manifests []checkpoint.Manifest
	for id := newest; id > 0 && len(keep) < retain && newest-id < scanBack; id-- {
		rec, err := ctlrec.ReadCompleted(ctx, s.Bucket, id)
		if errors.Is(err, lease.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		m, err := global.ReadManifest(ctx, s.Objects, rec.Manifest, rec.SHA256)
		if err != nil {
			return nil, nil, err
		}
		keep = append(keep, rec)
		manifests = append(manifests, m.Checkpoint)
	}
	return keep, manifests, nil
}

// references names every object the kept checkpoints need: their global
// manifests, their task manifests and every file those list.
func references(ctx context.Context, s Store, keep []ctlrec.Completed) (map[string]bool, error) {
	refs := map[string]bool{}
	for _, rec := range keep {
		m, err := global.ReadManifest(ctx, s.Objects, rec.Manifest, rec.SHA256)
		if err != nil {
			return nil, err
		}
		refs[rec.Manifest] = true
		for _, p := range m.Tasks {
			if refs[p.Object] {
				continue
			}
			refs[p.Object] = true
			tm, err := s.Shipper.FetchManifest(ctx, p.Object, p.SHA256)
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
