package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt/clusterckpttest"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// clusterSums is a sum2 pipeline ("sums": source "in", operator "sum" in 4
// tasks, sink "sums") on a real embedded JetStream server, in three
// pipeline files that differ in data dir and cluster block: plain ran it
// in one process; the cluster file (a cluster block) is the same pipeline
// as workers see it, whose cluster checkpoint 1 holds plain's state of
// its first run (shipped per task as workers do, by clusterckpttest);
// restore is plain again on a fresh data dir.
type clusterSums struct {
	url                                 string
	plainFile, clusterFile, restoreFile string
	plainCfg, clusterCfg                *config.Pipeline
	local                               checkpoint.Manifest // plain's checkpoint the cluster one holds
	fixture                             *clusterckpttest.Cluster
	manifest                            global.Manifest
	record                              ctlrec.Completed
}

const clusterSumsTasks = 4

func newClusterSums(t *testing.T) *clusterSums {
	t.Helper()
	c := &clusterSums{url: natsServer(t)}
	module := testutil.GoGuest(t, "./internal/testguests/sum2")
	dir := t.TempDir()
	c.plainFile = c.pipelineFile(t, dir, "plain", module, "")
	c.clusterFile = c.pipelineFile(t, dir, "cluster", module, "cluster {\n  replicas = 1\n}\n")
	c.restoreFile = c.pipelineFile(t, dir, "restore", module, "")
	c.plainCfg, c.clusterCfg = mustLoad(t, c.plainFile), mustLoad(t, c.clusterFile)

	c.publish(t, 0, 300)
	mustExecCLI(t, "run", c.plainFile, "--stop-when-idle", "500ms", "--log-level", "warn")
	ids, err := checkpoint.List(engine.CheckpointRoot(c.plainCfg))
	if err != nil || len(ids) == 0 {
		t.Fatalf("the first run left checkpoints %v (%v)", ids, err)
	}
	if c.local, err = checkpoint.Read(engine.CheckpointRoot(c.plainCfg), ids[0]); err != nil {
		t.Fatal(err)
	}
	if n := len(c.local.Operators[0].Tasks); n != clusterSumsTasks {
		t.Fatalf("the run's checkpoint has %d task entries; the fixture ships one task per entry, want %d", n, clusterSumsTasks)
	}
	c.commit(t)
	return c
}

