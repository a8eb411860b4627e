package acceptance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/clustertest"
)

// controlRecorder watches the pipeline's control bucket (KV
// wasmstream-<pipeline>, design §5.0) for a whole test, as the output
// recorder watches the output stream. The bucket keeps one revision per
// key (History 1), so its final state cannot show that a key was written
// twice: the recorder keeps every message its stream stores, through an
// ordered consumer started before any worker, and every write attempt on
// the bucket's subjects, through a core subscription (a fenced write the
// server refuses is only there).
type controlRecorder struct {
	bucket *lease.Bucket
	nc     *nats.Conn
	js     jetstream.JetStream
	cons   *follower
	sub    *nats.Subscription

	mu     sync.Mutex
	stored []ctlMsg
	raw    []ctlMsg
	errs   []string
}

// ctlMsg is one message of the control bucket.
type ctlMsg struct {
	seq uint64 // stream sequence (0 for an attempt)
	key string
	// op is the KV operation (KV-Operation: DEL or PURGE) or the reason of
	// a marker (Nats-Marker-Reason: a TTL expiry); "" for a put.
	op    string
	data  []byte
	stamp time.Time // stored: the stream's time stamp; attempt: arrival
}

// startControlRecorder creates the control bucket as a worker would
// (lease.EnsureBucket with the pipeline's replicas: the workers then open
// it) and starts recording it. The test's cleanup stops the recorder.
func startControlRecorder(t *testing.T, c *clustertest.Cluster) *controlRecorder {
	t.Helper()
	r := &controlRecorder{nc: c.Conn(t, nats.Name("acceptance control recorder"))}
	var err error
	if r.js, err = jetstream.New(r.nc); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r.bucket, err = lease.EnsureBucket(ctx, r.js, clusterworker.BucketName(pipelineName), replicas); err != nil {
		t.Fatalf("create the control bucket: %v", err)
	}
	if r.sub, err = r.nc.Subscribe(r.bucket.Subject(">"), r.attempt); err != nil {
		t.Fatal(err)
	}
	if err := r.sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	if r.cons, err = follow(ctx, r.js, r.bucket.Stream(), r.storedMsg, r.consumeErr); err != nil {
		t.Fatalf("control recorder: %v", err)
	}
	t.Cleanup(r.stop)
	if err := r.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *controlRecorder) key(subject string) string {
	return strings.TrimPrefix(subject, r.bucket.Subject(""))
}

func (r *controlRecorder) attempt(m *nats.Msg) {
	msg := ctlMsg{key: r.key(m.Subject), op: opOf(m.Header), data: m.Data, stamp: time.Now()}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, msg)
}

func (r *controlRecorder) storedMsg(m jetstream.Msg) {
	msg := ctlMsg{key: r.key(m.Subject()), op: opOf(m.Headers()), data: m.Data()}
	if meta, err := m.Metadata(); err == nil {
		msg.seq, msg.stamp = meta.Sequence.Stream, meta.Timestamp
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stored = append(r.stored, msg)
}

func opOf(h nats.Header) string {
	if op := h.Get("KV-Operation"); op != "" {
		return op
	}
	return h.Get(jetstream.MarkerReasonHeader)
}

func (r *controlRecorder) consumeErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err.Error())
}

func (r *controlRecorder) stop() {
	r.cons.Stop()
	_ = r.sub.Unsubscribe()
}

// complete waits until the recorder has seen the bucket's stream up to
// its current last sequence and returns what it stored.
func (r *controlRecorder) complete(t *testing.T) []ctlMsg {
	t.Helper()
	want := streamState(t, r.js, r.bucket.Stream()).LastSeq
	deadline := time.Now().Add(time.Minute)
	for {
		msgs := r.snapshot()
		if len(msgs) > 0 && msgs[len(msgs)-1].seq >= want {
			return msgs
		}
		if time.Now().After(deadline) {
			r.mu.Lock()
			errs := r.errs
			r.mu.Unlock()
			t.Fatalf("the control recorder did not see %s up to sequence %d within a minute (consumer errors: %v)", r.bucket.Stream(), want, errs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *controlRecorder) snapshot() []ctlMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ctlMsg(nil), r.stored...)
}

func (r *controlRecorder) attempts() []ctlMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ctlMsg(nil), r.raw...)
}

