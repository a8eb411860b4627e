package engine

import (
	"context"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/statequery"
)

// liveQuery is a state query handed to the task that owns its key.
type liveQuery struct {
	key   []byte
	name  string // one state only; "" for all
	reply chan queryAnswer
}

type queryAnswer struct {
	entries []statequery.Entry
	err     error
}

// ask hands q to the task's goroutine and waits for its answer, at most
// until ctx ends or the pipeline stops.
func (t *task) ask(ctx context.Context, stopped <-chan struct{}, q liveQuery) ([]statequery.Entry, error) {
	q.reply = make(chan queryAnswer, 1) // the task never waits for the asker
	select {
	case t.queries <- q:
	case <-ctx.Done():
		return nil, fmt.Errorf("operator %q task %d did not take the state query: %w", t.op.cfg.Name, t.index, ctx.Err())
	case <-stopped:
		return nil, errQueryStopped
	}
	select {
	case a := <-q.reply:
		return a.entries, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("operator %q task %d did not answer the state query: %w", t.op.cfg.Name, t.index, ctx.Err())
	case <-stopped:
		return nil, errQueryStopped
	}
}

// answerQuery reads q's key on the task's goroutine, between two items
// (no guest batch is open), so it sees the write-back cache.
func (t *task) answerQuery(q liveQuery) {
	entries, err := t.backend.ReadKey(q.key, q.name)
	if err != nil {
		q.reply <- queryAnswer{err: fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)}
		return
	}
	q.reply <- queryAnswer{entries: keyEntries(q.key, q.name, entries)}
}

// maxQueriesPerTurn bounds the queries answered before the next item, so
// a flood of queries cannot stop the records.
const maxQueriesPerTurn = 64

// answerWaitingQueries answers the queries already waiting before the task
// takes its next item. A query costs a few seeks, a chunk of records can
// cost milliseconds: a query that waited for its turn among the chunks
// would wait behind the task's share of the whole backlog.
func (t *task) answerWaitingQueries() {
	for range maxQueriesPerTurn {
		select {
		case q := <-t.queries:
			t.answerQuery(q)
		default:
			return
		}
	}
}
