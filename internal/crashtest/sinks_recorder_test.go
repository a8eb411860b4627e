package crashtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// recorder watches a world's outputs for a whole test from its own
// connection, independently of the pipeline and of the reads the checks
// make at the end. It keeps two records:
//
//   - stored: every message the output stream stores, through an ordered
//     consumer, so a message that became visible once is in it even if
//     something later removed it;
//   - raw: every message published on the output subjects, through a core
//     subscription, before JetStream decides anything (a repeat its
//     duplicate window drops, a message of an atomic batch that is never
//     committed). Core NATS keeps nothing for a subscriber that is away:
//     across a server restart, raw misses what was published while the
//     recorder reconnected, so there it is a lower bound.
//
// It is started before the first run and lives until the test ends; it
// follows the server through a restart.
type recorder struct {
	nc   *nats.Conn
	cons jetstream.ConsumeContext
	sub  *nats.Subscription

	mu     sync.Mutex
	stored []recordedMsg
	raw    []recordedMsg
	errs   []string // consumer errors, for failure messages
}

// recordedMsg is one message the recorder saw.
type recordedMsg struct {
	seq   uint64 // stream sequence (0 for a raw message)
	msgID string // Nats-Msg-Id, "" when it has none
	data  []byte
	at    time.Time // arrival at the recorder
}

// startRecorder starts recording stream, which captures subjects, on the
// world's server. The test's cleanup stops it.
func (w *world) startRecorder(t *testing.T, stream, subjects string) *recorder {
	t.Helper()
	nc, err := nats.Connect(w.srv.url, nats.Name("crashtest recorder"),
		nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{nc: nc}
	t.Cleanup(r.close)
	r.sub, err = nc.Subscribe(subjects, func(m *nats.Msg) {
		r.add(&r.raw, recordedMsg{msgID: m.Header.Get(jetstream.MsgIDHeader), data: m.Data, at: time.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Never drop a raw message for being slow: the counts are the point.
	if err := r.sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r.cons, err = cons.Consume(r.storedMsg, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.errs = append(r.errs, err.Error())
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *recorder) storedMsg(m jetstream.Msg) {
	msg := recordedMsg{msgID: m.Headers().Get(jetstream.MsgIDHeader), data: m.Data(), at: time.Now()}
	if meta, err := m.Metadata(); err == nil {
		msg.seq = meta.Sequence.Stream
	}
	r.add(&r.stored, msg)
}

func (r *recorder) add(to *[]recordedMsg, m recordedMsg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*to = append(*to, m)
}

func (r *recorder) close() {
	r.cons.Stop()
	_ = r.sub.Unsubscribe()
	r.nc.Close()
}

// storedSnapshot returns the stored messages recorded so far.
func (r *recorder) storedSnapshot() []recordedMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedMsg(nil), r.stored...)
}

// rawSnapshot returns the raw messages recorded so far.
func (r *recorder) rawSnapshot() []recordedMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedMsg(nil), r.raw...)
}

// lastSeq is the highest stream sequence recorded.
func (r *recorder) lastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stored) == 0 {
		return 0
	}
	return r.stored[len(r.stored)-1].seq
}

// catchUp waits until the recorder has seen every message stream stores
// now, and returns what it recorded. The raw subscription shares the
// connection and saw each message before the stream stored it; a flush
// makes sure it has handed over what is on its way.
func (r *recorder) catchUp(t *testing.T, srv *natsServer, stream string) []recordedMsg {
	t.Helper()
	want := srv.streamLastSeq(t, stream)
	deadline := time.Now().Add(waitLimit)
	for r.lastSeq() < want {
		if time.Now().After(deadline) {
			r.mu.Lock()
			errs := r.errs
			r.mu.Unlock()
			t.Fatalf("the recorder saw stream %s up to sequence %d after %s; it holds %d (consumer errors: %v)",
				stream, r.lastSeq(), waitLimit, want, errs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := r.nc.Flush(); err != nil {
		t.Fatalf("recorder: %v", err)
	}
	return r.storedSnapshot()
}

// requireComplete fails unless the recorder saw every sequence of stream
// exactly once, 1 to the stream's last, and the stream still holds them
// all: what the checks count is then all the stream ever stored.
func (r *recorder) requireComplete(t *testing.T, srv *natsServer, stream string) []recordedMsg {
	t.Helper()
	msgs := r.catchUp(t, srv, stream)
	for i, m := range msgs {
		if m.seq != uint64(i+1) {
			t.Fatalf("the recorder's message %d has stream sequence %d: it missed or repeated a message of %s", i+1, m.seq, stream)
		}
	}
	if stored := srv.storedCount(t, stream); stored != uint64(len(msgs)) {
		t.Fatalf("stream %s holds %d messages, the recorder saw %d: some were removed", stream, stored, len(msgs))
	}
	return msgs
}

// asStored turns recorded messages into the form checkOutputs accounts.
func asStored(msgs []recordedMsg) []storedMsg {
	out := make([]storedMsg, len(msgs))
	for i, m := range msgs {
		out[i] = storedMsg{seq: m.seq, msgID: m.msgID, data: m.data}
	}
	return out
}

// byPayload gives each message its payload as id: at_least_once outputs
// carry no id, and each sum2 output's payload is unique to its input.
func byPayload(msgs []storedMsg) []storedMsg {
	out := make([]storedMsg, len(msgs))
	for i, m := range msgs {
		out[i] = m
		out[i].msgID = string(m.data)
	}
	return out
}

// String summarises the recorder for logs.
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("recorder: %d stored, %d raw, %d consumer errors", len(r.stored), len(r.raw), len(r.errs))
}