// holder names the worker that holds the coordinator lease now (read
// through the stream leader), "" when nobody does.
func (r *controlRecorder) holder(ctx context.Context) (string, error) {
	m, err := r.bucket.Get(ctx, clusterworker.CoordinatorKey)
	if errors.Is(err, lease.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return leaseHolder(m.Data), nil
}

// leaseHolder reads the holder of a lease value (internal/cluster/lease
// value.go: {"holder": ..., "token": ...}).
func leaseHolder(data []byte) string {
	var v struct {
		Holder string `json:"holder"`
	}
	_ = json.Unmarshal(data, &v)
	return v.Holder
}

// generationOf is the generation a control record carries, if it is one
// that carries it: checkpoint.pending, checkpoint.<N>, checkpoint.latest
// (ctlrec) and assignment (assign).
func generationOf(key string, data []byte) (uint64, bool) {
	if key != assign.Key && !strings.HasPrefix(key, "checkpoint.") {
		return 0, false
	}
	var v struct {
		Generation *uint64 `json:"generation"`
	}
	if json.Unmarshal(data, &v) != nil || v.Generation == nil {
		return 0, false
	}
	return *v.Generation, true
}

// completedID parses the N of a checkpoint.<N> key.
func completedID(key string) (uint64, bool) {
	rest, ok := strings.CutPrefix(key, "checkpoint.")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil && ctlrec.CompletedKey(n) == key
}

// controlReport checks the control bucket's history, in stream order,
// against the protocol's invariants (design §6, check 5):
//
//   - each checkpoint.<N> is written at most once, and only as the
//     completion of the checkpoint pending then, by its generation;
//   - checkpoint.latest names a completed checkpoint;
//   - generations never decrease: once a newer coordinator wrote, no
//     record of an older one is stored (0 accepted zombie writes);
//   - pending claims and assignment epochs strictly increase;
//   - every record decodes as the version the workers write.
type controlReport struct {
	records     int // messages of the bucket's stream the recorder saw
	missed      int // sequence gaps: messages replaced or expired before the recorder saw them
	completions int
	generations []uint64 // in order of their first record
	// violations of the invariants above
	completedTwice   int
	completedUnclaim int // a completion that is not of the pending claim
	// unverifiable counts completions of a checkpoint newer than the last
	// claim seen, after a gap in the recorder's view: the claim may be among
	// the records the bucket replaced before the recorder saw them (it keeps
	// one revision per key), so the completion cannot be checked against it.
	unverifiable int
	// gapSinceClaim: a sequence gap came after the last claim seen.
	gapSinceClaim   bool
	latestUnknown   int
	olderGeneration int
	pendingBack     int
	epochBack       int
	undecodable     int
	examples        []string
}

func checkControl(msgs []ctlMsg) controlReport {
	r := controlReport{records: len(msgs)}
	completed := map[uint64]uint64{} // N → seq of its record
	var pending ctlrec.Pending
	var highGen, epoch uint64
	var prevSeq uint64
	for _, m := range msgs {
		if prevSeq != 0 && m.seq > prevSeq+1 {
			r.missed += int(m.seq - prevSeq - 1)
			r.gapSinceClaim = true
		}
		prevSeq = m.seq
		if m.op != "" {
			continue
		}
		if g, ok := generationOf(m.key, m.data); ok {
			if g < highGen {
				r.olderGeneration++
				r.note("seq %d %s: generation %d stored after a record of generation %d", m.seq, m.key, g, highGen)
			}
			if g > highGen {
				r.generations = append(r.generations, g)
				highGen = g
			}
		}
		r.checkRecord(m, completed, &pending, &epoch)
	}
	return r
}

// checkRecord checks one put against the records before it.
func (r *controlReport) checkRecord(m ctlMsg, completed map[uint64]uint64, pending *ctlrec.Pending, epoch *uint64) {
	switch n, isCompletion := completedID(m.key); {
	case m.key == ctlrec.PendingKey:
		p, err := ctlrec.DecodePending(m.data)
		if err != nil {
			r.undecodable++
			r.note("seq %d %s: %v", m.seq, m.key, err)
			return
		}
		if p.Checkpoint <= pending.Checkpoint {
			r.pendingBack++
			r.note("seq %d: checkpoint %d claimed (generation %d) after checkpoint %d (generation %d)", m.seq, p.Checkpoint, p.Generation, pending.Checkpoint, pending.Generation)
		}
		*pending = p
		r.gapSinceClaim = false
	case isCompletion:
		c, err := ctlrec.DecodeCompleted(m.data)
		if err != nil {
			r.undecodable++
			r.note("seq %d %s: %v", m.seq, m.key, err)
			return
		}
		r.completions++
		if first, ok := completed[n]; ok {
			r.completedTwice++
			r.note("checkpoint %d completed again at seq %d (generation %d); first at seq %d", n, m.seq, c.Generation, first)
		} else {
			completed[n] = m.seq
		}
		switch {
		case c.Checkpoint == n && c.Checkpoint == pending.Checkpoint && c.Generation == pending.Generation:
		case c.Checkpoint == n && c.Checkpoint > pending.Checkpoint && r.gapSinceClaim:
			r.unverifiable++
		default:
			r.completedUnclaim++
			r.note("seq %d %s: completion of checkpoint %d (generation %d) while checkpoint %d of generation %d was pending",
				m.seq, m.key, c.Checkpoint, c.Generation, pending.Checkpoint, pending.Generation)
		}
	case m.key == ctlrec.LatestKey:
		c, err := ctlrec.DecodeCompleted(m.data)
		if err != nil {
			r.undecodable++
			r.note("seq %d %s: %v", m.seq, m.key, err)
			return
		}
		if _, ok := completed[c.Checkpoint]; !ok {
			r.latestUnknown++
			r.note("seq %d: checkpoint.latest names checkpoint %d, whose completion record is not stored before it", m.seq, c.Checkpoint)
		}
	case m.key == assign.Key:
		a, err := assign.Decode(m.data)
		if err != nil {
			r.undecodable++
			r.note("seq %d %s: %v", m.seq, m.key, err)
			return
		}
		if a.Epoch <= *epoch {
			r.epochBack++
			r.note("seq %d: assignment epoch %d (generation %d) after epoch %d", m.seq, a.Epoch, a.Generation, *epoch)
		}
		*epoch = a.Epoch
	}
}

func (r *controlReport) note(format string, args ...any) {
	if len(r.examples) < 10 {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

func (r controlReport) ok() bool {
	return r.completedTwice == 0 && r.completedUnclaim == 0 && r.latestUnknown == 0 && r.olderGeneration == 0 &&
		r.pendingBack == 0 && r.epochBack == 0 && r.undecodable == 0
}

func (r controlReport) String() string {
	return fmt.Sprintf("%d records (%d replaced before the recorder saw them), %d completions (%d of a claim the recorder missed), generations %v: "+
		"%d completed twice, %d completions not of the pending claim, %d latest naming no completion, "+
		"%d records of an older generation, %d claims not after the previous, %d assignment epochs not after the previous, %d undecodable",
		r.records, r.missed, r.completions, r.unverifiable, r.generations, r.completedTwice, r.completedUnclaim, r.latestUnknown,
		r.olderGeneration, r.pendingBack, r.epochBack, r.undecodable)
}

// afterFirstOf counts the records of generation old stored after the
// first record of generation newer: the zombie writes the server accepted.
func afterFirstOf(msgs []ctlMsg, old, newer uint64) int {
	seenNew, n := false, 0
	for _, m := range msgs {
		g, ok := generationOf(m.key, m.data)
		switch {
		case m.op != "" || !ok:
		case g == newer:
			seenNew = true
		case g == old && seenNew:
			n++
		}
	}
	return n
}

// requireControl checks the control bucket's history (controlReport) and
// that no worker logged the completion of a checkpoint id twice.
func (d *deployment) requireControl(t *testing.T, what string) {
	t.Helper()
	r := checkControl(d.ctl.complete(t))
	logged, repeated := d.loggedCompletions()
	t.Logf("ACCEPTANCE-SUMMARY %s: control bucket: %s; %d completions logged by the workers, %d ids logged twice",
		what, r, len(logged), len(repeated))
	if !r.ok() {
		t.Errorf("%s: control bucket history: %s\n%s", what, r, indent(r.examples))
	}
	if len(repeated) > 0 {
		t.Errorf("%s: checkpoint ids completed twice according to the workers' logs:\n%s", what, indent(repeated))
	}
}

// loggedCompletions returns the checkpoint ids of every "cluster
// checkpoint completed" line of every worker, killed ones included, and
// a description of each id logged more than once.
func (d *deployment) loggedCompletions() (map[uint64]string, []string) {
	logged := map[uint64]string{}
	var repeated []string
	for _, w := range d.workers {
		for _, l := range w.find(logCompleted) {
			n, err := l.uint("checkpoint")
			if err != nil {
				repeated = append(repeated, err.Error())
				continue
			}
			if first, ok := logged[n]; ok {
				repeated = append(repeated, fmt.Sprintf("checkpoint %d by %s (%s) and by %s", n, first, l.raw, w.incarnation()))
				continue
			}
			logged[n] = w.incarnation()
		}
	}
	return logged, repeated
}
