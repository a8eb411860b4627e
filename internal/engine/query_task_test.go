package engine

import (
	"context"
	"testing"

	"github.com/wasmstream/wasmstream/internal/state"
)

// A task with a backlog of chunks answers the queries waiting for it
// before it takes its next chunk: a query must not wait behind the task's
// share of the backlog.
func TestWaitingQueriesGoBeforeQueuedChunks(t *testing.T) {
	store, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	backend, err := store.Backend(state.BackendOptions{Operator: "risk", Range: state.RangeForTask(0, 1, state.DefaultMaxParallelism)})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	opts := Options{}.withBuiltinDefaults()
	ck, err := newTaskCheckpointing(1, opts.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	tk := &task{backend: backend, ck: ck, in: make(chan taskItem, 4), queries: make(chan liveQuery, 8),
		op: &operator{p: &Pipeline{opts: opts}}}
	for range 4 {
		tk.in <- taskItem{records: make([]inputRecord, 1)}
	}
	var replies []chan queryAnswer
	for range 3 {
		q := liveQuery{key: []byte("acct-47"), name: "total", reply: make(chan queryAnswer, 1)}
		replies = append(replies, q.reply)
		tk.queries <- q
	}
	if _, ok, err := tk.next(context.Background()); !ok || err != nil {
		t.Fatalf("next: ok %v, err %v", ok, err)
	}
	for i, r := range replies {
		select {
		case a := <-r:
			if a.err != nil {
				t.Errorf("query %d: %v", i, a.err)
			}
		default:
			t.Errorf("query %d was still waiting when the task took a chunk", i)
		}
	}
}
