package natsio

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrObjectStoreNotFound reports that an Object Store bucket does not exist.
var ErrObjectStoreNotFound = errors.New("natsio: object store bucket not found")

// ObjectStoreSpec declares an Object Store bucket.
type ObjectStoreSpec struct {
	Bucket      string
	Description string
	// Storage is StorageFile (default, also "") or StorageMemory.
	Storage string
	// Replicas is the bucket's replica count on a cluster (0: 1).
	Replicas int
}

func (s ObjectStoreSpec) config() (jetstream.ObjectStoreConfig, error) {
	storage, err := StreamSpec{Name: s.Bucket, Storage: s.Storage}.storageType()
	if err != nil {
		return jetstream.ObjectStoreConfig{}, fmt.Errorf("object store %s: %w", s.Bucket, err)
	}
	return jetstream.ObjectStoreConfig{Bucket: s.Bucket, Description: s.Description, Storage: storage, Replicas: s.Replicas}, nil
}

// OpenObjectStore opens an existing bucket. A missing one is
// ErrObjectStoreNotFound, so that readers can say "nothing stored yet"
// without creating it.
func (c *Conn) OpenObjectStore(ctx context.Context, bucket string) (jetstream.ObjectStore, error) {
	obs, err := c.JS.ObjectStore(ctx, bucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return nil, fmt.Errorf("%w: %s on %s", ErrObjectStoreNotFound, bucket, c.clientURL)
	case err != nil:
		return nil, fmt.Errorf("object store %s on %s: %w", bucket, c.clientURL, err)
	}
	return obs, nil
}

// EnsureObjectStore opens the bucket, creating it as spec says when it is
// missing. An existing bucket is used as it is: its storage is never changed.
func (c *Conn) EnsureObjectStore(ctx context.Context, spec ObjectStoreSpec) (jetstream.ObjectStore, error) {
	obs, err := c.OpenObjectStore(ctx, spec.Bucket)
	if !errors.Is(err, ErrObjectStoreNotFound) {
		return obs, err
	}
	cfg, err := spec.config()
	if err != nil {
		return nil, err
	}
	obs, err = c.JS.CreateObjectStore(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		// Another client created it between the two calls.
		return c.OpenObjectStore(ctx, spec.Bucket)
	}
	if err != nil {
		return nil, fmt.Errorf("create object store %s on %s: %w", spec.Bucket, c.clientURL, err)
	}
	return obs, nil
}
