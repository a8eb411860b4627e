package plugins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/natsio"
)

// Resolve finds the version a registry reference means: the newest of NAME,
// or the one version of NAME whose hash starts with the given prefix. When
// none or several match, the error (ErrNotFound, ErrAmbiguous) lists the
// candidates. A local path is ErrLocalRef.
func (r *Registry) Resolve(ctx context.Context, ref Ref) (Entry, error) {
	e, _, err := r.resolve(ctx, ref)
	return e, err
}

// resolve is Resolve returning the open bucket too.
func (r *Registry) resolve(ctx context.Context, ref Ref) (Entry, jetstream.ObjectStore, error) {
	if err := ref.ValidateRegistry(); err != nil {
		return Entry{}, nil, err
	}
	obs, err := r.conn.OpenObjectStore(ctx, r.opts.Bucket)
	if errors.Is(err, natsio.ErrObjectStoreNotFound) {
		return Entry{}, nil, fmt.Errorf("%w: %s: the registry is empty (bucket %s does not exist on %s); push it with: wasmstream operator push FILE --name %s",
			ErrNotFound, ref, r.opts.Bucket, r.conn.ClientURL(), ref.Name)
	}
	if err != nil {
		return Entry{}, nil, err
	}
	if ref.Pinned() {
		if e, err := r.stored(ctx, obs, ref.Name, ref.Hash); !errors.Is(err, ErrNotFound) {
			return e, obs, err
		}
	}
	all, err := r.list(ctx, obs)
	if err != nil {
		return Entry{}, nil, err
	}
	e, err := r.pick(all, ref)
	return e, obs, err
}

// pick applies ref to the listed entries.
func (r *Registry) pick(all []Entry, ref Ref) (Entry, error) {
	vs := versions(all, ref.Name)
	if len(vs) == 0 {
		return Entry{}, r.unknownName(all, ref)
	}
	if ref.Hash == "" {
		return vs[0], nil
	}
	var match []Entry
	for _, e := range vs {
		if strings.HasPrefix(e.Hash, ref.Hash) {
			match = append(match, e)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return Entry{}, fmt.Errorf("%w: no version of %s starts with %s; its versions, newest first: %s",
			ErrNotFound, ref.Name, ref.Hash, describe(vs))
	}
	return Entry{}, fmt.Errorf("%w: %s matches %d versions: %s; give more hex digits",
		ErrAmbiguous, ref, len(match), describe(match))
}

func (r *Registry) unknownName(all []Entry, ref Ref) error {
	known := names(all)
	if len(known) == 0 {
		return fmt.Errorf("%w: %s: the registry (bucket %s) holds no operators; push it with: wasmstream operator push FILE --name %s",
			ErrNotFound, ref, r.opts.Bucket, ref.Name)
	}
	return fmt.Errorf("%w: no operator named %q in bucket %s; it holds: %s",
		ErrNotFound, ref.Name, r.opts.Bucket, strings.Join(known, ", "))
}

// describe lists versions as "risk@3f2a9c1d0b4e (pushed 2025-01-02T03:04:05Z)".
// At most maxDescribed are listed, so that an error stays readable.
func describe(es []Entry) string {
	parts := make([]string, 0, min(len(es), maxDescribed)+1)
	for _, e := range es[:min(len(es), maxDescribed)] {
		parts = append(parts, fmt.Sprintf("%s@%s (pushed %s)", e.Name, e.Hash, e.PushedAt.Format(time.RFC3339)))
	}
	if len(es) > maxDescribed {
		parts = append(parts, fmt.Sprintf("and %d more (see wasmstream operator list)", len(es)-maxDescribed))
	}
	return strings.Join(parts, ", ")
}

const maxDescribed = 10
