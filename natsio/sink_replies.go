package natsio

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Publish replies. A Sink sends each publish with a reply subject of its
// own, <inbox>.<token>, and one subscription to <inbox>.* receives the
// acknowledgements. This is what nats.go's PublishMsgAsync does, kept
// rule for rule (the "no responders" retries, failing every waiting
// publish with ErrDisconnected when the connection starts reconnecting,
// ErrJetStreamPublisherClosed at Close), without what the Sink did not
// use (a future and a reply-subject string per message, a second pending
// bound) and without encoding/json for the reply (puback.go).

// Publish replies as nats.go checks them for "no responders".
const (
	statusHeader       = "Status"
	noRespondersStatus = "503"
)

// attempt is one send of a pending publish, waiting for its reply.
type attempt struct {
	msg   *nats.Msg
	reply string // the attempt's reply subject; its token ends it
	// retries counts the "no responders" answers it was sent again after.
	retries int
}

// token is what ends the attempt's reply subject: its key in Sink.sent.
func (a *attempt) token() string { return replyToken(a.reply) }

func replyToken(subject string) string {
	return subject[strings.LastIndexByte(subject, '.')+1:]
}

// sendNew sends msg with a reply subject of its own.
func (s *Sink) sendNew(msg *nats.Msg) error {
	s.mu.Lock()
	a, err := s.register(msg)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.send(a)
}

// register makes an attempt to send msg, waiting for its reply. Lock held.
func (s *Sink) register(msg *nats.Msg) (*attempt, error) {
	if s.closed {
		return nil, ErrSinkClosed
	}
	if s.replies == nil {
		if err := s.listen(); err != nil {
			return nil, err
		}
	}
	s.tokens++
	var buf [96]byte
	reply := string(strconv.AppendUint(append(buf[:0], s.inbox...), s.tokens, 36))
	a := &attempt{msg: msg, reply: reply}
	s.sent[a.token()] = a
	return a, nil
}

// listen subscribes to the Sink's replies and watches the connection for
// a reconnect. Lock held.
func (s *Sink) listen() error {
	nc := s.conn.NC
	inbox := nc.NewInbox() + "."
	sub, err := nc.Subscribe(inbox+"*", s.onReply)
	if err != nil {
		return fmt.Errorf("subscribing to the publish acknowledgements: %w", err)
	}
	s.inbox, s.replies = inbox, sub
	s.status = nc.StatusChanged(nats.RECONNECTING, nats.CLOSED)
	go s.watchStatus(s.status)
	return nil
}

// send publishes attempt a; an error removes it.
func (s *Sink) send(a *attempt) error {
	err := s.conn.NC.PublishMsg(&nats.Msg{Subject: a.msg.Subject, Reply: a.reply, Data: a.msg.Data, Header: a.msg.Header})
	if err != nil {
		s.forget(a)
	}
	return err
}

// forget removes a from the attempts waiting for a reply, and reports
// whether it was still waiting.
func (s *Sink) forget(a *attempt) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent[a.token()] != a {
		return false
	}
	delete(s.sent, a.token())
	return true
}

// onReply runs on the reply subscription's goroutine for each reply.
func (s *Sink) onReply(m *nats.Msg) {
	token := replyToken(m.Subject)
	if len(m.Data) == 0 && m.Header.Get(statusHeader) == noRespondersStatus {
		s.noResponders(token)
		return
	}
	ack, err := parsePubAck(m.Data)
	s.mu.Lock()
	a := s.sent[token]
	delete(s.sent, token)
	s.mu.Unlock()
	switch {
	case a == nil: // answered after it failed (a reconnect, a stall, Close)
	case err != nil:
		s.onError(a.msg, err)
	default:
		s.onAck(a.msg, ack)
	}
}

// noResponders sends an attempt that met no responder again after
// jetstream.DefaultPubRetryWait, up to jetstream.DefaultPubRetryAttempts
// times, then fails it with jetstream.ErrNoStreamResponse.
func (s *Sink) noResponders(token string) {
	s.mu.Lock()
	a := s.sent[token]
	if a == nil {
		s.mu.Unlock()
		return
	}
	if a.retries < jetstream.DefaultPubRetryAttempts {
		a.retries++
		s.mu.Unlock()
		time.AfterFunc(jetstream.DefaultPubRetryWait, func() { s.sendAgain(a) })
		return
	}
	delete(s.sent, token)
	s.mu.Unlock()
	s.onError(a.msg, jetstream.ErrNoStreamResponse)
}

// sendAgain sends attempt a again, same reply subject, unless it failed
// meanwhile.
func (s *Sink) sendAgain(a *attempt) {
	s.mu.Lock()
	waiting := s.sent[a.token()] == a
	s.mu.Unlock()
	if !waiting {
		return
	}
	if err := s.send(a); err != nil {
		s.onError(a.msg, err)
	}
}

// watchStatus fails every attempt waiting for a reply with
// nats.ErrDisconnected each time the connection starts reconnecting: the
// replies are lost with the connection (the outage resends take them
// over). It ends when the connection or the Sink closes.
func (s *Sink) watchStatus(status chan nats.Status) {
	for st := range status {
		if st == nats.CLOSED {
			return
		}
		s.failSent(nats.ErrDisconnected)
	}
}

// failSent fails every attempt waiting for a reply with err.
func (s *Sink) failSent(err error) {
	s.mu.Lock()
	msgs := make([]*nats.Msg, 0, len(s.sent))
	for token, a := range s.sent {
		msgs = append(msgs, a.msg)
		delete(s.sent, token)
	}
	s.mu.Unlock()
	for _, msg := range msgs {
		s.onError(msg, err)
	}
}

// stopReplies removes the reply subscription and the status watcher.
func (s *Sink) stopReplies() {
	s.mu.Lock()
	sub, status := s.replies, s.status
	s.replies, s.status = nil, nil
	s.mu.Unlock()
	if sub != nil {
		_ = sub.Unsubscribe() // fails only on a closed connection, which has dropped it
		s.conn.NC.RemoveStatusListener(status)
	}
}
