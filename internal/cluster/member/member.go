package member

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// HeartbeatInterval is how often a member says it runs. The coordinator's
// worker_timeout should be several of them (design: 5 s).
const HeartbeatInterval = time.Second

// releaseTimeout bounds the release of the lease when a member leaves:
// leaving must not hang on an unreachable server, the TTL is the backstop.
const releaseTimeout = 5 * time.Second

// ErrInvalidID: a worker id that cannot be a KV key token.
var ErrInvalidID = errors.New("invalid worker id")

var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Key is the membership lease key of worker id.
func Key(id string) string { return "workers." + id }

// HeartbeatSubject is where worker id of pipeline sends its heartbeats.
func HeartbeatSubject(pipeline, id string) string {
	return "wasmstream." + pipeline + ".ctl.hb." + id
}

// heartbeat is a heartbeat's body; the subject names the worker already,
// the generation tells two incarnations of one id apart.
type heartbeat struct {
	Worker     string `json:"worker"`
	Generation uint64 `json:"generation"`
	// Leaving: the worker is stopping and asks for its tasks to be moved
	// away while it still runs them (a graceful leave: the coordinator
	// can take a handover checkpoint with it).
	Leaving bool `json:"leaving,omitempty"`
}

// Member is this process's membership of a pipeline.
type Member struct {
	lease   *lease.Lease
	nc      *nats.Conn
	subject string
	body    atomic.Pointer[[]byte]
	hb      heartbeat
}

// Join makes worker id a member of pipeline: it acquires the lease
// Key(id) with ttl. Another live process with the same id is refused.
func Join(ctx context.Context, b *lease.Bucket, nc *nats.Conn, pipeline, id string, ttl time.Duration) (*Member, error) {
	if !validID.MatchString(id) {
		return nil, fmt.Errorf("%w %q: use 1 to 64 letters, digits, '-' or '_' (wasmstream worker --id)", ErrInvalidID, id)
	}
	l, err := b.Acquire(ctx, Key(id), id, ttl)
	if errors.Is(err, lease.ErrHeld) {
		return nil, fmt.Errorf("worker id %q of pipeline %q is in use by a running worker (%w); give this worker another --id, "+
			"or wait %s for the lease of a worker that died to expire", id, pipeline, err, ttl)
	}
	if err != nil {
		return nil, fmt.Errorf("join pipeline %q as worker %q: %w", pipeline, id, err)
	}
	m := &Member{lease: l, nc: nc, subject: HeartbeatSubject(pipeline, id), hb: heartbeat{Worker: id, Generation: l.Generation()}}
	m.setBody()
	return m, nil
}

func (m *Member) setBody() {
	body, _ := json.Marshal(m.hb)
	m.body.Store(&body)
}

// Leave says, in this and every later heartbeat, that the worker is
// leaving: the coordinator plans without it but still counts on it for a
// handover checkpoint. It keeps its lease until Run ends. Not safe for
// concurrent use with itself.
func (m *Member) Leave() {
	if m.hb.Leaving {
		return
	}
	m.hb.Leaving = true
	m.setBody()
	m.beat()
}

// Lease is the membership lease: its ValidUntil is this worker's
// self-fencing deadline.
func (m *Member) Lease() *lease.Lease { return m.lease }

// Run renews the lease and sends heartbeats until ctx ends (then it
// releases the lease and returns nil) or the lease is lost (ErrLost: the
// worker must stop its tasks). A failed renewal within the TTL is retried
// at the next tick: an election takes seconds, the TTL more.
func (m *Member) Run(ctx context.Context) error {
	renew := time.NewTicker(lease.Margin(m.lease.TTL()))
	defer renew.Stop()
	beat := time.NewTicker(HeartbeatInterval)
	defer beat.Stop()
	m.beat()
	for {
		select {
		case <-ctx.Done():
			return m.leave()
		case <-beat.C:
			m.beat()
		case <-renew.C:
			if err := m.renew(ctx); err != nil {
				return err
			}
		}
	}
}

// beat publishes one heartbeat. Core NATS: a lost one only matters when
// many are, which is what the timeout measures.
func (m *Member) beat() { _ = m.nc.Publish(m.subject, *m.body.Load()) }

func (m *Member) renew(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, lease.Margin(m.lease.TTL()))
	defer cancel()
	err := m.lease.Renew(rctx)
	if errors.Is(err, lease.ErrLost) {
		return fmt.Errorf("worker %s: membership %w", m.lease.Holder(), err)
	}
	if err != nil && time.Now().After(m.lease.ValidUntil()) {
		return fmt.Errorf("worker %s: membership lease not renewed before its deadline (%w): %w", m.lease.Holder(), lease.ErrLost, err)
	}
	return nil
}

func (m *Member) leave() error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := m.lease.Release(ctx); err != nil && !errors.Is(err, lease.ErrLost) {
		return fmt.Errorf("worker %s: release membership (it expires by itself after %s): %w", m.lease.Holder(), m.lease.TTL(), err)
	}
	return nil
}
