package global_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// The fixture: one operator of 128 key groups in 4 tasks reading one source.
const (
	testOp     = "risk"
	testMaxPar = 128
	testTasks  = 4
	testSource = "orders"
	// deadLetters is the engine's dead-letter list of the operator.
	deadLetters = global.DeadLetterMetaPrefix + testOp
)

var (
	streamCreated = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	created       = time.Date(2025, 3, 2, 8, 0, 0, 0, time.UTC)
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func testRange(i int) state.KeyGroupRange { return state.RangeForTask(i, testTasks, testMaxPar) }

func info() global.OperatorInfo {
	return global.OperatorInfo{Name: testOp, ModuleSHA256: strings.Repeat("ab", 32), ABIVersion: 1,
		StateFormatVersion: state.FormatVersion, MaxParallelism: testMaxPar}
}

func template() checkpoint.Manifest {
	return checkpoint.Manifest{Created: created, Completed: created.Add(time.Second), Config: "pipeline \"p\" {}\n"}
}

// part returns a task part of task i at input position pos, with a made-up
// task manifest object (for the tests that never read it).
func part(worker string, i int, pos uint64) global.TaskPart {
	r := testRange(i)
	object := global.TaskObject(1, 1, 1, worker, testOp, r.Start)
	sum := sha256.Sum256([]byte(object))
	return global.TaskPart{Operator: testOp, Index: i, Object: object, SHA256: hex.EncodeToString(sum[:]),
		Entry: checkpoint.TaskEntry{KeyGroupRange: checkpoint.KeyGroupRange{Start: r.Start, End: r.End},
			Inputs: map[string]uint64{testSource: pos}, PauseNanos: int64(1000 * (i + 1)), AlignmentNanos: int64(10 * i)},
		Bytes: 1000, BytesNew: 100}
}

// ack returns worker's ack of checkpoint 1, generation 1, assignment 1,
// with its source at last and tasks at it.
func ack(worker string, last uint64, tasks ...int) global.Ack {
	a := global.Ack{Checkpoint: 1, Generation: 1, Assignment: 1, Worker: worker, DurationNanos: 5000,
		Sources:   []checkpoint.SourcePosition{{Name: testSource, Stream: "ORDERS", StreamCreated: streamCreated, LastSequence: last}},
		Operators: []global.OperatorInfo{info()}}
	for _, i := range tasks {
		a.Tasks = append(a.Tasks, part(worker, i, last))
	}
	return a
}

func assemble(t testing.TB, acks ...global.Ack) global.Manifest {
	t.Helper()
	m, err := global.Assemble(1, 1, 1, template(), acks)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// objectStore starts a real embedded JetStream server with a fresh store
// and returns a new bucket on it.
func objectStore(t testing.TB) jetstream.ObjectStore {
	t.Helper()
	c, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	obs, err := c.EnsureObjectStore(testCtx(t), natsio.ObjectStoreSpec{Bucket: "state"})
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// shipper returns a Shipper on obs with its own index and cache: one
// worker's.
func shipper(t testing.TB, obs jetstream.ObjectStore) *ship.Shipper {
	t.Helper()
	s, err := ship.New(testCtx(t), obs, ship.Options{IndexDir: t.TempDir(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openStore(t testing.TB, dir string) *state.Store {
	t.Helper()
	st, err := state.Open(dir, state.Options{CacheSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fill writes n keys of every task of the fixture's operator through the
// tasks' backends.
func fill(t testing.TB, st *state.Store, n int) {
	t.Helper()
	for i := range testTasks {
		be, err := st.Backend(state.BackendOptions{Operator: testOp, Range: testRange(i), MaxParallelism: testMaxPar})
		if err != nil {
			t.Fatal(err)
		}
		for written, k := 0, 0; written < n/testTasks; k++ {
			key := fmt.Appendf(nil, "key-%d", k)
			if state.TaskForKeyGroup(state.KeyGroup(key, testMaxPar), testTasks, testMaxPar) != i {
				continue
			}
			if err := be.SetCurrentKey(key); err != nil {
				t.Fatal(err)
			}
			if err := be.Put([]byte("count"), fmt.Appendf(nil, "value-%d-%d", i, k)); err != nil {
				t.Fatal(err)
			}
			written++
		}
		b := st.NewBatch()
		if _, err := be.FlushTo(b); err != nil {
			t.Fatal(err)
		}
		commit(t, st, b)
		be.Close()
	}
}

// putDeadLetters commits the operator's dead-letter list.
func putDeadLetters(t testing.TB, st *state.Store, list string) {
	t.Helper()
	b := st.NewBatch()
	if err := state.PutMeta(b, deadLetters, []byte(list)); err != nil {
		t.Fatal(err)
	}
	commit(t, st, b)
}

func commit(t testing.TB, st *state.Store, b *pebble.Batch) {
	t.Helper()
	if err := st.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// upload snapshots task i of st as worker and uploads it, returning its
// task part at input position pos.
func upload(t testing.TB, s *ship.Shipper, st *state.Store, worker string, i int, pos uint64) global.TaskPart {
	t.Helper()
	r := testRange(i)
	task := ship.Task{Operator: testOp, MaxParallelism: testMaxPar, Index: i, Range: r, MetaNames: []string{deadLetters}}
	snap, err := s.Snapshot(st.DB(), t.TempDir()+"/ckpt", task)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Upload(testCtx(t), snap, global.TaskObject(1, 1, 1, worker, testOp, r.Start))
	if err != nil {
		t.Fatal(err)
	}
	p := part(worker, i, pos)
	p.Object, p.SHA256, p.Bytes, p.BytesNew = res.ManifestObject, res.ManifestSHA256, res.BytesTotal, res.BytesUploaded
	return p
}

// stateOf returns the state keys of the operator in r, with their values.
func stateOf(t testing.TB, db *pebble.DB, r state.KeyGroupRange) map[string]string {
	t.Helper()
	lo, hi := state.GroupSpan(testOp, r)
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[string]string{}
	for valid := it.First(); valid; valid = it.Next() {
		out[string(it.Key())] = string(it.Value())
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mustEncode returns the encoding of a manifest or an ack.
func mustEncode[T any](t testing.TB, encode func(T) ([]byte, error), v T) []byte {
	t.Helper()
	data, err := encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
