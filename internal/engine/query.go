package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/statequery"
)

// Live state queries (docs/state-queries.md): a request on
// statequery.Subject(pipeline) names an operator and a record key; the task
// that owns the key's key group answers it on its own goroutine, between
// two items of its queue (query_task.go), so the answer is what the guest
// would read at that point: the write-back cache included.

// queryTimeout bounds how long an answer waits for a busy task: a task in
// a long guest batch answers after it.
const queryTimeout = 10 * time.Second

// queryServer answers the query subject until Close.
type queryServer struct{ sub *nats.Subscription }

// Close stops answering; safe on nil (a pipeline that serves none).
func (s *queryServer) Close() {
	if s != nil {
		_ = s.sub.Unsubscribe()
	}
}

// serveQueries gives every task its query queue and subscribes the
// pipeline's query subject. It runs in Open, before Run starts the tasks.
func (p *Pipeline) serveQueries() (*queryServer, error) {
	for _, t := range p.tasks {
		t.queries = make(chan liveQuery)
	}
	subject := statequery.Subject(p.cfg.Name)
	sub, err := p.conn.NC.Subscribe(subject, func(m *nats.Msg) { go p.answerQuery(m) })
	if err != nil {
		return nil, fmt.Errorf("subscribe to %s: %w", subject, err)
	}
	if err := p.conn.NC.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("subscribe to %s: %w", subject, err)
	}
	return &queryServer{sub: sub}, nil
}

func (p *Pipeline) answerQuery(m *nats.Msg) {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	data, _ := json.Marshal(p.query(ctx, m.Data))
	_ = m.Respond(data)
}

// query decodes a request and has the owning task answer it.
func (p *Pipeline) query(ctx context.Context, data []byte) statequery.Reply {
	var req statequery.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return failed(fmt.Errorf("unreadable state query %q: %v; send JSON like {\"operator\":\"risk\",\"key\":\"acct-47\"}", data, err))
	}
	op := p.operatorNamed(req.Operator)
	if op == nil {
		return statequery.Reply{Code: statequery.CodeUnknownOperator,
			Error: fmt.Sprintf("pipeline %q has no operator %q; its operators: %s", p.cfg.Name, req.Operator, p.operatorNames())}
	}
	key := req.KeyBytes()
	slot := op.taskFor(key)
	if slot < 0 {
		return failed(fmt.Errorf("operator %q: key %q belongs to a task another worker runs", op.cfg.Name, key))
	}
	t := op.tasks[slot]
	entries, err := t.ask(ctx, p.stopped, liveQuery{key: key, name: req.State})
	if err != nil {
		return statequery.Reply{Task: t.index, Code: statequery.CodeFailed, Error: err.Error()}
	}
	if len(entries) == 0 {
		return statequery.Reply{Task: t.index, Code: statequery.CodeKeyNotFound,
			Error: statequery.NotFoundError(p.cfg.Name, op.cfg.Name, key, req.State, t.index)}
	}
	return statequery.Reply{Task: t.index, Entries: statequery.EntriesOf(entries)}
}

func failed(err error) statequery.Reply {
	return statequery.Reply{Code: statequery.CodeFailed, Error: err.Error()}
}

func (p *Pipeline) operatorNamed(name string) *operator {
	for _, op := range p.operators {
		if op.cfg.Name == name {
			return op
		}
	}
	return nil
}

func (p *Pipeline) operatorNames() string {
	var s string
	for i, op := range p.operators {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", op.cfg.Name)
	}
	return s
}

// QueryState asks the running pipeline of cfg for the state of one record
// key (wasmstream state get --live), as the control user.
func QueryState(ctx context.Context, cfg *config.Pipeline, req statequery.Request, timeout time.Duration) ([]statequery.Entry, int, error) {
	conn, err := connectRunningWith(ctx, cfg, hclog.NewNullLogger())
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close()
	return statequery.Live(conn.NC, cfg.Name, req, timeout)
}

// errQueryStopped: the pipeline stopped before the task answered.
var errQueryStopped = errors.New("the pipeline stopped before the task answered")

// keyEntries converts a backend's entries of key, keeping those of state
// name (all when empty).
func keyEntries(key []byte, name string, in []state.KeyEntry) []statequery.Entry {
	var out []statequery.Entry
	for _, e := range in {
		if !statequery.NameMatches(e.Name, name) {
			continue
		}
		se := statequery.Entry{KeyGroup: e.KeyGroup, Name: string(e.Name), Key: key, Value: e.Value.Data}
		if e.Value.HasExpiry {
			se.ExpiresAt = e.Value.ExpiresAt
		}
		out = append(out, se)
	}
	return out
}
