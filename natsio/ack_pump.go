package natsio

import (
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ackBody is the JetStream acknowledgement ("+ACK"), sent to a delivered
// message's reply subject.
var ackBody = []byte("+ACK")

// pump moves deliveries into the Fetch buffer: one goroutine, so stream
// order is kept. It plays the role of Source.pump for the embedded Source.
func (a *AckingSource) pump() {
	s := a.src
	defer close(s.done)
	for {
		msg, err := s.next()
		if err != nil {
			s.err = s.iteratorError(err)
			return
		}
		m, deliver, err := a.accept(msg)
		if err != nil {
			s.err = err
			return
		}
		if !s.pass(m, deliver) {
			s.err = ErrSourceClosed
			return
		}
	}
}

// accept decides what to do with one delivery: deliver it (and remember how
// to acknowledge it), acknowledge it at once (before the start position),
// drop it (a redelivery), or stop (a lost delivery or a gap).
func (a *AckingSource) accept(msg jetstream.Msg) (Message, bool, error) {
	md, err := msg.Metadata()
	if err != nil {
		return Message{}, false, fmt.Errorf("natsio: source stream %s: message on %s without JetStream metadata: %w", a.spec.Stream, msg.Subject(), err)
	}
	a.src.take(md)
	if err := a.checkDelivery(md.Sequence.Consumer); err != nil {
		return Message{}, false, err
	}
	switch seq := md.Sequence.Stream; {
	case seq <= a.skipTo:
		// Covered by the checkpoint: acknowledge, best effort (a failure
		// means a closed connection, which stops the iterator too; the
		// message then comes again and is acknowledged then).
		_ = a.nc.Publish(msg.Reply(), ackBody)
		return Message{}, false, nil
	case seq <= a.lastSeq:
		return Message{}, false, nil // redelivered after AckWait: already delivered
	}
	if err := a.checkSequence(md.Sequence.Stream); err != nil {
		return Message{}, false, err
	}
	a.lastSeq = md.Sequence.Stream
	a.mu.Lock()
	a.pending = append(a.pending, pendingAck{seq: a.lastSeq, reply: msg.Reply()})
	a.mu.Unlock()
	return a.message(msg, md), true, nil
}

func (a *AckingSource) message(msg jetstream.Msg, md *jetstream.MsgMetadata) Message {
	return Message{
		Stream:   a.spec.Stream,
		Sequence: md.Sequence.Stream,
		Subject:  msg.Subject(),
		Data:     msg.Data(),
		Header:   msg.Headers(),
		Time:     md.Timestamp,
	}
}

// checkDelivery fails when the consumer sequence jumps: a delivery this
// source never got, which the server counts as delivered and would only
// send again after AckWait, after later messages.
func (a *AckingSource) checkDelivery(dseq uint64) error {
	last := a.lastDel
	if dseq > last {
		a.lastDel = dseq
	}
	if dseq <= last+1 {
		return nil // in order, or a repeat after a server restart
	}
	return fmt.Errorf("%w: durable consumer %s on stream %s delivered consumer sequence %d after %d: "+
		"another client reads from this durable, or deliveries were lost across a reconnect; reopen the source at the last checkpoint",
		ErrDeliveryLost, a.spec.Durable, a.spec.Stream, dseq, last)
}

// checkSequence fails, when checking gaps, on a stream sequence that does
// not follow the last one delivered (or the start position).
func (a *AckingSource) checkSequence(seq uint64) error {
	if !a.checkGaps || a.lastSeq == 0 || seq == a.lastSeq+1 || seq-1 <= a.spec.AcceptGapsThrough {
		return nil
	}
	return fmt.Errorf("%w: stream %s delivered sequence %d after %d: sequences %d..%d were removed before this source read them "+
		"(purge, limits, deletes, or acknowledged by another consumer); restore them, or allow the gap explicitly",
		ErrSequenceGap, a.spec.Stream, seq, a.lastSeq, a.lastSeq+1, seq-1)
}
