package exchangejs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/natsio"
)

var edge = exchange.Edge{Pipeline: "fraud", Producer: "enrich", Output: "out", Consumer: "score"}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// embedded starts a real embedded JetStream server with a fresh store, as natsio's tests do.
func embedded(t *testing.T) *natsio.Conn {
	t.Helper()
	c, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatalf("Connect embedded: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func spec() exchange.StreamSpec {
	return exchange.StreamSpec{Edge: edge, DuplicateWindow: 10 * time.Minute, Replicas: 1}
}

func TestEnsureExchangeCreates(t *testing.T) {
	c := embedded(t)
	info, err := EnsureExchange(testCtx(t), c, spec())
	if err != nil {
		t.Fatal(err)
	}
	cfg := info.Config
	if cfg.Name != "WS_X_fraud_enrich_score_1564d3cf" || len(cfg.Subjects) != 1 || cfg.Subjects[0] != "wasmstream.x.fraud.enrich_score_1564d3cf.*" {
		t.Errorf("name %s, subjects %v", cfg.Name, cfg.Subjects)
	}
	if cfg.Retention != jetstream.LimitsPolicy || cfg.Duplicates != 10*time.Minute || cfg.Storage != jetstream.FileStorage || cfg.Replicas != 1 {
		t.Errorf("retention %s, duplicates %s, storage %s, replicas %d", cfg.Retention, cfg.Duplicates, cfg.Storage, cfg.Replicas)
	}
	if limits := dropLimits(cfg); len(limits) > 0 {
		t.Errorf("created with limits that drop messages: %v", limits)
	}
	if _, err := EnsureExchange(testCtx(t), c, spec()); err != nil {
		t.Errorf("second EnsureExchange: %v", err)
	}
	// Every character the config allows in names, and an output name no subject could hold.
	odd := exchange.StreamSpec{Edge: exchange.Edge{Pipeline: "pay-risk_2", Producer: "Risk-1_a", Output: "out v2.*>", Consumer: "audit-X"},
		DuplicateWindow: time.Minute, Replicas: 1, Memory: true}
	if info, err := EnsureExchange(testCtx(t), c, odd); err != nil || info.Config.Storage != jetstream.MemoryStorage {
		t.Errorf("EnsureExchange(%v): %v", odd.Edge, err)
	}
}

// An existing stream that would lose messages a restore needs, or forget ids a replay
// republishes sooner than the spec says, is refused with what differs; it is not changed.
func TestEnsureExchangeRefusesUnfitStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  jetstream.StreamConfig
		want error
	}{
		{"max age", jetstream.StreamConfig{MaxAge: time.Hour, Duplicates: time.Hour}, ErrLimitedStream},
		{"max messages", jetstream.StreamConfig{MaxMsgs: 1000, Duplicates: time.Hour}, ErrLimitedStream},
		{"short duplicate window", jetstream.StreamConfig{Duplicates: time.Minute}, natsio.ErrStreamConflict},
		{"interest retention", jetstream.StreamConfig{Retention: jetstream.InterestPolicy, Duplicates: time.Hour}, natsio.ErrStreamConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := embedded(t)
			tc.cfg.Name, tc.cfg.Subjects = edge.StreamName(), []string{edge.StreamSubject()}
			if _, err := c.JS.CreateStream(testCtx(t), tc.cfg); err != nil {
				t.Fatal(err)
			}
			_, err := EnsureExchange(testCtx(t), c, spec())
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			info, _ := c.JS.Stream(testCtx(t), edge.StreamName())
			if got := info.CachedInfo().Config; got.MaxAge != tc.cfg.MaxAge || got.Duplicates != tc.cfg.Duplicates {
				t.Errorf("the existing stream was changed: %+v", got)
			}
		})
	}
}

func TestEnsureExchangeRefusesInvalidSpecs(t *testing.T) {
	c := embedded(t)
	for _, s := range []exchange.StreamSpec{
		{Edge: edge, Replicas: 1},
		{Edge: edge, DuplicateWindow: time.Minute},
		{Edge: exchange.Edge{Pipeline: "fraud", Producer: "a.b", Output: "out", Consumer: "score"}, DuplicateWindow: time.Minute, Replicas: 1},
	} {
		if _, err := EnsureExchange(testCtx(t), c, s); !errors.Is(err, exchange.ErrInvalidEdge) {
			t.Errorf("%+v: err = %v, want ErrInvalidEdge", s, err)
		}
	}
}

