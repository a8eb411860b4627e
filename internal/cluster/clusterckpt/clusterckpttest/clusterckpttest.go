// Package clusterckpttest writes completed cluster checkpoints into a real
// JetStream server the way workers do (internal/cluster/worker: a task
// checkpoint per task shipped with package ship, the acks assembled into
// a global manifest, the fenced completion record), without running
// workers, and damages their objects: fixtures for the tests of the
// commands that read cluster checkpoints.
package clusterckpttest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/state"
)

// assignment is the assignment epoch of every checkpoint Commit writes.
const assignment = 1

// Cluster is one pipeline's cluster checkpoint assets on a server, created
// as the first worker creates them (replicas 1), and the coordinator lease
// that completes checkpoints there.
type Cluster struct {
	Bucket  *lease.Bucket
	Objects jetstream.ObjectStore
	lease   *lease.Lease
}

// New creates pipeline's control bucket and state Object Store on js and
// acquires the coordinator lease.
func New(tb testing.TB, js jetstream.JetStream, pipeline string) *Cluster {
	tb.Helper()
	ctx := testCtx(tb)
	b, err := lease.EnsureBucket(ctx, js, worker.BucketName(pipeline), 1)
	if err != nil {
		tb.Fatal(err)
	}
	obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: worker.ObjectStoreName(pipeline), Storage: jetstream.FileStorage})
	if err != nil {
		tb.Fatal(err)
	}
	l, err := b.Acquire(ctx, "coordinator", "fixture", time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	return &Cluster{Bucket: b, Objects: obs, lease: l}
}

// Cut is what the workers snapshot for one checkpoint.
type Cut struct {
	// DB holds the state of every task.
	DB *pebble.DB
	// Sources are the positions every worker reports.
	Sources []checkpoint.SourcePosition
	// Operators are the operators with their task entries; entry i is
	// task i (no split entries).
	Operators []checkpoint.OperatorEntry
	// Workers run the tasks: task i of each operator runs on
	// Workers[i%len(Workers)].
	Workers []string
	// Config and Created go into the manifest, as the coordinator's
	// template gives them.
	Config  string
	Created time.Time
}

// Commit claims the next checkpoint, ships every task of cut as its
// worker, assembles and stores the global manifest and completes the
// checkpoint. It returns the manifest and the completion record.
func (c *Cluster) Commit(tb testing.TB, cut Cut) (global.Manifest, ctlrec.Completed) {
	tb.Helper()
	ctx := testCtx(tb)
	p, err := ctlrec.Claim(ctx, c.Bucket, c.lease, assignment, false)
	if err != nil {
		tb.Fatal(err)
	}
	acks := map[string]*global.Ack{}
	for _, w := range cut.Workers {
		acks[w] = &global.Ack{Checkpoint: p.Checkpoint, Generation: p.Generation, Assignment: p.Assignment, Worker: w,
			Sources: cut.Sources, DurationNanos: int64(time.Millisecond)}
	}
	for _, op := range cut.Operators {
		for i, e := range op.Tasks {
			a := acks[cut.Workers[i%len(cut.Workers)]]
			a.Tasks = append(a.Tasks, c.ship(tb, cut.DB, p, a.Worker, op, i, e))
			if !slices.ContainsFunc(a.Operators, func(o global.OperatorInfo) bool { return o.Name == op.Name }) {
				a.Operators = append(a.Operators, global.InfoOf(op))
			}
		}
	}
	var list []global.Ack
	for _, w := range cut.Workers {
		list = append(list, *acks[w])
	}
	template := checkpoint.Manifest{ID: p.Checkpoint, Created: cut.Created.UTC(), Config: cut.Config}
	m, err := global.Assemble(p.Checkpoint, p.Generation, p.Assignment, template, list)
	if err != nil {
		tb.Fatal(err)
	}
	object, sum, err := global.PutManifest(ctx, c.Objects, m)
	if err != nil {
		tb.Fatal(err)
	}
	rec := ctlrec.Completed{Checkpoint: p.Checkpoint, Generation: p.Generation, Assignment: p.Assignment, Manifest: object, SHA256: sum}
	if err := ctlrec.Complete(ctx, c.lease, p, rec); err != nil {
		tb.Fatal(err)
	}
	rec.Version = ctlrec.Version
	return m, rec
}

// ship uploads task i of op as worker does (worker part.ship) and returns
// its part.
func (c *Cluster) ship(tb testing.TB, db *pebble.DB, p ctlrec.Pending, worker string, op checkpoint.OperatorEntry, i int, e checkpoint.TaskEntry) global.TaskPart {
	tb.Helper()
	sh, err := ship.New(testCtx(tb), c.Objects, ship.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	task := ship.Task{Operator: op.Name, MaxParallelism: op.MaxParallelism, Index: i,
		Range: state.KeyGroupRange{Start: e.Start, End: e.End}, MetaNames: []string{engine.DeadLetterMeta(op.Name)}}
	snap, err := sh.Snapshot(db, filepath.Join(tb.TempDir(), fmt.Sprintf("%s-%d", op.Name, i)), task)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := sh.Upload(testCtx(tb), snap, global.TaskObject(p.Checkpoint, p.Generation, p.Assignment, worker, op.Name, e.Start))
	if err != nil {
		tb.Fatal(err)
	}
	return global.TaskPart{Operator: op.Name, Index: i, Entry: e, Object: res.ManifestObject, SHA256: res.ManifestSHA256,
		Bytes: res.BytesTotal, BytesNew: res.BytesUploaded}
}

// ObjectsOf returns every object of checkpoint m: its global manifest, the
// task manifests and the state objects they reference, each once.
func (c *Cluster) ObjectsOf(tb testing.TB, m global.Manifest) []string {
	tb.Helper()
	sh, err := ship.New(testCtx(tb), c.Objects, ship.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	out := []string{global.ManifestObject(m.ID(), m.Generation)}
	for _, p := range m.Tasks {
		if slices.Contains(out, p.Object) {
			continue
		}
		out = append(out, p.Object)
		tm, err := sh.FetchManifest(testCtx(tb), p.Object, p.SHA256)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range tm.Files {
			if o := ship.ObjectName(f.SHA256); !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}

// FlipByte changes one byte of object (in its middle; an empty object
// gets one) and stores it again under the same name, as a disk or a hand
// would damage it: the Object Store's own digest is recomputed, so only
// the SHA-256 the checkpoint records tells. It returns a function that
// puts the original bytes back.
func (c *Cluster) FlipByte(tb testing.TB, object string) (restore func()) {
	tb.Helper()
	ctx := testCtx(tb)
	data, err := c.Objects.GetBytes(ctx, object)
	if err != nil {
		tb.Fatal(err)
	}
	damaged := []byte{0}
	if len(data) > 0 {
		damaged = slices.Clone(data)
		damaged[len(damaged)/2] ^= 0x01
	}
	if _, err := c.Objects.PutBytes(ctx, object, damaged); err != nil {
		tb.Fatal(err)
	}
	return func() {
		tb.Helper()
		if _, err := c.Objects.PutBytes(testCtx(tb), object, data); err != nil {
			tb.Fatal(err)
		}
	}
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	tb.Cleanup(cancel)
	return ctx
}
