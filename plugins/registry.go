package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/natsio"
)

// DefaultBucket is the Object Store bucket of the registry.
const DefaultBucket = "wasmstream-operators"

// Options configure a Registry. The zero value is usable.
type Options struct {
	// Bucket is the Object Store bucket (default DefaultBucket).
	Bucket string
	// Limits bound what Push accepts (zero fields: the defaults).
	Limits Limits
	// Logger receives notices such as a replaced cache file; nil discards.
	Logger hclog.Logger
}

// Registry stores operator modules in a JetStream Object Store bucket, one
// object per version (see the package documentation). It is safe for
// concurrent use.
type Registry struct {
	conn *natsio.Conn
	opts Options
}

// NewRegistry returns a registry on conn. Nothing is created until the
// first Push.
func NewRegistry(conn *natsio.Conn, opts Options) *Registry {
	if opts.Bucket == "" {
		opts.Bucket = DefaultBucket
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	return &Registry{conn: conn, opts: opts}
}

// Bucket returns the registry's bucket name.
func (r *Registry) Bucket() string { return r.opts.Bucket }

// Meta is what a push says about the module.
type Meta struct {
	// Description is free text shown by list and inspect.
	Description string
	// InitConfig is the config ws_init is checked with (nil: an empty
	// config, what an operator block without config gives). It is not
	// stored: validate and run check ws_init again with the operator's own.
	InitConfig []byte
}

// Push validates wasm (ValidateWithConfig with meta.InitConfig) and stores
// it as a version of name. When name already
// holds these bytes it writes nothing and returns the stored entry with
// AlreadyStored set; an object under that version's name whose bytes are
// not these is replaced. Errors name the operator; validation errors wrap a
// *ValidationError.
func (r *Registry) Push(ctx context.Context, name string, wasm []byte, meta Meta) (Entry, error) {
	if err := ValidateName(name); err != nil {
		return Entry{}, err
	}
	info, err := ValidateWithConfig(ctx, wasm, r.opts.Limits, meta.InitConfig)
	if err != nil {
		return Entry{}, fmt.Errorf("operator %q: %w", name, err)
	}
	obs, err := r.conn.EnsureObjectStore(ctx, natsio.ObjectStoreSpec{
		Bucket: r.opts.Bucket, Description: "wasmstream operator modules", Storage: natsio.StorageFile})
	if err != nil {
		return Entry{}, err
	}
	switch old, err := r.stored(ctx, obs, name, info.Hash); {
	case err == nil:
		old.AlreadyStored = true
		return old, nil
	case errors.Is(err, ErrCorrupt):
		// Other bytes under this version's name: the good ones replace them.
		r.opts.Logger.Warn("replacing a damaged registry object", "operator", name, "error", err)
	case !errors.Is(err, ErrNotFound):
		return Entry{}, err
	}
	e := Entry{Name: name, Info: info, Description: meta.Description}
	if _, err := obs.Put(ctx, objectMeta(e), bytes.NewReader(wasm)); err != nil {
		return Entry{}, r.storeError(fmt.Errorf("push %s: %w", e, err))
	}
	// Read it back: Put reports the client's clock, and "newest" must
	// follow the server's.
	return r.stored(ctx, obs, name, info.Hash)
}

// stored returns the entry of name@hash (full hash) in obs, or ErrNotFound.
func (r *Registry) stored(ctx context.Context, obs jetstream.ObjectStore, name, hash string) (Entry, error) {
	oi, err := obs.GetInfo(ctx, objectName(name, hash))
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return Entry{}, fmt.Errorf("%w: %s@%s is not in bucket %s", ErrNotFound, name, hash, r.opts.Bucket)
	case err != nil:
		return Entry{}, r.storeError(err)
	}
	return entryFromObject(oi)
}

// storeError adds the bucket and server to a JetStream error.
func (r *Registry) storeError(err error) error {
	return fmt.Errorf("operator registry (bucket %s on %s): %w", r.opts.Bucket, r.conn.ClientURL(), err)
}