// The format on a real server: records published twice with their ids are stored once, markers
// (no id) are all stored, a consumer task's multi-filter ordered consumer gets exactly its key
// groups' messages in stream order, and Trim drops what lies below a sequence.
func TestExchangeOnJetStream(t *testing.T) {
	const keyGroups = 8
	c := embedded(t)
	ctx := testCtx(t)
	if _, err := EnsureExchange(ctx, c, spec()); err != nil {
		t.Fatal(err)
	}
	publishRecords(t, c, keyGroups)
	publishRecords(t, c, keyGroups) // a replay: every id again
	for task := uint32(0); task < 2; task++ {
		publishMarkers(t, c, exchange.Marker{Checkpoint: 1, Generation: 1, Task: task, Tasks: 2}, keyGroups)
	}
	publishMarkers(t, c, exchange.Marker{Checkpoint: 1, Generation: 1, Task: 0, Tasks: 2}, keyGroups) // not absorbed
	st, err := c.JS.Stream(ctx, edge.StreamName())
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.State.Msgs, uint64(keyGroups+3*keyGroups); got != want {
		t.Fatalf("stream holds %d messages, want %d records once and every marker", got, want)
	}

	got := readKeyGroups(t, c, 2, 5, keyGroups, 3+3*3)
	want := []string{"record kg 2 x1:enrich:payments:3:0", "record kg 3 x1:enrich:payments:4:0", "record kg 4 x1:enrich:payments:5:0"}
	for _, task := range []int{0, 1, 0} {
		for kg := 2; kg < 5; kg++ {
			want = append(want, fmt.Sprintf("marker kg %d marker 1/g1 from task %d of 2", kg, task))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("task of key groups [2, 5) read\n%q\nwant\n%q", got, want)
	}

	if err := Trim(ctx, c, edge, 5); err != nil {
		t.Fatal(err)
	}
	if info, err = st.Info(ctx); err != nil || info.State.FirstSeq != 5 {
		t.Errorf("after Trim below 5: first sequence %d, %v", info.State.FirstSeq, err)
	}
}

// publishRecords publishes one record per key group, caused by payments sequence kg+1.
func publishRecords(t *testing.T, c *natsio.Conn, keyGroups int) {
	t.Helper()
	for kg := range keyGroups {
		m := nats.NewMsg(edge.Subject(kg))
		m.Data = []byte(fmt.Sprintf(`{"customer":"c%d"}`, kg))
		m.Header.Set(exchange.HeaderEventTime, exchange.EncodeEventTime(time.Unix(0, int64(kg))))
		id := exchange.MsgID(exchange.Position{Producer: "enrich", Input: "payments", Sequence: uint64(kg + 1)})
		if _, err := c.JS.PublishMsg(testCtx(t), m, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
}

// publishMarkers publishes m on every key group's subject.
func publishMarkers(t *testing.T, c *natsio.Conn, m exchange.Marker, keyGroups int) {
	t.Helper()
	for kg := range keyGroups {
		msg := nats.NewMsg(edge.Subject(kg))
		msg.Header.Set(exchange.HeaderMarker, fmt.Sprint(exchange.MarkerVersion))
		msg.Data = exchange.EncodeMarker(m)
		if _, err := c.JS.PublishMsg(testCtx(t), msg); err != nil {
			t.Fatal(err)
		}
	}
}

// readKeyGroups reads n messages as the consumer task of key groups [start, end) would, and
// describes each.
func readKeyGroups(t *testing.T, c *natsio.Conn, start, end, keyGroups, n int) []string {
	t.Helper()
	filters, err := edge.FilterSubjects(start, end, keyGroups)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := c.JS.OrderedConsumer(testCtx(t), edge.StreamName(), jetstream.OrderedConsumerConfig{FilterSubjects: filters})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(n, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for msg := range batch.Messages() {
		kg, ok := edge.KeyGroupOf(msg.Subject(), keyGroups)
		if !ok || kg < start || kg >= end {
			t.Errorf("message on %s, outside key groups [%d, %d)", msg.Subject(), start, end)
		}
		if msg.Headers().Get(exchange.HeaderMarker) != "" {
			m, err := exchange.DecodeMarker(msg.Data())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("marker kg %d %s", kg, m))
			continue
		}
		if _, err := exchange.ParseMsgID(msg.Headers().Get(jetstream.MsgIDHeader)); err != nil {
			t.Error(err)
		}
		out = append(out, fmt.Sprintf("record kg %d %s", kg, msg.Headers().Get(jetstream.MsgIDHeader)))
	}
	if err := batch.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}
