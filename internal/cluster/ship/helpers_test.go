package ship_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// The fixture's operator: 128 key groups in 4 tasks.
const (
	testOp     = "risk"
	testMaxPar = 128
	testTasks  = 4
	// deadLetters is the engine's metadata name for the operator's
	// dead-letter list (internal/engine/deadletters.go metaDeadLetters).
	deadLetters = "engine/deadletters/" + testOp
	otherOp     = "riskx" // a second operator whose keys must never be imported
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// objectStore starts a real embedded JetStream server with a fresh store
// and returns a new bucket on it.
func objectStore(t testing.TB) (*natsio.Conn, jetstream.ObjectStore) {
	t.Helper()
	c, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, bucket(t, c, "state")
}

func bucket(t testing.TB, c *natsio.Conn, name string) jetstream.ObjectStore {
	t.Helper()
	obs, err := c.EnsureObjectStore(testCtx(t), natsio.ObjectStoreSpec{Bucket: name})
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// shipper returns a Shipper on obs with its own index and cache.
func shipper(t testing.TB, obs jetstream.ObjectStore) *ship.Shipper {
	t.Helper()
	s, err := ship.New(testCtx(t), obs, ship.Options{IndexDir: t.TempDir(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openStore(t testing.TB) *state.Store {
	t.Helper()
	st, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// task returns task i of the fixture's operator.
func task(i int) ship.Task {
	return ship.Task{Operator: testOp, MaxParallelism: testMaxPar, Index: i,
		Range: state.RangeForTask(i, testTasks, testMaxPar), MetaNames: []string{deadLetters}}
}

// fill writes n keys of valueLen random bytes under two state names,
// through each task's state.Backend, plus keys of otherOp, one staged
// output per task and the dead-letter list: every kind of key a task
// checkpoint meets.
func fill(t testing.TB, st *state.Store, n, valueLen int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, op := range []string{testOp, otherOp} {
		for i := range testTasks {
			writeTask(t, st, op, i, n/testTasks, valueLen, rng)
		}
	}
	b := st.NewBatch()
	for i := range testTasks {
		k := state.OutboxKey{Epoch: 7, Operator: testOp, Task: uint16(i)}
		if err := state.PutOutbox(b, k, state.OutboxMessage{Subject: "out", MsgID: fmt.Sprint("id-", i), Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := state.PutMeta(b, deadLetters, []byte(`[{"source":"s","sequence":5}]`)); err != nil {
		t.Fatal(err)
	}
	commit(t, st, b)
}

// writeTask writes about n keys of task i of op through its backend.
func writeTask(t testing.TB, st *state.Store, op string, i, n, valueLen int, rng *rand.Rand) {
	t.Helper()
	be, err := st.Backend(state.BackendOptions{Operator: op, Range: state.RangeForTask(i, testTasks, testMaxPar), MaxParallelism: testMaxPar})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for written, k := 0, 0; written < n; k++ {
		key := fmt.Appendf(nil, "key-%d", k)
		if state.TaskForKeyGroup(state.KeyGroup(key, testMaxPar), testTasks, testMaxPar) != i {
			continue
		}
		put(t, be, key, "count", randomBytes(rng, valueLen))
		put(t, be, key, "seen\x00a", randomBytes(rng, 16))
		written++
	}
	b := st.NewBatch()
	if _, err := be.FlushTo(b); err != nil {
		t.Fatal(err)
	}
	commit(t, st, b)
}

func put(t testing.TB, be *state.Backend, key []byte, name string, value []byte) {
	t.Helper()
	if err := be.SetCurrentKey(key); err != nil {
		t.Fatal(err)
	}
	if err := be.Put([]byte(name), value); err != nil {
		t.Fatal(err)
	}
}

func commit(t testing.TB, st *state.Store, b *pebble.Batch) {
	t.Helper()
	if err := st.Commit(b); err != nil {
		t.Fatal(err)
	}
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// settle flushes db and waits until no compaction runs, so that two
// snapshots of unchanged state see the same table files.
func settle(t testing.TB, db *pebble.DB) {
	t.Helper()
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for m := db.Metrics(); m.Compact.NumInProgress > 0 || m.Flush.NumInProgress > 0; m = db.Metrics() {
		if time.Now().After(deadline) {
			t.Fatal("compactions did not settle in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dump returns every key and value of db in [lo, hi) (nil: unbounded).
func dump(t testing.TB, db *pebble.DB, lo, hi []byte) map[string]string {
	t.Helper()
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

// stateOf returns the state keys of op in r, with their raw values.
func stateOf(t testing.TB, db *pebble.DB, op string, r state.KeyGroupRange) map[string]string {
	t.Helper()
	lo := state.AppendStateKey(nil, op, r.Start, nil, nil)
	hi := state.AppendStateKey(nil, op, r.End, nil, nil)
	// AppendStateKey ends with the u16 name length 0: below every real name,
	// so [lo, hi) is exactly the key groups [Start, End).
	return dump(t, db, lo, hi)
}

// outboxOf returns the staged outputs of db by key.
func outboxOf(t testing.TB, db *pebble.DB) map[string]string {
	return dump(t, db, []byte{'o'}, []byte{'p'})
}

// snapshotUpload snapshots task i of st and uploads it as object name.
func snapshotUpload(t testing.TB, s *ship.Shipper, st *state.Store, i int, name string) (ship.Snapshot, ship.UploadResult) {
	t.Helper()
	snap, err := s.Snapshot(st.DB(), t.TempDir()+"/ckpt", task(i))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Upload(testCtx(t), snap, name)
	if err != nil {
		t.Fatal(err)
	}
	return snap, res
}

// uniqueBytes is the size of m's distinct objects.
func uniqueBytes(m ship.TaskManifest) int64 {
	seen := map[string]bool{}
	var n int64
	for _, f := range m.Files {
		if !seen[f.SHA256] {
			seen[f.SHA256] = true
			n += f.Size
		}
	}
	return n
}

// restoreInto restores r of the fixture's operator into a fresh store.
func restoreInto(t testing.TB, s *ship.Shipper, ms []ship.TaskManifest, r state.KeyGroupRange) (*state.Store, ship.RestoreResult, error) {
	t.Helper()
	dst := openStore(t)
	res, err := s.Restore(testCtx(t), ms, ship.Target{DB: dst.DB(), Operator: testOp, MaxParallelism: testMaxPar, Range: r})
	return dst, res, err
}

// without returns m less the keys of every other map.
func without(m map[string]string, others ...map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		keep := true
		for _, o := range others {
			if _, ok := o[k]; ok {
				keep = false
			}
		}
		if keep {
			out[k] = v
		}
	}
	return out
}

// equalMaps reports the first difference of got and want.
func equalMaps(got, want map[string]string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d keys, want %d", len(got), len(want))
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			return fmt.Errorf("key %x missing", k)
		}
		if !bytes.Equal([]byte(g), []byte(v)) {
			return fmt.Errorf("key %x: value differs", k)
		}
	}
	return nil
}

// quiet drops Pebble's informational lines in tests that open a checkpoint.
type quiet struct{}

func (quiet) Infof(string, ...any)         {}
func (quiet) Errorf(f string, args ...any) { pebble.DefaultLogger.Errorf(f, args...) }
func (quiet) Fatalf(f string, args ...any) { pebble.DefaultLogger.Fatalf(f, args...) }
