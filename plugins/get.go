package plugins

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Get resolves ref and downloads that version. The bytes are verified
// against the version's hash: a mismatch is ErrCorrupt, never returned data.
func (r *Registry) Get(ctx context.Context, ref Ref) ([]byte, Entry, error) {
	e, obs, err := r.resolve(ctx, ref)
	if err != nil {
		return nil, Entry{}, err
	}
	b, err := r.download(ctx, obs, e)
	if err != nil {
		return nil, Entry{}, err
	}
	return b, e, nil
}

// download reads e's object and checks its hash.
func (r *Registry) download(ctx context.Context, obs jetstream.ObjectStore, e Entry) ([]byte, error) {
	b, err := obs.GetBytes(ctx, objectName(e.Name, e.Hash))
	switch {
	case errors.Is(err, jetstream.ErrDigestMismatch):
		return nil, fmt.Errorf("%w: %s: %w; remove it (wasmstream operator rm %s) and push the module again", ErrCorrupt, e.Ref(), err, e.Ref())
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, fmt.Errorf("%w: %s was removed while it was being read", ErrNotFound, e.Ref())
	case err != nil:
		return nil, r.storeError(fmt.Errorf("get %s: %w", e.Ref(), err))
	}
	if got := HashBytes(b); got != e.Hash {
		return nil, fmt.Errorf("%w: %s: the stored bytes hash to %s; remove it (wasmstream operator rm %s) and push the module again",
			ErrCorrupt, e.Ref(), got, e.Ref())
	}
	return b, nil
}
