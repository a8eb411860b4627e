package natsio

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func ensureAtomicStream(t testing.TB, c *Conn, name string, subjects ...string) {
	t.Helper()
	if _, err := c.EnsureAtomicStream(testCtx(t), StreamSpec{Name: name, Subjects: subjects}); err != nil {
		t.Fatalf("EnsureAtomicStream %s: %v", name, err)
	}
}

// outMsgs returns n messages to subject with ids "<tag>-i" and data "<tag>:i".
func outMsgs(subject, tag string, n int) []OutMessage {
	msgs := make([]OutMessage, n)
	for i := range msgs {
		msgs[i] = OutMessage{Subject: subject, MsgID: fmt.Sprintf("%s-%d", tag, i), Data: fmt.Appendf(nil, "%s:%d", tag, i)}
	}
	return msgs
}

func streamMsgs(t testing.TB, c *Conn, stream string) uint64 {
	t.Helper()
	st, err := c.JS.Stream(testCtx(t), stream)
	if err != nil {
		t.Fatal(err)
	}
	return st.CachedInfo().State.Msgs
}

func TestPublishAtomicBatchCommits(t *testing.T) {
	srv := embedded(t)
	ensureAtomicStream(t, srv, "OUT", "out.>")
	publishSync(t, srv, "out.before", "x") // the batch does not start at 1
	// A reader on its own connection, started before the commit.
	reader := external(t, srv.ClientURL())
	src, err := reader.OpenSource(testCtx(t), SourceSpec{Stream: "OUT", StartSequence: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	msgs := outMsgs("out.x", "e", 10)
	msgs[3].Header = nats.Header{"Trace": {"t3"}}
	res, err := srv.PublishAtomicBatch(testCtx(t), "epoch-1-0", msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := BatchResult{BatchID: "epoch-1-0", Status: BatchCommitted, Stream: "OUT", Count: 10, FirstSeq: 2, LastSeq: 11}
	if res != want {
		t.Fatalf("result = %+v, want %+v", res, want)
	}
	if len(msgs[3].Header) != 1 {
		t.Fatalf("the caller's header was modified: %v", msgs[3].Header)
	}
	got := fetchN(t, src, 10)
	for i, m := range got {
		if m.Sequence != uint64(i+2) || string(m.Data) != fmt.Sprintf("e:%d", i) || m.Header.Get(jetstream.MsgIDHeader) != fmt.Sprintf("e-%d", i) {
			t.Fatalf("message %d = seq %d %q id %q", i, m.Sequence, m.Data, m.Header.Get(jetstream.MsgIDHeader))
		}
		// The batch headers are stored: a reader can tell batch boundaries.
		if m.Header.Get(server.JSBatchId) != "epoch-1-0" || m.Header.Get(server.JSBatchSeq) != fmt.Sprint(i+1) {
			t.Fatalf("message %d batch headers = %v", i, m.Header)
		}
	}
	if got[3].Header.Get("Trace") != "t3" || got[9].Header.Get(server.JSBatchCommit) != "1" || got[8].Header.Get(server.JSBatchCommit) != "" {
		t.Fatalf("headers: message 4 %v, message 9 %v, message 10 %v", got[3].Header, got[8].Header, got[9].Header)
	}
}

func TestPublishAtomicBatchSingleMessage(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	res, err := c.PublishAtomicBatch(testCtx(t), "b", outMsgs("out.x", "one", 1))
	if err != nil || res.Status != BatchCommitted || res.FirstSeq != 1 || res.LastSeq != 1 {
		t.Fatalf("PublishAtomicBatch = %+v, %v", res, err)
	}
}

// TestPublishAtomicBatchInvalidMessageLeavesNothing sends a batch whose
// middle message the stream refuses (a per-message TTL on a stream without
// TTLs). No message of it may ever become visible: a reader on its own
// connection, started before, sees the next good batch first.
func TestPublishAtomicBatchInvalidMessageLeavesNothing(t *testing.T) {
	srv := embedded(t)
	ensureAtomicStream(t, srv, "OUT", "out.>")
	reader := external(t, srv.ClientURL())
	src, err := reader.OpenSource(testCtx(t), SourceSpec{Stream: "OUT"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	bad := outMsgs("out.x", "bad", 5)
	bad[2].Header = nats.Header{jetstream.MsgTTLHeader: {"1h"}}
	_, err = srv.PublishAtomicBatch(testCtx(t), "bad", bad)
	var apiErr *jetstream.APIError
	if !errors.Is(err, ErrBatchRejected) || !errors.As(err, &apiErr) || !strings.Contains(err.Error(), "OUT") {
		t.Fatalf("PublishAtomicBatch(bad) = %v, want ErrBatchRejected with the API error, naming the stream", err)
	}
	if n := streamMsgs(t, srv, "OUT"); n != 0 {
		t.Fatalf("stream holds %d messages after a refused batch", n)
	}
	if _, err := srv.PublishAtomicBatch(testCtx(t), "good", outMsgs("out.x", "good", 3)); err != nil {
		t.Fatal(err)
	}
	first := fetchN(t, src, 1)[0]
	if string(first.Data) != "good:0" || first.Sequence != 1 {
		t.Fatalf("first visible message = seq %d %q, want the good batch's first", first.Sequence, first.Data)
	}
	// The refused batch's ids were not remembered: it commits once fixed.
	bad[2].Header = nil
	if res, err := srv.PublishAtomicBatch(testCtx(t), "bad", bad); err != nil || res.Status != BatchCommitted {
		t.Fatalf("fixed batch = %+v, %v", res, err)
	}
}

func TestPublishAtomicBatchRecommitIsAlreadyCommitted(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 50)
	if _, err := c.PublishAtomicBatch(testCtx(t), "b-0", msgs); err != nil {
		t.Fatal(err)
	}
	res, err := c.PublishAtomicBatch(testCtx(t), "b-0", msgs)
	want := BatchResult{BatchID: "b-0", Status: BatchAlreadyCommitted, Stream: "OUT", Count: 50}
	if err != nil || res != want {
		t.Fatalf("second commit = %+v, %v; want %+v", res, err, want)
	}
	if n := streamMsgs(t, c, "OUT"); n != 50 {
		t.Fatalf("stream holds %d messages, want 50", n)
	}
	if res.Status.String() != "already committed" {
		t.Fatalf("String() = %q", res.Status)
	}
}

func TestPublishAtomicBatchTooLarge(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	_, err := c.PublishAtomicBatch(testCtx(t), "big", outMsgs("out.x", "e", MaxAtomicBatch+1))
	if !errors.Is(err, ErrBatchTooLarge) || !strings.Contains(err.Error(), "1000") {
		t.Fatalf("err = %v, want ErrBatchTooLarge naming the limit", err)
	}
	if n := streamMsgs(t, c, "OUT"); n != 0 {
		t.Fatalf("stream holds %d messages", n)
	}
	if res, err := c.PublishAtomicBatch(testCtx(t), "full", outMsgs("out.x", "e", MaxAtomicBatch)); err != nil || res.LastSeq != MaxAtomicBatch {
		t.Fatalf("a batch of exactly the limit = %+v, %v", res, err)
	}
}

func TestPublishAtomicBatchStreamWithoutAllowAtomic(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "PLAIN", "plain.>")
	_, err := c.PublishAtomicBatch(testCtx(t), "b", outMsgs("plain.x", "e", 3))
	if !errors.Is(err, ErrAtomicPublishDisabled) {
		t.Fatalf("err = %v, want ErrAtomicPublishDisabled", err)
	}
	for _, want := range []string{"PLAIN", "allow_atomic", "EnableAtomicPublish"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if n := streamMsgs(t, c, "PLAIN"); n != 0 {
		t.Fatalf("stream holds %d messages", n)
	}
	if _, err := c.EnableAtomicPublish(testCtx(t), "PLAIN"); err != nil {
		t.Fatal(err)
	}
	if res, err := c.PublishAtomicBatch(testCtx(t), "b", outMsgs("plain.x", "e", 3)); err != nil || res.Status != BatchCommitted {
		t.Fatalf("after EnableAtomicPublish: %+v, %v", res, err)
	}
}

func TestPublishAtomicBatchNoStream(t *testing.T) {
	c := embedded(t)
	_, err := c.PublishAtomicBatch(testCtx(t), "b", outMsgs("nowhere.x", "e", 3))
	if !errors.Is(err, ErrNoStream) || !strings.Contains(err.Error(), `"nowhere.x"`) {
		t.Fatalf("err = %v, want ErrNoStream naming the subject", err)
	}
}

// TestPublishAtomicBatchReplacesStaleOpenBatch leaves a batch half-sent on
// the server (a crash before the commit) and commits the same batch id at
// once, as a restarted sink would within the server's batch timeout.
func TestPublishAtomicBatchReplacesStaleOpenBatch(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 5)
	stagePartial := func() {
		for i := range 3 {
			if err := c.NC.PublishMsg(batchMsg("b-0", i, msgs[i], false)); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.NC.FlushWithContext(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	// One attempt alone meets the stale batch...
	stagePartial()
	var stale *incompleteBatchError
	if _, err := c.publishBatchOnce(testCtx(t), "b-0", msgs); !errors.As(err, &stale) || !errors.Is(err, ErrBatchRejected) {
		t.Fatalf("one attempt over a stale batch = %v, want the stale batch error", err)
	}
	// ...which PublishAtomicBatch gets past.
	stagePartial()
	res, err := c.PublishAtomicBatch(testCtx(t), "b-0", msgs)
	if err != nil || res.Status != BatchCommitted || res.FirstSeq != 1 || res.LastSeq != 5 {
		t.Fatalf("commit over a stale open batch = %+v, %v", res, err)
	}
	// A one-message batch meets the stale batch with its commit.
	one := outMsgs("out.x", "one", 1)
	if err := c.NC.PublishMsg(batchMsg("b-1", 0, one[0], false)); err != nil {
		t.Fatal(err)
	}
	if res, err := c.PublishAtomicBatch(testCtx(t), "b-1", one); err != nil || res.Status != BatchCommitted || res.LastSeq != 6 {
		t.Fatalf("one-message commit over a stale open batch = %+v, %v", res, err)
	}
}

// TestPublishAtomicBatchAcrossServerRestart stops and starts the embedded
// server on the same store between two commits: both batches stay, and the
// first one is still recognised as committed (the duplicate window is
// rebuilt from the store).
func TestPublishAtomicBatchAcrossServerRestart(t *testing.T) {
	dir := t.TempDir()
	c := embeddedAt(t, dir, RandomPort)
	ensureAtomicStream(t, c, "OUT", "out.>")
	first := outMsgs("out.x", "a", 100)
	if _, err := c.PublishAtomicBatch(testCtx(t), "a-0", first); err != nil {
		t.Fatal(err)
	}
	c.Close()

	c2 := embeddedAt(t, dir, RandomPort)
	ensureAtomicStream(t, c2, "OUT", "out.>")
	if res, err := c2.PublishAtomicBatch(testCtx(t), "b-0", outMsgs("out.x", "b", 100)); err != nil || res.FirstSeq != 101 {
		t.Fatalf("second batch = %+v, %v", res, err)
	}
	if res, err := c2.PublishAtomicBatch(testCtx(t), "a-0", first); err != nil || res.Status != BatchAlreadyCommitted {
		t.Fatalf("first batch again after restart = %+v, %v", res, err)
	}
	src, err := c2.OpenSource(testCtx(t), SourceSpec{Stream: "OUT"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 200)
	if string(got[0].Data) != "a:0" || string(got[199].Data) != "b:99" || streamMsgs(t, c2, "OUT") != 200 {
		t.Fatalf("after restart: first %q, last %q", got[0].Data, got[199].Data)
	}
}

// TestPublishAtomicBatchServerLimit runs a server whose limit is below
// MaxAtomicBatch: its refusal must name its limit and change nothing.
func TestPublishAtomicBatchServerLimit(t *testing.T) {
	ns, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: RandomPort, JetStream: true, StoreDir: t.TempDir(), NoSigs: true,
		JetStreamLimits: server.JSLimitOpts{MaxBatchSize: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	if !ns.ReadyForConnections(testTimeout) {
		t.Fatal("server not ready")
	}
	c := external(t, ns.ClientURL())
	ensureAtomicStream(t, c, "OUT", "out.>")
	_, err = c.PublishAtomicBatch(testCtx(t), "b", outMsgs("out.x", "e", 8))
	if !errors.Is(err, ErrBatchTooLarge) || !strings.Contains(err.Error(), "too large: 5") || !strings.Contains(err.Error(), "max_msgs") {
		t.Fatalf("err = %v, want ErrBatchTooLarge naming the server's limit 5", err)
	}
	if n := streamMsgs(t, c, "OUT"); n != 0 {
		t.Fatalf("stream holds %d messages", n)
	}
	results, err := c.CommitBatches(testCtx(t), "ok", outMsgs("out.x", "e", 8), 5)
	if err != nil || len(results) != 2 || results[1].LastSeq != 8 {
		t.Fatalf("CommitBatches with size 5 = %+v, %v", results, err)
	}
}
