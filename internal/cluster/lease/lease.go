package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Lease is one acquisition of a lease key. Its methods are safe for
// concurrent use. Renewals and fenced writes run one at a time (writing);
// the accessors never wait for them (mu is not held across I/O), so a
// self-fencing check of ValidUntil does not hang on a renewal that waits
// out an election.
type Lease struct {
	b      *Bucket
	key    string
	holder string
	ttl    time.Duration
	raw    []byte // the stored value: holder and this acquisition's token
	token  string
	gen    uint64

	writing sync.Mutex // held through a renewal, fenced write or release

	mu        sync.Mutex
	rev       uint64    // last sequence of the lease subject this Lease wrote
	renewedAt time.Time // send time of that write (monotonic clock)
	lost      error     // set once, then returned by every call
}

// Acquire creates key with holder's value and a TTL of ttl (whole seconds,
// at least 1 s: the server keeps message TTLs in seconds and truncates
// fractions). The lease's generation is the revision of that create. A key
// someone else holds is ErrHeld, naming them. Choose ttl above an election
// (9 s) plus the renew interval; the design uses 15 s renewed every 3 s.
func (b *Bucket) Acquire(ctx context.Context, key, holder string, ttl time.Duration) (*Lease, error) {
	if err := checkTTL(ttl); err != nil {
		return nil, fmt.Errorf("acquire %s in bucket %s: %w", key, b.name, err)
	}
	v, raw, err := newValue(holder)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	rev, err := b.kv.Create(ctx, key, raw, jetstream.KeyTTL(ttl))
	if errors.Is(err, jetstream.ErrInvalidKey) {
		return nil, fmt.Errorf("%w: key %q of bucket %s: %w", ErrInvalid, key, b.name, err)
	}
	if err != nil {
		rev, err = b.settleCreate(ctx, key, raw, v.Token, ttl, err)
	}
	if err != nil {
		return nil, err
	}
	return &Lease{b: b, key: key, holder: holder, ttl: ttl, raw: raw, token: v.Token, gen: rev,
		rev: rev, renewedAt: sent}, nil
}

func checkTTL(ttl time.Duration) error {
	if ttl < time.Second || ttl%time.Second != 0 {
		return fmt.Errorf("%w: TTL %s; use whole seconds, at least 1s (the server truncates TTLs to seconds)", ErrInvalid, ttl)
	}
	return nil
}

// settleCreate finds out what a failed Create means by asking the stream
// leader: kv.Create decides "deleted, retry on its revision" from a Direct
// Get that can be stale, and a create whose reply was lost may have
// happened.
func (b *Bucket) settleCreate(ctx context.Context, key string, raw []byte, token string, ttl time.Duration, cause error) (uint64, error) {
	cur, err := LeaderGet(ctx, b.js, b.Stream(), b.Subject(key))
	var expect uint64
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return 0, fmt.Errorf("acquire %s in bucket %s: %w (checking the key through its leader failed too: %v); retry", key, b.name, cause, err)
	case !isDeleted(cur) && tokenOf(cur.Data) == token:
		return cur.Sequence, nil // the create happened; its reply was lost
	case !isDeleted(cur):
		return 0, b.held(key, cur)
	default:
		expect = cur.Sequence
	}
	rev, err := b.publishLease(ctx, key, raw, expect, ttl)
	if refused(err) {
		return 0, fmt.Errorf("%w: key %s of bucket %s was taken by another holder while acquiring it", ErrHeld, key, b.name)
	}
	if err != nil {
		return 0, fmt.Errorf("acquire %s in bucket %s: %w; retry", key, b.name, err)
	}
	return rev, nil
}

func (b *Bucket) held(key string, cur *jetstream.RawStreamMsg) error {
	return fmt.Errorf("%w: key %s of bucket %s is held by %s (generation at most %d); "+
		"wait for its TTL to run out (watch the key for the expiry marker) and acquire again",
		ErrHeld, key, b.name, holderOf(cur.Data), cur.Sequence)
}

// publishLease writes the lease value on key if the subject's last
// sequence is expect (0: no message), with a per-message TTL. This is
// kv.Update with a TTL, which nats.go's KV API does not offer.
func (b *Bucket) publishLease(ctx context.Context, key string, raw []byte, expect uint64, ttl time.Duration) (uint64, error) {
	m := &nats.Msg{Subject: b.Subject(key), Data: raw, Header: nats.Header{}}
	ack, err := b.js.PublishMsg(ctx, m, jetstream.WithExpectLastSequencePerSubject(expect), jetstream.WithMsgTTL(ttl))
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

// Margin is how long before the lease's expiry, as estimated by the
// holder, ValidUntil ends: a fifth of the TTL (3 s of 15 s). It covers
// wall-clock skew between NATS nodes (the server expires messages by their
// stored wall-clock time, and a new stream leader may run on another
// machine) and the time between checking ValidUntil and an effect landing.
func Margin(ttl time.Duration) time.Duration { return ttl / 5 }

// ValidUntil is the self-fencing deadline: the send time of the last write
// that stored the lease plus the TTL minus Margin, on the monotonic clock
// (compare it with time.Now only). The server cannot have expired the
// lease before, since it stored the write after it was sent. A lost Lease
// returns the zero time.
func (l *Lease) ValidUntil() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return time.Time{}
	}
	return l.renewedAt.Add(l.ttl - Margin(l.ttl))
}

// Generation is the revision of the acquiring create: it identifies this
// holder's term in records it writes, and grows across takeovers.
func (l *Lease) Generation() uint64 { return l.gen }

// Revision is the lease subject's last sequence as this Lease knows it:
// the generation until the first renewal, then the latest renewal's.
func (l *Lease) Revision() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rev
}

// Holder is the holder name given to Acquire.
func (l *Lease) Holder() string { return l.holder }

// Key is the lease key.
func (l *Lease) Key() string { return l.key }

// Subject is the lease key's stream subject, the fence subject.
func (l *Lease) Subject() string { return l.b.Subject(l.key) }

// TTL is the lease's time to live.
func (l *Lease) TTL() time.Duration { return l.ttl }

// Err is nil while the Lease may still be held, and the ErrLost error
// once it is known to be lost.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

func (l *Lease) String() string {
	return fmt.Sprintf("%s in bucket %s (holder %q, generation %d)", l.key, l.b.name, l.holder, l.gen)
}

// Release deletes the lease key if this Lease still holds it, so a
// successor need not wait for the TTL. The Lease is lost afterwards.
func (l *Lease) Release(ctx context.Context) error {
	l.writing.Lock()
	defer l.writing.Unlock()
	rev, err := l.current()
	if err != nil {
		return err
	}
	err = l.b.kv.Delete(ctx, l.key, jetstream.LastRevision(rev))
	if err != nil && !refused(err) {
		return fmt.Errorf("release lease %s: %w; retry, or let the TTL run out", l, err)
	}
	l.setLost(fmt.Errorf("%w: lease %s was released", ErrLost, l))
	return nil
}

// current is the revision to write against, or the loss.
func (l *Lease) current() (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rev, l.lost
}

// stored records a write of the lease value sent at sent.
func (l *Lease) stored(rev uint64, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rev, l.renewedAt = rev, sent
}

// adopt takes rev as the revision without moving ValidUntil: the send
// time of the write stored there is unknown.
func (l *Lease) adopt(rev uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rev = rev
}

func (l *Lease) setLost(err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		l.lost = err
	}
	return l.lost
}
