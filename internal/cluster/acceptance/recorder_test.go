package acceptance

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/clustertest"
	"github.com/wasmstream/wasmstream/internal/engine"
)

// recorder watches the output stream for a whole test on a connection of
// its own, independent of the workers (the design's check 1, as
// internal/crashtest's recorder). It keeps every message the stream
// stores, through an ordered consumer, and counts the messages published
// on the output subject through a core subscription, before JetStream
// drops the repeats whose id it already holds: raw − stored is what
// deduplication absorbed (replays after a takeover). It keeps the id and
// arrival time of every raw message too, for the transactional
// visibility check: nothing may even be published before its checkpoint
// completed.
type recorder struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	cons *follower
	sub  *nats.Subscription

	mu     sync.Mutex
	stored []storedMsg
	ids    map[string]struct{} // distinct Nats-Msg-Ids in stored
	raw    []rawMsg
	errs   []string // consumer errors, for failure messages
}

// storedMsg is one message of the output stream.
type storedMsg struct {
	seq   uint64 // stream sequence
	msgID string // Nats-Msg-Id, "" when it has none
	data  []byte
	// stamp is the time the stream stored it (its leader's clock: the
	// cluster runs on this machine, so it compares with the control
	// bucket's stamps).
	stamp time.Time
	batch batchHeaders
	// worker is the worker that produced it (engine.HeaderWorker).
	worker string
}

// batchHeaders are the headers of a message of a JetStream atomic batch,
// which the stream stores with it (zero outside a batch).
type batchHeaders struct {
	id     string // Nats-Batch-Id
	seq    int    // Nats-Batch-Sequence, from 1
	commit bool   // Nats-Batch-Commit: the batch's last message
}

func batchOf(h nats.Header) batchHeaders {
	b := batchHeaders{id: h.Get("Nats-Batch-Id"), commit: h.Get("Nats-Batch-Commit") != ""}
	b.seq, _ = strconv.Atoi(h.Get("Nats-Batch-Sequence"))
	return b
}

// rawMsg is one message published on the output subject, as it passed.
type rawMsg struct {
	msgID string
	at    time.Time // arrival at the recorder
}

// startRecorder starts recording the output stream, which must exist.
// The test's cleanup stops it.
func startRecorder(t testing.TB, c *clustertest.Cluster) *recorder {
	t.Helper()
	r := &recorder{nc: c.Conn(t, nats.Name("acceptance recorder")), ids: map[string]struct{}{}}
	var err error
	if r.js, err = jetstream.New(r.nc); err != nil {
		t.Fatal(err)
	}
	if r.sub, err = r.nc.Subscribe(outputSubject, r.rawMsg); err != nil {
		t.Fatal(err)
	}
	// Never drop a raw message for being slow: the count is the point.
	if err := r.sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r.cons, err = follow(ctx, r.js, outputStream, r.storedMsg, r.consumeErr); err != nil {
		t.Fatalf("recorder: %v", err)
	}
	t.Cleanup(r.stop)
	// The subscription's interest must reach every node before a worker
	// publishes there.
	if err := r.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *recorder) rawMsg(m *nats.Msg) {
	raw := rawMsg{msgID: m.Header.Get(jetstream.MsgIDHeader), at: time.Now()}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, raw)
}

func (r *recorder) storedMsg(m jetstream.Msg) {
	msg := storedMsg{msgID: m.Headers().Get(jetstream.MsgIDHeader), data: m.Data(), batch: batchOf(m.Headers()),
		worker: m.Headers().Get(engine.HeaderWorker)}
	if meta, err := m.Metadata(); err == nil {
		msg.seq, msg.stamp = meta.Sequence.Stream, meta.Timestamp
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stored = append(r.stored, msg)
	r.ids[msg.msgID] = struct{}{}
}

func (r *recorder) consumeErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err.Error())
}

func (r *recorder) stop() {
	r.cons.Stop()
	_ = r.sub.Unsubscribe()
}

// progress is what the recorder saw so far: distinct ids stored, messages
// stored and messages published.
type progress struct{ distinct, stored, raw int }

func (p progress) String() string {
	return fmt.Sprintf("%d distinct outputs stored (%d messages; %d published, %d absorbed by deduplication)",
		p.distinct, p.stored, p.raw, max(p.raw-p.stored, 0))
}

func (r *recorder) progress() progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return progress{distinct: len(r.ids), stored: len(r.stored), raw: len(r.raw)}
}

// complete waits until the recorder has seen everything the output
// stream holds now and returns it. It fails unless the recorder saw every
// stream sequence 1 to the last exactly once and the stream still holds
// them all: what the checks count is then all the stream ever stored.
func (r *recorder) complete(t *testing.T) []storedMsg {
	t.Helper()
	want := streamState(t, r.js, outputStream)
	deadline := time.Now().Add(2 * time.Minute)
	for r.lastSeq() < want.LastSeq {
		if time.Now().After(deadline) {
			r.mu.Lock()
			errs := r.errs
			r.mu.Unlock()
			t.Fatalf("the recorder saw stream %s up to sequence %d after 2 min; it holds %d (consumer errors: %v)",
				outputStream, r.lastSeq(), want.LastSeq, errs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	msgs := r.snapshot()
	for i, m := range msgs {
		if m.seq != uint64(i+1) {
			t.Fatalf("the recorder's message %d has stream sequence %d: it missed or repeated a message of %s", i+1, m.seq, outputStream)
		}
	}
	if now := streamState(t, r.js, outputStream); now.Msgs != uint64(len(msgs)) {
		t.Fatalf("stream %s holds %d messages, the recorder saw %d: some were removed", outputStream, now.Msgs, len(msgs))
	}
	return msgs
}

func (r *recorder) lastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stored) == 0 {
		return 0
	}
	return r.stored[len(r.stored)-1].seq
}

func (r *recorder) snapshot() []storedMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]storedMsg(nil), r.stored...)
}

// rawSnapshot is every raw message so far. Core NATS gives no guarantee:
// what the recorder's connection missed is not in it, so it is a lower
// bound of what was published.
func (r *recorder) rawSnapshot() []rawMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]rawMsg(nil), r.raw...)
}

// streamState is the stream's state as its leader reports it.
func streamState(t *testing.T, js jetstream.JetStream, name string) jetstream.StreamState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, name)
	if err != nil {
		t.Fatalf("info of stream %s: %v", name, err)
	}
	return s.CachedInfo().State
}