// pipelineFile writes the pipeline file of the data dir dir/name.
func (c *clusterSums) pipelineFile(t *testing.T, dir, name, module, cluster string) string {
	t.Helper()
	text := fmt.Sprintf(`name     = "sums"
data_dir = %q

server {
  url = %q
}
%s
stream "SUMIN" {
  subjects = ["sumin.>"]
}

stream "SUMOUT" {
  subjects         = ["sumout.>"]
  duplicate_window = "10m"
}

source "in" {
  stream  = "SUMIN"
  subject = "sumin.x"
}

operator "sum" {
  module      = %q
  inputs      = ["in"]
  parallelism = %d
  key {
    json_field = "k"
  }
  outputs = { out = "sums" }
}

sink "sums" {
  subject = "sumout.sums"
}
`, filepath.Join(dir, name, "data"), c.url, cluster, module, clusterSumsTasks)
	path := filepath.Join(dir, name+".hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t *testing.T, path string) *config.Pipeline {
	t.Helper()
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// publish publishes records first..last-1 of the workload: 20 keys.
func (c *clusterSums) publish(t *testing.T, first, last int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := engine.ConnectClient(ctx, c.plainCfg, hclog.NewNullLogger(), engine.AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := first; i < last; i++ {
		if _, err := conn.JS.Publish(ctx, "sumin.x", fmt.Appendf(nil, `{"k":"key-%d","v":%d}`, i%20, i)); err != nil {
			t.Fatal(err)
		}
	}
}

// commit ships the state of plain's checkpoint as cluster checkpoint 1 of
// workers w1 and w2.
func (c *clusterSums) commit(t *testing.T) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := checkpoint.RestoreState(engine.CheckpointRoot(c.plainCfg), c.local.ID, dir); err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := engine.ConnectClient(ctx, c.clusterCfg, hclog.NewNullLogger(), engine.AsControl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close) // the fixture damages objects through it
	c.fixture = clusterckpttest.New(t, conn.JS, "sums")
	c.manifest, c.record = c.fixture.Commit(t, clusterckpttest.Cut{DB: st.DB(), Sources: c.local.Sources, Operators: c.local.Operators,
		Workers: []string{"w1", "w2"}, Config: c.clusterCfg.Text, Created: c.local.Created})
}

// TestCheckpointsOfAClusterPipeline: with a cluster block, list, inspect
// and verify read the cluster's checkpoints from NATS; verify fails on one
// flipped byte in a task manifest or a state object, naming it.
func TestCheckpointsOfAClusterPipeline(t *testing.T) {
	c := newClusterSums(t)
	positions := formatPositions(c.local.Sources)
	out := mustRunCheckpoints(t, "list", c.clusterFile)
	wantContains(t, "list", out, `cluster checkpoints of pipeline "sums" on `+c.url, "KV wasmstream-sums", "GENERATION", "ASSIGNMENT",
		"1 (latest)", "w1,w2", positions, "sum@"+shortHash(c.local.Operators[0].ModuleSHA256))
	var rows []map[string]any
	if err := json.Unmarshal([]byte(mustRunCheckpoints(t, "list", c.clusterFile, "--json")), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("list --json: %v %v", rows, err)
	}
	if r := rows[0]; r["id"] != 1.0 || r["latest"] != true || r["generation"] != float64(c.record.Generation) ||
		r["task_checkpoints"] != float64(clusterSumsTasks) || r["manifest"] != c.record.Manifest || fmt.Sprint(r["workers"]) != "[w1 w2]" {
		t.Fatalf("list --json row: %v", r)
	}
	if local := mustRunCheckpoints(t, "list", "--data-dir", c.clusterCfg.DataDir); !strings.Contains(local, "no checkpoints in") {
		t.Errorf("--data-dir must list the data dir's own checkpoints:\n%s", local)
	}

	out = mustRunCheckpoints(t, "inspect", c.clusterFile)
	wantContains(t, "inspect", out, "cluster checkpoint 1 (latest", c.record.Manifest, "w1, w2", "RESUMES AT", `operator "sum"`,
		"WORKER", "OBJECT", c.manifest.Tasks[3].Object)
	for _, task := range clusterckpt.Tasks(c.manifest, "sum") {
		e := task.Entry
		if !hasRow(out, uintString(uint64(task.Index)), fmt.Sprintf("[%d,", e.Start), fmt.Sprintf("%d)", e.End), formatInputs(e.Inputs), task.Worker, task.Object) {
			t.Errorf("inspect lacks the row of task %d (worker %s, object %s):\n%s", task.Index, task.Worker, task.Object, out)
		}
	}
	var inspected clusterInspectJSON
	if err := json.Unmarshal([]byte(mustRunCheckpoints(t, "inspect", c.clusterFile, "1", "--json")), &inspected); err != nil ||
		inspected.Object != c.record.Manifest || !inspected.Latest || len(inspected.Tasks) != clusterSumsTasks {
		t.Fatalf("inspect --json: %+v %v", inspected, err)
	}

	out = mustRunCheckpoints(t, "verify", c.clusterFile)
	wantContains(t, "verify", out, "cluster checkpoint 1: ok (4 task checkpoints")
	objects := c.fixture.ObjectsOf(t, c.manifest)
	stateObject := objects[slices.IndexFunc(objects, func(o string) bool { return strings.HasPrefix(o, "sst/") })]
	for _, object := range []string{objects[1], stateObject, objects[0]} { // a task manifest, a state object, the manifest
		restore := c.fixture.FlipByte(t, object)
		out, err := runCheckpoints(t, "verify", c.clusterFile, "--all")
		if !errors.Is(err, errVerifyFailed) || !strings.Contains(out, object) || !strings.Contains(out, "cluster checkpoint 1: FAILED") {
			t.Errorf("verify with a byte of %s flipped: %v\n%s", object, err, out)
		}
		restore()
	}
	_, err := runCheckpoints(t, "verify", c.clusterFile, "7")
	if !errors.Is(err, clusterckpt.ErrNotFound) || !strings.Contains(err.Error(), "completed: 1") {
		t.Fatalf("verify 7: %v", err)
	}
	if _, err := runCheckpoints(t, "verify", c.clusterFile, "1", "--all"); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("verify 1 --all: %v", err)
	}
}

// TestCheckpointsOfAClusterPipelineBeforeTheWorkers: nothing to list or
// verify is not a failure, and says how to get a checkpoint; inspecting
// one is.
func TestCheckpointsOfAClusterPipelineBeforeTheWorkers(t *testing.T) {
	dir := t.TempDir()
	c := &clusterSums{url: natsServer(t)}
	path := c.pipelineFile(t, dir, "cluster", filepath.Join(dir, "sum2.wasm"), "cluster {\n  replicas = 1\n}\n")
	for _, sub := range []string{"list", "verify"} {
		out := mustRunCheckpoints(t, sub, path)
		wantContains(t, sub, out, `no cluster checkpoint completed yet for pipeline "sums"`, "start the workers (wasmstream worker")
	}
	_, err := runCheckpoints(t, "inspect", path)
	if !errors.Is(err, clusterckpt.ErrNoCheckpoint) || !strings.Contains(err.Error(), "KV wasmstream-sums") {
		t.Fatalf("inspect before any worker: %v", err)
	}
}
