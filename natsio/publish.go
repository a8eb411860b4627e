package natsio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/nats-io/nats-server/v2/server"
)

const (
	// ProgressEvery is how many published lines pass between two calls of
	// PublishJSONLines' progress callback.
	ProgressEvery = 1000
	// maxLineBytes bounds one input line; the server's max payload is
	// usually lower and is checked too.
	maxLineBytes = 64 << 20
)

// PublishResult counts what PublishJSONLines did.
type PublishResult struct {
	Lines      int    // lines read, blank ones included
	Published  uint64 // messages acknowledged by JetStream, duplicates included
	Duplicates uint64 // of those, how many JetStream already had (same message id)
}

// PublishJSONLines publishes each non-blank line of r as one message on
// subject. Each line must be valid JSON; with idField set it must be an
// object whose field (dotted path allowed, as KeyExtractor.JSONField)
// becomes the Nats-Msg-Id, so that running the same input twice stores it
// once (within the stream's duplicate window).
//
// It stops at the first line it cannot publish (not JSON, no id, too
// large) with ErrBadLine naming the line: the lines before it are
// published and acknowledged, nothing after it is read. Fix the line and
// run again; with ids, the lines already stored are dropped as duplicates.
//
// progress, if not nil, gets the count of lines handed to NATS every
// ProgressEvery lines, and the final acknowledged count at the end.
func PublishJSONLines(ctx context.Context, c *Conn, r io.Reader, subject, idField string, progress func(n int)) (PublishResult, error) {
	if !server.IsValidPublishSubject(subject) {
		return PublishResult{}, fmt.Errorf("%w: %q is not a subject to publish to (no wildcards)", ErrInvalidStreamSpec, subject)
	}
	if idField != "" && hasEmptySegment(idField) {
		return PublishResult{}, fmt.Errorf("%w: id field %q has an empty path segment", ErrInvalidExtractor, idField)
	}
	sink := c.NewSink(0)
	defer sink.Close()
	p := linePublisher{sink: sink, subject: subject, idField: idField, maxPayload: int(c.NC.MaxPayload()), progress: progress}
	err := p.run(ctx, r)
	if ferr := sink.Flush(ctx); ferr != nil && !errors.Is(err, ferr) {
		err = errors.Join(err, ferr)
	}
	st := sink.Stats()
	res := PublishResult{Lines: p.lines, Published: st.Acked, Duplicates: st.Duplicates}
	if progress != nil && err == nil {
		progress(int(st.Acked))
	}
	return res, err
}

// linePublisher holds the state of one PublishJSONLines run.
type linePublisher struct {
	sink       *Sink
	subject    string
	idField    string
	maxPayload int
	progress   func(int)
	lines      int
	sent       int
}

func (p *linePublisher) run(ctx context.Context, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	for sc.Scan() {
		p.lines++
		if err := p.publishLine(ctx, bytes.TrimSpace(sc.Bytes())); err != nil {
			return err
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Errorf("%w: line %d is longer than %d bytes", ErrBadLine, p.lines+1, maxLineBytes)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("natsio: reading input after line %d: %w", p.lines, err)
	}
	return nil
}

func (p *linePublisher) publishLine(ctx context.Context, line []byte) error {
	if len(line) == 0 {
		return nil
	}
	msg, err := p.message(line)
	if err != nil {
		return fmt.Errorf("%w: line %d: %w", ErrBadLine, p.lines, err)
	}
	if err := p.sink.Publish(ctx, msg); err != nil {
		return fmt.Errorf("natsio: publishing line %d: %w", p.lines, err)
	}
	p.sent++
	if p.progress != nil && p.sent%ProgressEvery == 0 {
		p.progress(p.sent)
	}
	return nil
}

// message checks a line and turns it into a message.
func (p *linePublisher) message(line []byte) (OutMessage, error) {
	if len(line) > p.maxPayload {
		return OutMessage{}, fmt.Errorf("%d bytes is more than the server's max payload of %d bytes", len(line), p.maxPayload)
	}
	if !json.Valid(line) {
		return OutMessage{}, errors.New("not valid JSON")
	}
	m := OutMessage{Subject: p.subject, Data: bytes.Clone(line)}
	if p.idField == "" {
		return m, nil
	}
	id, err := jsonKey(line, p.idField)
	if err != nil {
		return OutMessage{}, fmt.Errorf("message id: %w", err)
	}
	if len(id) == 0 {
		return OutMessage{}, fmt.Errorf("message id: JSON field %q is empty", p.idField)
	}
	m.MsgID = string(id)
	return m, nil
}
