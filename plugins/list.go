package plugins

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/natsio"
)

// List returns every version in the registry, sorted by name and, within a
// name, newest first. A registry nobody pushed to yet is empty, not an
// error. Objects that are not operator versions (another tool's, or
// damaged metadata) are left out and logged.
func (r *Registry) List(ctx context.Context) ([]Entry, error) {
	obs, err := r.conn.OpenObjectStore(ctx, r.opts.Bucket)
	if errors.Is(err, natsio.ErrObjectStoreNotFound) {
		return []Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	return r.list(ctx, obs)
}

func (r *Registry) list(ctx context.Context, obs jetstream.ObjectStore) ([]Entry, error) {
	objects, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return []Entry{}, nil
	}
	if err != nil {
		return nil, r.storeError(err)
	}
	entries := make([]Entry, 0, len(objects))
	for _, o := range objects {
		e, err := entryFromObject(o)
		if err != nil {
			r.opts.Logger.Warn("skipping an object of the operator registry", "bucket", r.opts.Bucket, "error", err)
			continue
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, compareEntries)
	return entries, nil
}

// compareEntries orders by name, then newest first; the hash breaks ties so
// that the order never depends on the server's listing order.
func compareEntries(a, b Entry) int {
	return cmp.Or(
		cmp.Compare(a.Name, b.Name),
		b.PushedAt.Compare(a.PushedAt),
		cmp.Compare(a.Hash, b.Hash),
	)
}

// versions returns the versions of name, newest first.
func versions(all []Entry, name string) []Entry {
	var out []Entry
	for _, e := range all {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// names returns the distinct names in a sorted list of entries.
func names(all []Entry) []string {
	var out []string
	for _, e := range all {
		if len(out) == 0 || out[len(out)-1] != e.Name {
			out = append(out, e.Name)
		}
	}
	return out
}
