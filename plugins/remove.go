package plugins

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// RemoveOptions qualify Remove.
type RemoveOptions struct {
	// AllVersions must be set to remove every version of a bare NAME, so a
	// forgotten @HASH cannot delete an operator's whole history.
	AllVersions bool
}

// Remove deletes the version NAME@HASH names (a unique prefix is enough),
// or every version of NAME when opts.AllVersions is set, and returns what it
// removed. A pipeline that already fetched a version keeps its cached file.
func (r *Registry) Remove(ctx context.Context, ref Ref, opts RemoveOptions) ([]Entry, error) {
	if err := ref.ValidateRegistry(); err != nil {
		return nil, err
	}
	if ref.Hash == "" && !opts.AllVersions {
		return nil, fmt.Errorf("%w: %q alone means all its versions; give NAME@HASH to remove one (see wasmstream operator list), or add --all-versions to remove them all",
			ErrAllVersions, ref.Name)
	}
	targets, obs, err := r.removalTargets(ctx, ref)
	if err != nil {
		return nil, err
	}
	for i, e := range targets {
		if err := obs.Delete(ctx, objectName(e.Name, e.Hash)); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			return targets[:i], r.storeError(fmt.Errorf("remove %s: %w", e.Ref(), err))
		}
	}
	return targets, nil
}

// removalTargets resolves ref to one version, or to every version of a
// bare name.
func (r *Registry) removalTargets(ctx context.Context, ref Ref) ([]Entry, jetstream.ObjectStore, error) {
	e, obs, err := r.resolve(ctx, ref)
	if err != nil || ref.Hash != "" {
		return []Entry{e}, obs, err
	}
	all, err := r.list(ctx, obs)
	if err != nil {
		return nil, nil, err
	}
	return versions(all, ref.Name), obs, nil
}
