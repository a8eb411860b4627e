package clusterckpt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt/clusterckpttest"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
	"github.com/wasmstream/wasmstream/plugins"
)

// The fixture: pipeline "orders" with one operator "risk" of 128 key
// groups in 4 tasks reading source "orders", run by workers w1 and w2.
const (
	pipeline    = "orders"
	testOp      = "risk"
	testMaxPar  = 128
	testTasks   = 4
	testSource  = "orders"
	deadLetters = `[{"source":"orders","sequence":3}]`
)

// moduleBytes stand for the operator's module: the fixture's manifests
// name their hash, and its pipeline file a file holding them.
var moduleBytes = []byte("risk.wasm v1")

var (
	streamCreated = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	created       = time.Date(2025, 3, 2, 8, 0, 0, 0, time.UTC)
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fixture is the fixture's cluster on a real embedded JetStream server.
type fixture struct {
	cfg     *config.Pipeline
	conn    *natsio.Conn
	cluster *clusterckpttest.Cluster
	src     *state.Store // the workers' state, as the checkpoints hold it
}

// newFixture starts a server and writes the pipeline file; the cluster's
// buckets exist only once withCluster created them.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	conn, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return &fixture{cfg: pipelineFile(t, conn.ClientURL()), conn: conn}
}

func (f *fixture) withCluster(t *testing.T) *fixture {
	t.Helper()
	f.cluster = clusterckpttest.New(t, f.conn.JS, pipeline)
	st, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.src = st
	return f
}

// pipelineFile writes the fixture's pipeline file with a cluster block on
// the server at url, and its module file.
func pipelineFile(t *testing.T, url string) *config.Pipeline {
	t.Helper()
	dir := t.TempDir()
	module := filepath.Join(dir, "risk.wasm")
	if err := os.WriteFile(module, moduleBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`name     = %q
data_dir = %q
server { url = %q }
cluster { replicas = 1 }
stream "ORDERS" { subjects = ["orders.>"] }
stream "RISK" { subjects = ["risk.>"] }
source %q { stream = "ORDERS" }
operator %q {
  module          = %q
  inputs          = [%q]
  key { json_field = "k" }
  max_parallelism = %d
  parallelism     = %d
  outputs         = { out = "totals" }
}
sink "totals" { subject = "risk.totals" }
`, pipeline, filepath.Join(dir, "data"), url, testSource, testOp, module, testSource, testMaxPar, testTasks)
	path := filepath.Join(dir, "pipeline.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// commit writes n more keys per task into the workers' state and commits a
// cluster checkpoint of it at source position pos.
func (f *fixture) commit(t *testing.T, n int, pos uint64) (global.Manifest, ctlrec.Completed) {
	t.Helper()
	fill(t, f.src, n, pos)
	op := checkpoint.OperatorEntry{Name: testOp, ModuleSHA256: plugins.HashBytes(moduleBytes), ABIVersion: 1,
		StateFormatVersion: state.FormatVersion, MaxParallelism: testMaxPar}
	for i := range testTasks {
		r := state.RangeForTask(i, testTasks, testMaxPar)
		op.Tasks = append(op.Tasks, checkpoint.TaskEntry{KeyGroupRange: checkpoint.KeyGroupRange{Start: r.Start, End: r.End},
			Inputs: map[string]uint64{testSource: pos}})
	}
	return f.cluster.Commit(t, clusterckpttest.Cut{DB: f.src.DB(), Workers: []string{"w1", "w2"}, Config: "pipeline\n", Created: created,
		Sources:   []checkpoint.SourcePosition{{Name: testSource, Stream: "ORDERS", StreamCreated: streamCreated, LastSequence: pos}},
		Operators: []checkpoint.OperatorEntry{op}})
}

// reference writes the workers' whole state as a local checkpoint of m's
// cut and returns its root: what a savepoint of m must hold, as long as
// nothing was committed since m.
func (f *fixture) reference(t *testing.T, m global.Manifest) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "reference")
	if _, err := (checkpoint.Writer{}).Write(root, f.src.DB(), m.Checkpoint); err != nil {
		t.Fatal(err)
	}
	return root
}

// dump returns the operator state of checkpoint id under root.
func dump(t *testing.T, root string, id uint64) []engine.StateEntry {
	t.Helper()
	entries, err := engine.DumpCheckpointState(root, id)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// fill writes n keys of every task of the operator, with values that
// depend on pos, and the operator's dead-letter list.
func fill(t *testing.T, st *state.Store, n int, pos uint64) {
	t.Helper()
	for i := range testTasks {
		r := state.RangeForTask(i, testTasks, testMaxPar)
		be, err := st.Backend(state.BackendOptions{Operator: testOp, Range: r, MaxParallelism: testMaxPar})
		if err != nil {
			t.Fatal(err)
		}
		for written, k := 0, 0; written < n; k++ {
			key := fmt.Appendf(nil, "key-%d", k)
			if state.TaskForKeyGroup(state.KeyGroup(key, testMaxPar), testTasks, testMaxPar) != i {
				continue
			}
			if err := be.SetCurrentKey(key); err != nil {
				t.Fatal(err)
			}
			if err := be.Put([]byte("total"), fmt.Appendf(nil, "%d-%d", k, pos)); err != nil {
				t.Fatal(err)
			}
			written++
		}
		b := st.NewBatch()
		if _, err := be.FlushTo(b); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(b); err != nil {
			t.Fatal(err)
		}
		be.Close()
	}
	b := st.NewBatch()
	if err := state.PutMeta(b, engine.DeadLetterMeta(testOp), []byte(deadLetters)); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// open opens the fixture's cluster checkpoints as the commands do.
func (f *fixture) open(t *testing.T) *clusterckpt.Store {
	t.Helper()
	s, err := clusterckpt.Open(testCtx(t), f.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
