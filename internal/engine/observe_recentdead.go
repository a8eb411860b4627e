package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// recentDeadLetters is how many of an operator's newest dead letters the
// UI lists.
const recentDeadLetters = 10

// maxDeadLetterRequests bounds the requests one search for an operator's
// newest dead letters makes: on a dead-letter stream shared with busy
// pipelines a page request must not read the whole stream. A search that
// runs out shows fewer dead letters, never older ones in their place.
const maxDeadLetterRequests = 256

// deadLetterView is one stored dead letter, read back from the stream that
// captures the operator's dead-letter subject: the engine keeps no copy.
type deadLetterView struct {
	Operator       string    `json:"operator"`
	Error          string    `json:"error"` // the Wasmstream-Error header
	SourceStream   string    `json:"source_stream"`
	SourceSequence uint64    `json:"source_sequence"`
	StreamSequence uint64    `json:"stream_sequence"` // in the dead-letter stream
	Time           time.Time `json:"time"`
}

// recentDeadLettersOf reads the newest dead letters of op, newest first.
func (p *Pipeline) recentDeadLettersOf(ctx context.Context, op *operator) ([]deadLetterView, error) {
	subject := op.cfg.DeadLetterSubject
	name, err := p.conn.JS.StreamNameBySubject(ctx, subject)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil // nothing stores them: nothing to show
	}
	if err != nil {
		return nil, fmt.Errorf("operator %q: find the stream of %s: %w", op.cfg.Name, subject, err)
	}
	st, err := p.conn.JS.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("operator %q: stream %s: %w", op.cfg.Name, name, err)
	}
	msgs, err := newestOnSubject(ctx, st, subject, recentDeadLetters)
	if err != nil {
		return nil, fmt.Errorf("operator %q: read dead letters from %s: %w", op.cfg.Name, name, err)
	}
	views := make([]deadLetterView, len(msgs))
	for i, m := range msgs {
		seq, _ := strconv.ParseUint(m.Header.Get(HeaderSourceSequence), 10, 64)
		views[i] = deadLetterView{Operator: op.cfg.Name, Error: m.Header.Get(HeaderError), SourceStream: m.Header.Get(HeaderSourceStream),
			SourceSequence: seq, StreamSequence: m.Sequence, Time: m.Time}
	}
	return views, nil
}

// newestOnSubject returns the newest n messages of st on subject, newest
// first. JetStream gets a subject's messages forwards only, so it reads
// ranges of sequences backwards from the newest, each twice as long as
// the one before, until it has n (subjectReader).
func newestOnSubject(ctx context.Context, st jetstream.Stream, subject string, n int) ([]*jetstream.RawStreamMsg, error) {
	return newestOnSubjectWithin(ctx, st, subject, n, maxDeadLetterRequests)
}

// newestOnSubjectWithin is newestOnSubject with a budget of requests.
func newestOnSubjectWithin(ctx context.Context, st jetstream.Stream, subject string, n, budget int) ([]*jetstream.RawStreamMsg, error) {
	last, err := st.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := subjectReader{st: st, subject: subject, budget: budget}
	newest := []*jetstream.RawStreamMsg{last}
	end := last.Sequence - 1
	for length := uint64(4 * n); len(newest) < n && end >= 1; length *= 2 {
		from := uint64(1)
		if end > length {
			from = end - length + 1
		}
		msgs, complete, err := r.read(ctx, from, end)
		if err != nil || !complete {
			return newest, err
		}
		slices.Reverse(msgs)
		newest = append(newest, msgs...)
		end = from - 1
	}
	return newest[:min(n, len(newest))], nil
}

// subjectReader reads a stream's messages on one subject within a budget
// of requests.
type subjectReader struct {
	st      jetstream.Stream
	subject string
	budget  int
}

// read returns the messages on the subject with sequences in [from, to],
// oldest first, one request per message found; complete is false when
// the budget ran out first (the messages read are then of no use: newer
// ones in the range were not read).
func (r *subjectReader) read(ctx context.Context, from, to uint64) (msgs []*jetstream.RawStreamMsg, complete bool, err error) {
	for seq := from; seq <= to; {
		if r.budget <= 0 {
			return nil, false, nil
		}
		r.budget--
		m, err := r.st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(r.subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, false, err
		}
		if m.Sequence > to {
			break
		}
		msgs = append(msgs, m)
		seq = m.Sequence + 1
	}
	return msgs, true, nil
}
