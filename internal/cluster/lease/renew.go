package lease

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Renew stores the lease again with a fresh TTL, on condition that the
// lease subject's last sequence is still this Lease's revision, and moves
// the revision and ValidUntil forward. A refusal means the lease expired
// or changed hands: ErrLost, for this and every later call. Any other
// error (a timeout during an election) leaves the lease valid until
// ValidUntil; retry before then.
func (l *Lease) Renew(ctx context.Context) error {
	l.writing.Lock()
	defer l.writing.Unlock()
	for attempt := 0; ; attempt++ {
		expect, err := l.current()
		if err != nil {
			return err
		}
		sent := time.Now()
		rev, err := l.b.publishLease(ctx, l.key, l.raw, expect, l.ttl)
		if err == nil {
			l.stored(rev, sent)
			return nil
		}
		if !refused(err) {
			return fmt.Errorf("renew lease %s: %w; the lease stays valid until ValidUntil, retry before", l, err)
		}
		if attempt > 0 {
			return fmt.Errorf("renew lease %s: refused again after re-reading it (%w); retry", l, err)
		}
		if err := l.reconcile(ctx, "renew", err); err != nil {
			return err
		}
	}
}

// reconcile decides after a refused conditional write, with writing held,
// whether the lease is lost. It is not when the last message on the lease
// subject carries this acquisition's token: then an earlier write of ours
// was stored though its reply was lost (the Lease adopts its revision), or
// the refusal was the server's "conditional write on this subject in
// flight" (10164). The caller retries once. ValidUntil stays at the last
// write whose send time is known.
func (l *Lease) reconcile(ctx context.Context, op string, cause error) error {
	cur, err := LeaderGet(ctx, l.b.js, l.b.Stream(), l.Subject())
	switch {
	case errors.Is(err, ErrNotFound):
		return l.lose(fmt.Sprintf("%s refused (%v) and the key is gone", op, cause))
	case err != nil:
		return fmt.Errorf("%s on lease %s refused (%v); checking the key through its leader failed: %w; retry",
			op, l, cause, err)
	case isDeleted(cur):
		return l.lose(fmt.Sprintf("%s refused (%v): the key expired or was deleted at revision %d", op, cause, cur.Sequence))
	case tokenOf(cur.Data) != l.token:
		return l.lose(fmt.Sprintf("%s refused (%v): now held by %s since revision %d", op, cause, holderOf(cur.Data), cur.Sequence))
	}
	l.adopt(cur.Sequence)
	return nil
}

func (l *Lease) lose(why string) error {
	return l.setLost(fmt.Errorf("%w: lease %s: %s; stop acting as holder, then Acquire again", ErrLost, l, why))
}
