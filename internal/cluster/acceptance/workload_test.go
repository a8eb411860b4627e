package acceptance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Workload sizes (design §7 phase 1, acceptance 1).
const (
	records      = 100_000
	shortRecords = 20_000
	keys         = 200
)

// recordCount is the number of records a test publishes.
func recordCount() int {
	if testing.Short() {
		return shortRecords
	}
	return records
}

// longEnv=1 selects the long mode: more faults per test (doc.go).
const longEnv = "CLUSTER_LONG"

// longMode reports whether the tests run their long mode.
func longMode() bool { return os.Getenv(longEnv) == "1" }

// seedEnv repeats a test's random choices.
const seedEnv = "ACCEPTANCE_SEED"

// newRand returns the test's random source, seeded from seedEnv or the
// clock, and logs the seed.
func newRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s, ok := os.LookupEnv(seedEnv); ok {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: not an unsigned integer", seedEnv, s)
		}
		seed = v
	}
	t.Logf("seed %d (%s=%d repeats it)", seed, seedEnv, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// event is the seq-th record of key, published as sum2's input
// {"k":key,"v":seq}: sum2 adds v to the key's sum and counts its records,
// so applied once each and in order, the key's n-th record yields count n
// and sum n(n+1)/2.
type event struct {
	msgID string // the input's Nats-Msg-Id
	key   string
	seq   int64
}

func (e event) payload() []byte {
	b, _ := json.Marshal(map[string]any{"k": e.key, "v": e.seq})
	return b
}

// newEvents returns n events on keys key-000.. key-<keys-1>, each drawn
// at random, each key's numbered from 1 in publish order.
func newEvents(n int, r *rand.Rand) []event {
	next := make(map[string]int64, keys)
	out := make([]event, n)
	for i := range out {
		k := fmt.Sprintf("key-%03d", r.IntN(keys))
		next[k]++
		out[i] = event{msgID: fmt.Sprintf("evt-%d", i+1), key: k, seq: next[k]}
	}
	return out
}

// sumOutput is sum2's output (internal/testguests/sum2).
type sumOutput struct {
	K     string `json:"k"`
	Input int    `json:"input"`
	V     int64  `json:"v"`
	Sum   int64  `json:"sum"`
	Count int64  `json:"count"`
}

// model is what a single process stores for the published events: one
// output per event, under the id docs/sinks.md gives an idempotent sink
// without event_id. It is the reference the workers' outputs must equal.
// It follows the stream's order, not the publish order: a publish that a
// leader's death lost and that is sent again is stored after the events
// published behind it, and the pipeline then sums the key's events in
// that order.
type model struct {
	byID    map[string]sumOutput
	perKey  map[string]int64 // events per key
	lastSeq uint64           // the highest stream sequence of an event published
	// stored is when the publisher had each event's acknowledgement, by
	// stream sequence: the start of its output's latency (outputlatency_test.go).
	stored map[uint64]time.Time
	// keySeqs are the stream sequences of each key's events, ascending;
	// events the event at each.
	keySeqs map[string][]uint64
	events  map[uint64]event
}

func newModel() *model {
	return &model{byID: map[string]sumOutput{}, perKey: map[string]int64{}, stored: map[uint64]time.Time{},
		keySeqs: map[string][]uint64{}, events: map[uint64]event{}}
}

// add records that e was stored at stream sequence seq, and the outputs of
// e's key from it on: sum2 sums a key's values in stream order.
func (m *model) add(e event, seq uint64) {
	m.events[seq] = e
	m.perKey[e.key]++
	m.lastSeq = max(m.lastSeq, seq)
	m.stored[seq] = time.Now()
	seqs := m.keySeqs[e.key]
	at, _ := slices.BinarySearch(seqs, seq)
	m.keySeqs[e.key] = slices.Insert(seqs, at, seq)
	m.sumFrom(e.key, at)
}

// sumFrom sets the outputs of key's events from its at-th on.
func (m *model) sumFrom(key string, at int) {
	seqs := m.keySeqs[key]
	var sum int64
	if at > 0 {
		sum = m.byID[outputID(seqs[at-1])].Sum
	}
	for i := at; i < len(seqs); i++ {
		v := m.events[seqs[i]].seq
		sum += v
		m.byID[outputID(seqs[i])] = sumOutput{K: key, Input: 0, V: v, Sum: sum, Count: int64(i + 1)}
	}
}

// storedBefore reports whether the model holds an event at seq already.
func (m *model) storedBefore(seq uint64) bool {
	_, ok := m.events[seq]
	return ok
}

// outputID is the Nats-Msg-Id of the only output of the input at stream
// sequence seq: <pipeline>.<operator>.<source>.<sequence>.<n> (docs/sinks.md).
func outputID(seq uint64) string {
	return fmt.Sprintf("%s.%s.%s.%d.0", pipelineName, operatorName, sourceName, seq)
}

// publishChunk is how many publishes are in flight at once: below
// nats.go's async limit (4000), so a slow cluster stalls nothing.
const publishChunk = 2000

// ackLimit bounds the wait for one chunk's acknowledgements: an R3 write
// is a Raft round; the limit only catches a broken cluster.
const ackLimit = time.Minute

// publishEvents stores events on the input subject and adds them to m,
// failing the test when it cannot (storeEvents).
func publishEvents(t testing.TB, js jetstream.JetStream, m *model, events []event) {
	t.Helper()
	if err := storeEvents(js, m, events); err != nil {
		t.Fatal(err)
	}
}

// asyncAckLimit bounds the wait for a part's acknowledgements before the
// rest is published again one by one.
const asyncAckLimit = 15 * time.Second

// storeEvents is publishEvents for any goroutine: it returns the failure.
// It publishes asynchronously; when an acknowledgement fails or does not
// come (a node died or froze while the part was in flight), it publishes
// the events from the first unconfirmed one again one at a time, with
// their ids, through the fault (storeEventsThroughFaults): those the
// stream stored already are acknowledged as duplicates at their
// sequence, the lost ones are stored after the others (the model follows
// the stream's order).
func storeEvents(js jetstream.JetStream, m *model, events []event) error {
	n, err := storeEventsAsync(js, m, events)
	if err == nil {
		return nil
	}
	return storeEventsThroughFaults(js, m, events[n:])
}

// storeEventsAsync publishes events without waiting for each answer and
// returns how many of them, from the first, were confirmed.
func storeEventsAsync(js jetstream.JetStream, m *model, events []event) (int, error) {
	futures := make([]jetstream.PubAckFuture, 0, len(events))
	var sendErr error
	for _, e := range events {
		f, err := js.PublishMsgAsync(&nats.Msg{Subject: inputSubject, Data: e.payload()}, jetstream.WithMsgID(e.msgID))
		if err != nil {
			sendErr = fmt.Errorf("publish %s: %w", e.msgID, err)
			break
		}
		futures = append(futures, f)
	}
	timeout := time.After(asyncAckLimit)
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			if err := checkAck(events[i], ack, m, false); err != nil {
				return i, err
			}
			m.add(events[i], ack.Sequence)
		case err := <-f.Err():
			return i, fmt.Errorf("publish %s: %w", events[i].msgID, err)
		case <-timeout:
			return i, fmt.Errorf("publish: %d of %d acknowledgements missing after %s", len(futures)-i, len(futures), asyncAckLimit)
		}
	}
	return len(futures), sendErr
}

// checkAck fails unless e was stored in the input stream at a sequence
// that holds no other event: as a new message, or, when it was sent again,
// as the duplicate of an attempt whose answer was lost.
func checkAck(e event, ack *jetstream.PubAck, m *model, again bool) error {
	switch {
	case ack.Stream != inputStream:
		return fmt.Errorf("publish %s: stored in stream %s, want %s", e.msgID, ack.Stream, inputStream)
	case ack.Duplicate && !again:
		return fmt.Errorf("publish %s: a duplicate of sequence %d on its first attempt; the input stream is not fresh", e.msgID, ack.Sequence)
	case m.storedBefore(ack.Sequence):
		return fmt.Errorf("publish %s: acknowledged at sequence %d, which holds event %s; the input stream is not fresh", e.msgID, ack.Sequence, m.events[ack.Sequence].msgID)
	}
	return nil
}
