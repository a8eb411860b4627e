package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// sumDeadLetterSubject is the sum pipeline's default dead-letter subject.
const sumDeadLetterSubject = "wasmstream.dlq.sums.sum"

// publishRaw publishes each payload, as is, to subject through the server
// at url.
func publishRaw(reach natsio.ServerOptions, subject string, payloads ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		return err
	}
	defer c.Close()
	sink := c.NewSink(len(payloads))
	defer sink.Close()
	for _, p := range payloads {
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: subject, Data: []byte(p)}); err != nil {
			return err
		}
	}
	return sink.Flush(ctx)
}

// deadLetterReasons maps the source sequence of every stored dead letter of
// the sum pipeline to its reason.
func deadLetterReasons(t *testing.T, msgs []natsio.Message) map[string]string {
	t.Helper()
	reasons := map[string]string{}
	for _, m := range msgs {
		reasons[m.Header.Get(HeaderSourceSequence)] = m.Header.Get(HeaderError)
	}
	return reasons
}

// Two records whose keys are different byte strings that are not UTF-8
// used to both get key "\uFFFD\uFFFD" and add to the same sums. They are
// dead-lettered with the reason, and the state never sees them.
func TestKeyNotUTF8IsDeadLettered(t *testing.T) {
	s := newSumSetup(t, 1)
	cfg := s.load(t)
	runSumsWith(t, cfg, Options{}, func(p *Pipeline) error {
		return publishRaw(p.Reach(), sumSubjectA,
			"{\"k\":\"\xff\xfe\",\"v\":1}",
			"{\"k\":\"\xfe\xff\",\"v\":2}",
			`{"k":"ok","v":5}`)
	})
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, map[string]int64{sumsKey("sum-0", "ok"): 5})
	reasons := deadLetterReasons(t, readSubject(t, cfg, sumDeadLetterSubject))
	if len(reasons) != 2 {
		t.Fatalf("dead letters %v, want sequences 1 and 2", reasons)
	}
	for _, seq := range []string{"1", "2"} {
		if !strings.Contains(reasons[seq], "key is not valid UTF-8") {
			t.Errorf("dead letter of sequence %s: reason %q, want it to say the key is not valid UTF-8", seq, reasons[seq])
		}
	}
}

// Records whose key cannot be extracted are dead-lettered by the source,
// not by a task; Stats and the final summary count them with the records
// the guest rejected (they once counted 0 of 8 stored dead letters).
func TestKeyFailuresAreCountedAsDeadLettered(t *testing.T) {
	s := newSumSetup(t, 2)
	cfg := s.load(t)
	var logs syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, JSONFormat: true, Output: &logs})
	stats := runSumsWith(t, cfg, Options{Logger: logger}, func(p *Pipeline) error {
		return publishRaw(p.Reach(), sumSubjectA,
			`{"v":1}`,             // no key
			`{"k":{"x":1},"v":1}`, // an object is no key
			`not json`,            // no payload to take a key from
			`{"k":"ok","v":5}`,
			`{"k":"no-value"}`) // the guest rejects it
	})
	dead := readSubject(t, cfg, sumDeadLetterSubject)
	reasons := deadLetterReasons(t, dead)
	for _, seq := range []string{"1", "2", "3"} {
		if !strings.HasPrefix(reasons[seq], "key: ") {
			t.Errorf("dead letter of sequence %s: reason %q, want a key failure", seq, reasons[seq])
		}
	}
	if len(dead) != 4 || reasons["5"] == "" {
		t.Fatalf("dead letters %v, want sequences 1-3 (key) and 5 (guest)", reasons)
	}
	if stats.DeadLettered != 4 || stats.Processed != 1 || stats.Read != 5 {
		t.Errorf("stats %+v, want 5 read, 1 processed, 4 dead-lettered", stats)
	}
	summary := finalSummary(t, logs.String())
	if got := summary["dead_lettered"]; got != float64(4) {
		t.Errorf("final summary: dead_lettered = %v, want 4 (%v)", got, summary)
	}
}

// finalSummary returns the fields of the "pipeline stopped" line of JSON
// logs.
func finalSummary(t *testing.T, logs string) map[string]any {
	t.Helper()
	for line := range strings.Lines(logs) {
		var fields map[string]any
		if json.Unmarshal([]byte(line), &fields) == nil && fields["@message"] == "pipeline stopped" {
			return fields
		}
	}
	t.Fatalf("no final summary in the logs:\n%s", logs)
	return nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A checkpoint writes only the dead-letter lists that changed since the
// last commit, so unchanged state writes nothing; a decision taken while a
// checkpoint commits is written by the next one.
func TestDeadLetterListsWrittenOnlyWhenChanged(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := &deadLetters{}
	if err := d.load(st, []config.Operator{{Name: "op"}}); err != nil {
		t.Fatal(err)
	}
	put := func() (*pebble.Batch, func()) {
		b := st.NewBatch()
		t.Cleanup(func() { b.Close() })
		committed, err := d.putChanged(b)
		if err != nil {
			t.Fatal(err)
		}
		return b, committed
	}
	if b, _ := put(); !b.Empty() {
		t.Fatal("nothing changed, yet the lists are written")
	}
	d.add("op", deadKey{Source: "s", Sequence: 9})
	d.add("op", deadKey{Source: "s", Sequence: 2})
	b, committed := put()
	if b.Empty() {
		t.Fatal("a new decision is not written")
	}
	d.add("op", deadKey{Source: "s", Sequence: 5}) // while the checkpoint commits
	committed()
	if b, _ := put(); b.Empty() {
		t.Fatal("the decision taken during the commit is lost")
	}
}
