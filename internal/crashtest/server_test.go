package crashtest

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// waitLimit bounds every poll of these tests, and runLimit every process
// run (a run over 100,000 records on a busy machine takes a while). They
// are no performance claims: a wait that reaches one means the behaviour
// under test broke.
const (
	waitLimit = 2 * time.Minute
	runLimit  = 5 * time.Minute
)

// natsServer is the test's own JetStream server. It lives in the test
// process, so a child killed with SIGKILL loses nothing the server stored.
type natsServer struct {
	url      string
	nc       *nats.Conn
	js       jetstream.JetStream
	storeDir string
	port     int
	ns       *server.Server // replaced by restart
}

// startServer starts a JetStream server on a random port of 127.0.0.1 with
// its store in a temporary directory; the test's cleanup stops it.
func startServer(t *testing.T) *natsServer {
	t.Helper()
	s := &natsServer{storeDir: t.TempDir(), port: server.RANDOM_PORT}
	s.ns = runServer(t, s.storeDir, s.port)
	t.Cleanup(func() {
		s.ns.Shutdown()
		s.ns.WaitForShutdown()
	})
	s.url = s.ns.ClientURL()
	s.port = s.ns.Addr().(*net.TCPAddr).Port
	// The test's own connection outlives a restart of the server.
	nc, err := nats.Connect(s.url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s.nc, s.js = nc, js
	return s
}

// runServer starts a JetStream server on port (server.RANDOM_PORT: any)
// of 127.0.0.1 with its store in storeDir.
func runServer(t *testing.T, storeDir string, port int) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true,
		StoreDir: storeDir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		t.Fatal("the test's NATS server does not accept connections")
	}
	return ns
}

// restart shuts the server down, waits for outage, and starts it again on
// the same port and store, as an operator restarting NATS would. It
// returns once the test's own connection reaches JetStream again.
func (s *natsServer) restart(t *testing.T, outage time.Duration) {
	t.Helper()
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	time.Sleep(outage)
	s.ns = runServer(t, s.storeDir, s.port)
	deadline := time.Now().Add(waitLimit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := s.js.AccountInfo(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("JetStream is not reachable %s after the server's restart: %v", waitLimit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createStreams creates the streams cfg declares, as the pipeline would, so
// that inputs can be published before its first run: a stream capturing a
// transactional sink's subject allows atomic batch publish.
func (s *natsServer) createStreams(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	atomic := map[string]bool{}
	for _, sk := range cfg.Sinks {
		if st := cfg.StreamCapturing(sk.Subject); st != nil && sk.Mode == config.ModeTransactional {
			atomic[st.Name] = true
		}
	}
	for _, st := range cfg.Streams {
		_, err := s.js.CreateStream(context.Background(), jetstream.StreamConfig{
			Name: st.Name, Subjects: st.Subjects, Duplicates: st.DuplicateWindow, Storage: jetstream.FileStorage,
			AllowAtomicPublish: atomic[st.Name]})
		if err != nil {
			t.Fatalf("create stream %s: %v", st.Name, err)
		}
	}
}

// input is one record to publish, with its Nats-Msg-Id.
type input struct {
	msgID string
	data  []byte
}

// publishChunk is how many publishes are in flight at once: below
// nats.go's async limit (4000), so a slow server stalls nothing.
const publishChunk = 2000

// publish stores inputs on subject, in order, and fails unless every one
// was acknowledged as a new message.
func (s *natsServer) publish(t *testing.T, subject string, inputs []input) {
	t.Helper()
	for start := 0; start < len(inputs); start += publishChunk {
		s.publishAsync(t, subject, inputs[start:min(start+publishChunk, len(inputs))])
	}
}

func (s *natsServer) publishAsync(t *testing.T, subject string, inputs []input) {
	t.Helper()
	futures := make([]jetstream.PubAckFuture, 0, len(inputs))
	for _, in := range inputs {
		f, err := s.js.PublishMsgAsync(&nats.Msg{Subject: subject, Data: in.data}, jetstream.WithMsgID(in.msgID))
		if err != nil {
			t.Fatalf("publish %s: %v", in.msgID, err)
		}
		futures = append(futures, f)
	}
	select {
	case <-s.js.PublishAsyncComplete():
	case <-time.After(waitLimit):
		t.Fatalf("publishing %d records to %s: no acknowledgements after %s", len(inputs), subject, waitLimit)
	}
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			if ack.Duplicate {
				t.Fatalf("input %s was taken for a duplicate", inputs[i].msgID)
			}
		case err := <-f.Err():
			t.Fatalf("publish %s: %v", inputs[i].msgID, err)
		}
	}
}

// storedMsg is one message read back from a stream.
type storedMsg struct {
	seq    uint64
	msgID  string
	header nats.Header
	data   []byte
}

// readStream returns every message stored in stream, by stream sequence.
func (s *natsServer) readStream(t *testing.T, stream string) []storedMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	want := s.storedCount(t, stream)
	cons, err := s.js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []storedMsg
	for uint64(len(msgs)) < want {
		// Ask for no more than is left, so the last fetch does not wait.
		batch, err := cons.Fetch(int(min(want-uint64(len(msgs)), 1000)), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatalf("read stream %s: %v", stream, err)
		}
		for m := range batch.Messages() {
			meta, err := m.Metadata()
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, storedMsg{seq: meta.Sequence.Stream, msgID: m.Headers().Get(jetstream.MsgIDHeader),
				header: m.Headers(), data: m.Data()})
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			t.Fatalf("read stream %s: %v", stream, err)
		}
		if ctx.Err() != nil {
			t.Fatalf("read stream %s: %d of %d messages after %s", stream, len(msgs), want, waitLimit)
		}
	}
	return msgs
}

// storedCount is the number of messages stream holds now.
func (s *natsServer) storedCount(t *testing.T, stream string) uint64 {
	t.Helper()
	st, err := s.js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatalf("stream %s: %v", stream, err)
	}
	return st.CachedInfo().State.Msgs
}

// waitStored polls until stream holds at least n messages; failing, it
// explains what it waited for with describe.
func (s *natsServer) waitStored(t *testing.T, stream string, n uint64, describe func() string) {
	t.Helper()
	s.waitStoredUnless(t, stream, n, func() bool { return false }, describe)
}

// waitStoredUnless is waitStored that also returns as soon as stop
// reports true.
func (s *natsServer) waitStoredUnless(t *testing.T, stream string, n uint64, stop func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		got := s.storedCount(t, stream)
		if got >= n || stop() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream %s holds %d messages after %s, want %d\n%s", stream, got, waitLimit, n, describe())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// streamLastSeq is stream's last sequence.
func (s *natsServer) streamLastSeq(t *testing.T, stream string) uint64 {
	t.Helper()
	st, err := s.js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatalf("stream %s: %v", stream, err)
	}
	return st.CachedInfo().State.LastSeq
}
