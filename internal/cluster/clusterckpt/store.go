package clusterckpt

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// IsCluster reports whether cfg is a cluster pipeline: its file has a
// cluster block (config.Pipeline.Cluster.Range is set only then), so its
// checkpoints are the cluster's, in NATS, and not its data dir's.
func IsCluster(cfg *config.Pipeline) bool { return cfg.Cluster.Range.Start.Line != 0 }

// Store is a cluster pipeline's checkpoints on its NATS: the control
// bucket with the completion records and the Object Store with the
// manifests and the state. Open it with Open; its methods never write.
type Store struct {
	cfg    *config.Pipeline
	conn   *natsio.Conn
	bucket *lease.Bucket
	obs    jetstream.ObjectStore
}

// Open connects to cfg's NATS (server.url) and opens the pipeline's control
// bucket and state Object Store. Neither is created: a missing one is
// ErrNoCheckpoint, naming it and how to get a checkpoint.
func Open(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (*Store, error) {
	if !IsCluster(cfg) {
		return nil, fmt.Errorf("%w: pipeline %q has no cluster block; its checkpoints are in its data dir %s", ErrNotCluster, cfg.Name, engine.CheckpointRoot(cfg))
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	conn, err := engine.ConnectCluster(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, conn: conn}
	if err := s.openBuckets(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) openBuckets(ctx context.Context) error {
	name := worker.BucketName(s.cfg.Name)
	var err error
	s.bucket, err = lease.OpenBucket(ctx, s.conn.JS, name)
	switch {
	case errors.Is(err, lease.ErrNotFound):
		return s.noCheckpoint(fmt.Sprintf("its control bucket (KV %s) does not exist on %s", name, s.Server()))
	case err != nil:
		return fmt.Errorf("pipeline %q: control bucket %s on %s: %w", s.cfg.Name, name, s.Server(), err)
	}
	objects := worker.ObjectStoreName(s.cfg.Name)
	s.obs, err = s.conn.OpenObjectStore(ctx, objects)
	if errors.Is(err, natsio.ErrObjectStoreNotFound) {
		return s.noCheckpoint(fmt.Sprintf("its state Object Store %s does not exist on %s", objects, s.Server()))
	}
	return err
}

// noCheckpoint is ErrNoCheckpoint for the pipeline, with why and the fix.
func (s *Store) noCheckpoint(why string) error {
	return fmt.Errorf("%w for pipeline %q: %s; start the workers (wasmstream worker PIPELINE.hcl --id ID) and wait for one",
		ErrNoCheckpoint, s.cfg.Name, why)
}

// Close closes the connection.
func (s *Store) Close() { s.conn.Close() }

// Server is the URL of the NATS server the store is read from.
func (s *Store) Server() string { return s.conn.ClientURL() }

// Bucket is the control bucket's name.
func (s *Store) Bucket() string { return worker.BucketName(s.cfg.Name) }

// ObjectStore is the state Object Store bucket's name.
func (s *Store) ObjectStore() string { return worker.ObjectStoreName(s.cfg.Name) }

// Pipeline is the pipeline's name.
func (s *Store) Pipeline() string { return s.cfg.Name }
