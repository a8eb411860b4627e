package natsio

import (
	"fmt"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// validateBatch refuses, before anything is sent, a batch the server would
// refuse or, worse, misreport. A message id repeated inside a batch gets
// the same answer (10201) as a batch stored before, so it would be taken
// for "already committed" while nothing was stored: it must never reach
// the server.
func validateBatch(id string, msgs []OutMessage, limit int) error {
	if err := validateBatchID(id); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return fmt.Errorf("%w: batch %q has no messages", ErrInvalidBatch, id)
	}
	if len(msgs) > limit {
		return fmt.Errorf("%w: batch %q has %d messages, more than the limit of %d per atomic batch "+
			"(the server's jetstream.limits.batch.max_msgs, default %d); split it (CommitBatches)",
			ErrBatchTooLarge, id, len(msgs), limit, MaxAtomicBatch)
	}
	seen := make(map[string]int, len(msgs))
	for i, m := range msgs {
		if err := validateBatchMsg(id, i, m); err != nil {
			return err
		}
		if j, dup := seen[m.MsgID]; dup {
			return fmt.Errorf("%w: batch %q: messages %d and %d have the same message id %q; each output needs its own",
				ErrInvalidBatch, id, j+1, i+1, m.MsgID)
		}
		seen[m.MsgID] = i
	}
	return nil
}

func validateBatchMsg(id string, i int, m OutMessage) error {
	if !server.IsValidPublishSubject(m.Subject) {
		return fmt.Errorf("%w: batch %q, message %d: %q is not a subject to publish to", ErrInvalidBatch, id, i+1, m.Subject)
	}
	if m.MsgID == "" {
		return fmt.Errorf("%w: batch %q, message %d to %q has no message id; an atomic batch needs one per message "+
			"so that committing it again is recognised", ErrInvalidBatch, id, i+1, m.Subject)
	}
	if !validHeaderValue(m.MsgID) {
		return fmt.Errorf("%w: batch %q, message %d: message id %q contains a control character", ErrInvalidBatch, id, i+1, m.MsgID)
	}
	return nil
}

func validateBatchID(id string) error {
	if id == "" || len(id) > MaxBatchIDLen {
		return fmt.Errorf("%w: batch id %q must have 1 to %d bytes", ErrInvalidBatch, id, MaxBatchIDLen)
	}
	if !validHeaderValue(id) || strings.ContainsAny(id, " \t") {
		return fmt.Errorf("%w: batch id %q must not contain spaces or control characters", ErrInvalidBatch, id)
	}
	return nil
}

// validHeaderValue reports a value that survives the NATS header encoding.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
