package lease

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Fence header names (nats-server stream.go JSExpectedLastSubjSeq and
// JSExpectedLastSubjSeqSubj).
const (
	HeaderExpectedLastSubjSeq     = jetstream.ExpectedLastSubjSeqHeader
	HeaderExpectedLastSubjSeqSubj = jetstream.ExpectedLastSubjSeqSubjHeader
)

// WithFence calls write with the headers that make a write into the
// bucket's stream conditional on this lease: the server stores it only
// while the lease subject's last sequence is the Lease's current revision.
// Put them on a single publish, or on the first message of an atomic batch
// to make the whole batch conditional (ADR-50; measured in design §4).
// No renewal runs during write, so the revision stays current; keep write
// short (one publish or one batch), since renewals wait for it.
//
// A refusal returned by write (errors.As to *jetstream.APIError, 10071 or
// 10164) is checked as in Renew: ErrLost, or, when the lease is still held
// at another revision, write is called once more with the new headers. A
// refused write stored nothing, so calling it again is safe.
func (l *Lease) WithFence(ctx context.Context, write func(fence nats.Header) error) error {
	l.writing.Lock()
	defer l.writing.Unlock()
	for attempt := 0; ; attempt++ {
		rev, err := l.current()
		if err != nil {
			return err
		}
		err = write(l.fenceHeader(rev))
		if err == nil || !refused(err) {
			return err
		}
		if attempt > 0 {
			return fmt.Errorf("fenced write under lease %s: refused again after re-reading it (%w); retry", l, err)
		}
		if err := l.reconcile(ctx, "fenced write", err); err != nil {
			return err
		}
	}
}

func (l *Lease) fenceHeader(rev uint64) nats.Header {
	h := nats.Header{}
	h.Set(HeaderExpectedLastSubjSeq, strconv.FormatUint(rev, 10))
	h.Set(HeaderExpectedLastSubjSeqSubj, l.Subject())
	return h
}

// FencedPut writes value on key of the lease's bucket under the fence.
func (l *Lease) FencedPut(ctx context.Context, key string, value []byte) (*jetstream.PubAck, error) {
	return l.FencedPublish(ctx, l.b.Subject(key), value)
}

// FencedPublish publishes data on subject, which must be in the bucket's
// stream ($KV.<bucket>.<key>), under the fence.
func (l *Lease) FencedPublish(ctx context.Context, subject string, data []byte) (*jetstream.PubAck, error) {
	return l.FencedPublishMsg(ctx, &nats.Msg{Subject: subject, Data: data})
}

// FencedPublishMsg is FencedPublish of a message with headers of its own.
// A Nats-Msg-Id header makes a retry after a timeout safe: the server's
// duplicate check comes before the fence check, so a repeat of a stored
// write is acknowledged as a duplicate, not refused.
func (l *Lease) FencedPublishMsg(ctx context.Context, m *nats.Msg) (*jetstream.PubAck, error) {
	if err := l.checkFencedSubject(m.Subject); err != nil {
		return nil, err
	}
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	var ack *jetstream.PubAck
	err := l.WithFence(ctx, func(fence nats.Header) error {
		for k, v := range fence {
			m.Header[k] = v
		}
		var err error
		ack, err = l.b.js.PublishMsg(ctx, m)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("fenced publish on %s: %w", m.Subject, err)
	}
	return ack, nil
}

// checkFencedSubject refuses subjects the fence cannot work on: the server
// looks the lease subject up in the stream being written, and only the
// bucket's stream has it. The lease subject itself is Renew's.
func (l *Lease) checkFencedSubject(subject string) error {
	prefix := "$KV." + l.b.name + "."
	switch {
	case !strings.HasPrefix(subject, prefix) || len(subject) == len(prefix):
		return fmt.Errorf("%w: fenced publish on %q: the fence only works in the lease's stream %s, on subjects %s<key>",
			ErrInvalid, subject, l.b.Stream(), prefix)
	case subject == l.Subject():
		return fmt.Errorf("%w: fenced publish on the lease subject %s itself; use Renew", ErrInvalid, subject)
	}
	return nil
}
