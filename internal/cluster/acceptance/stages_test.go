package acceptance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/exchange"
)

// requireStages checks what every stage of the graph pipeline published
// into the exchange stream of the next one, as requireModelOutputs checks
// the sink: pre's and mid's records (sum2 outputs with the model's
// payloads, since every stage passes "k" and "v" on) must each hold every
// payload of the model exactly once, in each key's order (checkPerKey).
// The exchange stream drops a replayed record by its id, so a payload
// stored twice is a record a stage processed twice. A stream the
// coordinator trimmed (after a garbage collection, at most once a minute)
// no longer holds its first records: only duplicates and order are checked
// there, and the report says so.
func (d *deployment) requireStages(t *testing.T, what string) {
	t.Helper()
	input := sourceName
	for _, stage := range graphStages {
		next := operatorName
		if i := indexOf(graphStages, stage); i+1 < len(graphStages) {
			next = graphStages[i+1]
		}
		e := exchange.Edge{Pipeline: pipelineName, Producer: stage, Output: "out", Consumer: next}
		msgs, first := d.readExchange(t, e.StreamName())
		r, outs := checkStagePayloads(msgs, d.model)
		trimmed := first > 1
		if trimmed {
			r.lost = 0 // the trimmed records cannot be told from lost ones
		}
		perKey := checkPerKey(outs, d.model.perKey)
		if trimmed {
			perKey.missing = 0
		}
		t.Logf("ACCEPTANCE-SUMMARY %s: stage %s (input %s) into %s: %s; per key: %s; trimmed below sequence %d: %t",
			what, stage, input, e.StreamName(), r, perKey, first, trimmed)
		r.require(t, what+": stage "+stage)
		perKey.require(t, what+": stage "+stage, false)
		input = stage + ".out"
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// checkStagePayloads is checkGraphOutputs for an exchange stream, whose
// records' ids name the producer's input (FORMAT.md §4).
func checkStagePayloads(msgs []storedMsg, m *model) (outputReport, []sumOutput) {
	return checkPayloads(msgs, m, func(id string) bool { return strings.HasPrefix(id, "x1:") })
}

// readExchange reads every record of an exchange stream (markers left
// out), in stream order, and returns them with the stream's first
// sequence. The first fetches of a new consumer can meet "no responders"
// on a cluster, until the consumer's interest reached the node the reader
// is connected to: they are tried again.
func (d *deployment) readExchange(t *testing.T, stream string) ([]storedMsg, uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		st   jetstream.Stream
		cons jetstream.Consumer
		err  error
		errs []error
	)
	for attempt := 0; attempt < 9 && ctx.Err() == nil; attempt++ {
		url := d.cluster.URL(attempt % 3)
		js, jerr := jetstream.New(d.cluster.ConnTo(t, url, nats.Name("acceptance stage reader")))
		if err = jerr; err == nil {
			if st, err = js.Stream(ctx, stream); err == nil {
				cons, err = st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
			}
		}
		if err == nil {
			break
		}
		errs = append(errs, fmt.Errorf("through %s: %w", url, err))
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Fatalf("exchange stream %s: %v", stream, errors.Join(errs...))
	}
	if len(errs) > 0 {
		t.Logf("exchange stream %s read after failed attempts: %v", stream, errors.Join(errs...))
	}
	state := st.CachedInfo().State
	var out []storedMsg
	for last, busy := uint64(0), 0; last < state.LastSeq; {
		batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(5*time.Second))
		if errors.Is(err, nats.ErrNoResponders) && busy < 50 {
			// The new consumer's interest has not reached this node yet.
			busy++
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("exchange stream %s: %v", stream, err)
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if err != nil {
				t.Fatalf("exchange stream %s: %v", stream, err)
			}
			last = meta.Sequence.Stream
			if msg.Headers().Get(exchange.HeaderMarker) != "" {
				continue
			}
			out = append(out, storedMsg{seq: last, msgID: msg.Headers().Get("Nats-Msg-Id"), data: msg.Data(), stamp: meta.Timestamp})
		}
		if err := batch.Error(); errors.Is(err, nats.ErrNoResponders) && n == 0 && busy < 50 {
			busy++ // as above
			time.Sleep(200 * time.Millisecond)
			continue
		} else if err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			t.Fatalf("exchange stream %s: fetch after sequence %d: %v", stream, last, err)
		}
		if n == 0 {
			t.Fatalf("exchange stream %s: nothing after sequence %d of %d", stream, last, state.LastSeq)
		}
	}
	return out, state.FirstSeq
}
