package main

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/deploy"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

const clusterBlock = "cluster {\n  replicas = 1\n}\n"

// quickCluster is a cluster block for a worker in a test: it is assigned
// its tasks at once and checkpoints every half second.
const quickCluster = `cluster {
  replicas       = 1
  worker_timeout = "1s"
  lease_ttl      = "3s"
  stabilization  = "0s"
}

checkpoint {
  interval = "500ms"
}
`

// TestDeployCreatesTheClusterAssets: deploy without a savepoint creates
// the streams, the dead-letter stream (at the cluster's replicas, 1 here),
// the control bucket and the state Object Store, and a second
// deploy finds them all there; a pipeline without a cluster block is
// refused.
func TestDeployCreatesTheClusterAssets(t *testing.T) {
	c := &clusterSums{url: natsServer(t)}
	dir := t.TempDir()
	path := c.pipelineFile(t, dir, "cluster", filepath.Join(dir, "sum2.wasm"), clusterBlock)
	assets := [][]string{{"stream", "SUMIN"}, {"stream", "SUMOUT"}, {"stream", engine.DeadLetterStream}, {"control", "bucket", "wasmstream-sums"}, {"state", "object", "store", "wasmstream-sums-state"}}
	for _, state := range []string{"created", "exists"} {
		out := mustExecCLI(t, "deploy", path)
		wantContains(t, "deploy", out, `pipeline "sums" on `+c.url, "ready: start the workers")
		for _, a := range assets {
			if !hasRow(out, append(a, state, "R1")...) {
				t.Errorf("deploy lacks the row %q %s R1:\n%s", a, state, out)
			}
		}
	}
	js := clientJS(t, mustLoad(t, path))
	if _, err := lease.OpenBucket(context.Background(), js, worker.BucketName("sums")); err != nil {
		t.Fatalf("the control bucket: %v", err)
	}
	if _, err := js.ObjectStore(context.Background(), worker.ObjectStoreName("sums")); err != nil {
		t.Fatalf("the state object store: %v", err)
	}
	var printed struct{ Assets deploy.Assets }
	if err := json.Unmarshal([]byte(mustExecCLI(t, "deploy", path, "--json")), &printed); err != nil || len(printed.Assets.List) != len(assets) || printed.Assets.List[0].Created {
		t.Fatalf("deploy --json: %+v %v", printed, err)
	}

	plain := c.pipelineFile(t, dir, "plain", filepath.Join(dir, "sum2.wasm"), "")
	if _, err := execCLI(t, "deploy", plain); !errors.Is(err, clusterckpt.ErrNotCluster) {
		t.Fatalf("deploy of a pipeline without a cluster block: %v", err)
	}
}

// TestDeployFromSavepointSeedsTheCluster: a one-process run's savepoint,
// deployed into the same pipeline with a cluster block on the same server,
// is the cluster's checkpoint 1, and that checkpoint restores exactly the
// savepoint's state, positions and task entries.
func TestDeployFromSavepointSeedsTheCluster(t *testing.T) {
	c, archive := newDeploySums(t, clusterBlock)
	out := mustExecCLI(t, "deploy", c.clusterFile, "--from-savepoint", archive)
	wantContains(t, "deploy", out, "seeded cluster checkpoint 1 (generation", "from savepoint "+archive+" (its checkpoint "+uintString(c.local.ID),
		formatPositions(c.local.Sources), "in 4 task checkpoints", "the workers started now restore it")
	if !hasRow(out, "control", "bucket", "wasmstream-sums", "created") {
		t.Errorf("deploy --from-savepoint must create the control bucket:\n%s", out)
	}

	got := seeded(t, c)
	if !reflect.DeepEqual(got.Checkpoint.Sources, c.local.Sources) {
		t.Errorf("the seeded checkpoint's positions %v, the savepoint's %v", got.Checkpoint.Sources, c.local.Sources)
	}
	if g, w := got.Checkpoint.Operators[0], c.local.Operators[0]; !reflect.DeepEqual(g.Tasks, w.Tasks) || g.ModuleSHA256 != w.ModuleSHA256 {
		t.Errorf("the seeded checkpoint's operator %+v, the savepoint's %+v", g, w)
	}
	if !reflect.DeepEqual(got.Workers, []string{deploy.Holder}) {
		t.Errorf("workers %v, want [%s]", got.Workers, deploy.Holder)
	}
	root := materializeAll(t, c, got)
	if want := dumpOf(t, engine.CheckpointRoot(c.plainCfg), c.local.ID); !reflect.DeepEqual(dumpOf(t, root, got.ID()), want) || len(want) == 0 {
		t.Fatalf("the seeded checkpoint holds %d state entries, the savepoint %d", len(dumpOf(t, root, got.ID())), len(want))
	}

	out = mustRunCheckpoints(t, "inspect", c.clusterFile)
	wantContains(t, "inspect", out, "cluster checkpoint 1 (latest", deploy.Holder, formatPositions(c.local.Sources))
	wantContains(t, "verify", mustRunCheckpoints(t, "verify", c.clusterFile), "cluster checkpoint 1: ok (4 task checkpoints")
	if _, err := lease.OpenBucket(context.Background(), clientJS(t, c.clusterCfg), worker.BucketName("sums")); err != nil {
		t.Fatal(err)
	}
	if holder := coordinatorHolder(t, c); holder != "" {
		t.Errorf("deploy left the coordinator lease held by %q", holder)
	}
}

