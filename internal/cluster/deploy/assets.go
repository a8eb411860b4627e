package deploy

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// Kinds of Asset.
const (
	KindStream      = "stream"
	KindControl     = "control bucket"
	KindObjectStore = "state object store"
)

// Asset is one thing the workers need on the cluster, as Ensure left it.
type Asset struct {
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Replicas int    `json:"replicas"`
	// Created: Ensure created it; else it existed.
	Created bool `json:"created"`
}

// Assets are a pipeline's assets on one server.
type Assets struct {
	// Server is the URL of the server they were ensured through.
	Server string  `json:"server"`
	List   []Asset `json:"assets"`
}

// Ensure creates what cfg's workers need before any traffic (design §4
// consequence 1): the declared streams, the dead-letter stream, the
// exchange streams between operators, the control bucket and the state
// Object Store, with cluster.replicas replicas, as the first worker does.
// Existing ones are used as they are (a stream whose declaration
// differs, or a control bucket that cannot hold leases, is refused).
func Ensure(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (Assets, error) {
	c, err := connect(ctx, cfg, orNull(logger))
	if err != nil {
		return Assets{}, err
	}
	c.close()
	return c.assets, nil
}

// cluster is a connection to a cluster pipeline's NATS with its control
// assets ensured.
type cluster struct {
	cfg    *config.Pipeline
	conn   *natsio.Conn
	bucket *lease.Bucket
	obs    jetstream.ObjectStore
	assets Assets
}

// connect ensures cfg's assets and keeps the connection.
func connect(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (*cluster, error) {
	if !clusterckpt.IsCluster(cfg) {
		return nil, fmt.Errorf("%w: pipeline %q has no cluster block; deploy prepares pipelines run by wasmstream worker (wasmstream run creates its own streams, and takes --from-savepoint itself)",
			clusterckpt.ErrNotCluster, cfg.Name)
	}
	existed, err := existing(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	conn, err := engine.ConnectClient(ctx, cfg, logger, engine.AsControl) // ensures the declared streams
	if err != nil {
		return nil, err
	}
	c := &cluster{cfg: cfg, conn: conn, assets: Assets{Server: conn.ClientURL()}}
	if err := c.ensure(ctx, existed); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func (c *cluster) close() { c.conn.Close() }

// ensure creates the control assets as the worker does (worker.connect)
// and lists every asset.
func (c *cluster) ensure(ctx context.Context, existed map[Asset]bool) error {
	for _, st := range c.cfg.Streams {
		s, err := c.conn.JS.Stream(ctx, st.Name)
		if err != nil {
			return fmt.Errorf("pipeline %q: stream %s: %w", c.cfg.Name, st.Name, err)
		}
		c.add(existed, Asset{Kind: KindStream, Name: st.Name, Replicas: s.CachedInfo().Config.Replicas})
	}
	if err := engine.EnsureDeadLetterStream(ctx, c.cfg, c.conn); err != nil {
		return fmt.Errorf("pipeline %q: %w", c.cfg.Name, err)
	}
	c.add(existed, Asset{Kind: KindStream, Name: engine.DeadLetterStream, Replicas: c.cfg.DeadLetterReplicas()})
	exchanges, err := engine.EnsureExchanges(ctx, c.cfg, c.conn)
	if err != nil {
		return fmt.Errorf("pipeline %q: %w", c.cfg.Name, err)
	}
	for _, name := range exchanges {
		c.add(existed, Asset{Kind: KindStream, Name: name, Replicas: c.cfg.ExchangeReplicas()})
	}
	replicas := c.cfg.Cluster.Replicas
	name := worker.BucketName(c.cfg.Name)
	if c.bucket, err = lease.EnsureBucket(ctx, c.conn.JS, name, replicas); err != nil {
		return fmt.Errorf("pipeline %q: control bucket: %w", c.cfg.Name, err)
	}
	c.add(existed, Asset{Kind: KindControl, Name: name, Replicas: replicas}) // EnsureBucket checked them
	name = worker.ObjectStoreName(c.cfg.Name)
	if c.obs, err = c.conn.EnsureObjectStore(ctx, natsio.ObjectStoreSpec{Bucket: name, Replicas: replicas}); err != nil {
		return fmt.Errorf("pipeline %q: state object store: %w", c.cfg.Name, err)
	}
	st, err := c.obs.Status(ctx)
	if err != nil {
		return fmt.Errorf("pipeline %q: state object store %s: %w", c.cfg.Name, name, err)
	}
	c.add(existed, Asset{Kind: KindObjectStore, Name: name, Replicas: st.Replicas()})
	return nil
}

func (c *cluster) add(existed map[Asset]bool, a Asset) {
	a.Created = !existed[Asset{Kind: a.Kind, Name: a.Name}]
	c.assets.List = append(c.assets.List, a)
}

// existing returns the assets of cfg that exist before anything is
// created (keys with Kind and Name only). engine.ConnectClient ensures
// the declared streams on connect, so it connects as a pipeline without
// any.
func existing(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (map[Asset]bool, error) {
	bare := *cfg
	bare.Streams = nil
	conn, err := engine.ConnectClient(ctx, &bare, logger, engine.AsControl)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	out := map[Asset]bool{}
	for _, st := range cfg.Streams {
		_, err := conn.JS.Stream(ctx, st.Name)
		if err := found(out, Asset{Kind: KindStream, Name: st.Name}, err, jetstream.ErrStreamNotFound); err != nil {
			return nil, err
		}
	}
	for _, name := range append([]string{engine.DeadLetterStream}, engine.ExchangeStreams(cfg)...) {
		_, err := conn.JS.Stream(ctx, name)
		if err := found(out, Asset{Kind: KindStream, Name: name}, err, jetstream.ErrStreamNotFound); err != nil {
			return nil, err
		}
	}
	_, err = conn.JS.KeyValue(ctx, worker.BucketName(cfg.Name))
	if err := found(out, Asset{Kind: KindControl, Name: worker.BucketName(cfg.Name)}, err, jetstream.ErrBucketNotFound); err != nil {
		return nil, err
	}
	_, err = conn.OpenObjectStore(ctx, worker.ObjectStoreName(cfg.Name))
	return out, found(out, Asset{Kind: KindObjectStore, Name: worker.ObjectStoreName(cfg.Name)}, err, natsio.ErrObjectStoreNotFound)
}

// found records a in out when err is nil; missing is not an error.
func found(out map[Asset]bool, a Asset, err, missing error) error {
	switch {
	case err == nil:
		out[a] = true
	case !errors.Is(err, missing):
		return fmt.Errorf("%s %s: %w", a.Kind, a.Name, err)
	}
	return nil
}

func orNull(l hclog.Logger) hclog.Logger {
	if l == nil {
		return hclog.NewNullLogger()
	}
	return l
}