// TestDeployRefusesOverCompletedCheckpoints: a second seed needs --force,
// and then becomes the latest checkpoint; the savepoint is found in the
// Object Store too.
func TestDeployRefusesOverCompletedCheckpoints(t *testing.T) {
	c, archive := newDeploySums(t, clusterBlock)
	mustExecCLI(t, "deploy", c.clusterFile, "--from-savepoint", archive)
	mustRunSavepoint(t, "export", c.plainFile, "golden", "--to-object-store")

	_, err := execCLI(t, "deploy", c.clusterFile, "--from-savepoint", "objectstore:golden")
	if !errors.Is(err, deploy.ErrCheckpointsExist) || !strings.Contains(err.Error(), "cluster checkpoint 1") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("a second deploy without --force: %v", err)
	}
	out := mustExecCLI(t, "deploy", c.clusterFile, "--from-savepoint", "objectstore:golden", "--force")
	wantContains(t, "deploy --force", out, "seeded cluster checkpoint 2", "checkpoint 2 replaces 1 as the latest")
	if got := seeded(t, c); got.ID() != 2 || !reflect.DeepEqual(got.Checkpoint.Sources, c.local.Sources) {
		t.Fatalf("the latest checkpoint after --force: %d at %v", got.ID(), got.Checkpoint.Sources)
	}
	if _, err := execCLI(t, "deploy", c.clusterFile, "--force"); err == nil || !strings.Contains(err.Error(), "--from-savepoint only") {
		t.Fatalf("--force without --from-savepoint: %v", err)
	}
}

// TestDeployedSavepointRestoresIntoWorkers: a worker started after a
// deploy --from-savepoint restores the savepoint's state and positions:
// after 120 more records (the 300 the savepoint covers purged from the
// stream) the cluster's state is the one-process pipeline's after the
// same records.
func TestDeployedSavepointRestoresIntoWorkers(t *testing.T) {
	c, archive := newDeploySums(t, quickCluster)
	mustExecCLI(t, "deploy", c.clusterFile, "--from-savepoint", archive)
	// Without the savepoint's state, a worker would now read 120 records
	// from the start and end with other sums.
	purgeBefore(t, c, 301)
	c.publish(t, 300, 420)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, worker.Options{Config: c.clusterCfg, ID: "w1"}) }()
	got := waitForPosition(t, c, 420)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}

	mustExecCLI(t, "run", c.plainFile, "--stop-when-idle", "500ms", "--log-level", "warn")
	plain := newest(t, engine.CheckpointRoot(c.plainCfg))
	if !reflect.DeepEqual(plain.Sources, got.Checkpoint.Sources) {
		t.Fatalf("positions of the worker %v, of the one-process run %v", got.Checkpoint.Sources, plain.Sources)
	}
	want := dumpOf(t, engine.CheckpointRoot(c.plainCfg), plain.ID)
	if have := dumpOf(t, materializeAll(t, c, got), got.ID()); !reflect.DeepEqual(have, want) {
		t.Fatalf("after 120 more records the worker's state (%d entries) differs from the one-process pipeline's (%d)", len(have), len(want))
	}
}

// purgeBefore removes the records of SUMIN before sequence seq.
func purgeBefore(t *testing.T, c *clusterSums, seq uint64) {
	t.Helper()
	s, err := clientJS(t, c.plainCfg).Stream(testCtx(t), "SUMIN")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(testCtx(t), jetstream.WithPurgeSequence(seq)); err != nil {
		t.Fatal(err)
	}
}

// waitForPosition waits for a cluster checkpoint whose source "in" is at
// seq and returns it.
func waitForPosition(t *testing.T, c *clusterSums, seq uint64) global.Manifest {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		m, err := latestManifest(t, c)
		switch {
		case err != nil && !errors.Is(err, clusterckpt.ErrNoCheckpoint):
			t.Fatal(err)
		case err == nil && len(m.Checkpoint.Sources) == 1 && m.Checkpoint.Sources[0].LastSequence == seq:
			return m
		case time.Now().After(deadline):
			t.Fatalf("no cluster checkpoint at in=%d within a minute; the latest is %d at %s (%v)", seq, m.ID(), formatPositions(m.Checkpoint.Sources), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestDeployRefusesWhileWorkersRun: a held coordinator lease or membership
// lease is refused before the savepoint is even read, and nothing is
// claimed or completed.
func TestDeployRefusesWhileWorkersRun(t *testing.T) {
	c := &clusterSums{url: natsServer(t)}
	dir := t.TempDir()
	path := c.pipelineFile(t, dir, "cluster", filepath.Join(dir, "sum2.wasm"), clusterBlock)
	mustExecCLI(t, "deploy", path)
	ctx := context.Background()
	b, err := lease.EnsureBucket(ctx, clientJS(t, mustLoad(t, path)), worker.BucketName("sums"), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, holder string
		want        error
		says        string
	}{
		{worker.CoordinatorKey, "w1", deploy.ErrWorkersRunning, `"w1" holds the coordinator lease`},
		{member.Key("w2"), "w2", deploy.ErrWorkersRunning, "worker w2 holds its membership lease"},
		{worker.CoordinatorKey, deploy.Holder, lease.ErrHeld, "another deploy holds the coordinator lease"},
	} {
		l, err := b.Acquire(ctx, tc.key, tc.holder, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		_, err = execCLI(t, "deploy", path, "--from-savepoint", "no-such-savepoint")
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("deploy with %s held by %s: %v", tc.key, tc.holder, err)
		}
		if errors.Is(tc.want, deploy.ErrWorkersRunning) && !strings.Contains(err.Error(), "stop the workers first") {
			t.Errorf("the refusal does not say what to do: %v", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ctlrec.ReadPending(ctx, b); !errors.Is(err, lease.ErrNotFound) {
		t.Fatalf("a refused deploy claimed a checkpoint: %v", err)
	}
	if _, err := execCLI(t, "deploy", path, "--from-savepoint", "no-such-savepoint"); !errors.Is(err, checkpoint.ErrSavepointNotFound) {
		t.Fatalf("with the workers gone the savepoint is looked for: %v", err)
	}
}

// newDeploySums runs the sum2 pipeline of clusterSums once in one process
// (300 records) and exports a savepoint "golden" of its checkpoint to an
// archive; the cluster file (with the block cluster) has nothing yet.
func newDeploySums(t *testing.T, cluster string) (*clusterSums, string) {
	t.Helper()
	c := &clusterSums{url: natsServer(t)}
	module := testutil.GoGuest(t, "./internal/testguests/sum2")
	dir := t.TempDir()
	c.plainFile = c.pipelineFile(t, dir, "plain", module, "")
	c.clusterFile = c.pipelineFile(t, dir, "cluster", module, cluster)
	c.plainCfg, c.clusterCfg = mustLoad(t, c.plainFile), mustLoad(t, c.clusterFile)
	c.publish(t, 0, 300)
	mustExecCLI(t, "run", c.plainFile, "--stop-when-idle", "500ms", "--log-level", "warn")
	c.local = newest(t, engine.CheckpointRoot(c.plainCfg))
	mustRunSavepoint(t, "create", c.plainFile, "golden")
	archive := filepath.Join(t.TempDir(), "golden.tar")
	mustRunSavepoint(t, "export", c.plainFile, "golden", archive)
	return c, archive
}

// seeded reads the cluster's latest checkpoint.
func seeded(t *testing.T, c *clusterSums) global.Manifest {
	t.Helper()
	m, err := latestManifest(t, c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func latestManifest(t *testing.T, c *clusterSums) (global.Manifest, error) {
	t.Helper()
	ctx := testCtx(t)
	s, err := clusterckpt.Open(ctx, c.clusterCfg, nil)
	if err != nil {
		return global.Manifest{}, err
	}
	defer s.Close()
	got, err := s.Get(ctx, 0)
	return got.Manifest, err
}

// materializeAll restores every task of m from the Object Store into a
// local checkpoint, as a worker restores its own, and returns its root.
func materializeAll(t *testing.T, c *clusterSums, m global.Manifest) string {
	t.Helper()
	ctx := testCtx(t)
	obs, err := clientJS(t, c.clusterCfg).ObjectStore(ctx, worker.ObjectStoreName("sums"))
	if err != nil {
		t.Fatal(err)
	}
	sh, err := ship.New(ctx, obs, ship.Options{CacheDir: filepath.Join(t.TempDir(), "cache")})
	if err != nil {
		t.Fatal(err)
	}
	owned := map[string][]int{}
	for _, p := range m.Tasks {
		if idx := owned[p.Operator]; len(idx) == 0 || idx[len(idx)-1] != p.Index {
			owned[p.Operator] = append(idx, p.Index)
		}
	}
	root := filepath.Join(t.TempDir(), "checkpoints")
	if _, err := global.Materialize(ctx, sh, m, owned, root, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	return root
}

// coordinatorHolder is the holder of the pipeline's coordinator lease, ""
// when none holds it.
func coordinatorHolder(t *testing.T, c *clusterSums) string {
	t.Helper()
	b, err := lease.OpenBucket(testCtx(t), clientJS(t, c.clusterCfg), worker.BucketName("sums"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Get(testCtx(t), worker.CoordinatorKey)
	if errors.Is(err, lease.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	h, _ := lease.HolderOf(m.Data)
	return h
}

// clientJS is a JetStream client of cfg's server, closed with the test.
func clientJS(t *testing.T, cfg *config.Pipeline) jetstream.JetStream {
	t.Helper()
	conn, err := engine.ConnectClient(testCtx(t), cfg, hclog.NewNullLogger(), engine.AsControl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn.JS
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
